"""Pointwise items: an instruction and a response to score each, with optional human scores on a rubric."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem
from judgebias_core.sources.upload_checks import check_items
from judgebias_core.sources.upload_kind import UploadKind, UploadOption, UploadRows, key_value_pairs
from judgebias_core.sources.upload_mapping import ITEM_ID, TASK, FieldSpec, normalise
from judgebias_core.sources.upload_records import items_batch
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.sources.upload_validate import ItemRow, clean_cell
from judgebias_core.store.writes import StoreBatch


def suggest_rater_columns(frame: pd.DataFrame, taken: Sequence[str] = ()) -> list[str]:
    """Columns that look like one rater's scores: named like scores, or mostly whole numbers."""
    found = []
    for column in (c for c in frame.columns if c not in set(taken)):
        values = frame[column].astype(object).map(clean_cell).dropna().astype(str).str.strip()
        numeric = values.str.fullmatch(r"[+-]?\d+(?:\.0*)?").mean() if len(values) else 0.0
        if re.search(r"score|rating|rater|grade|annotator", normalise(str(column))) or numeric >= 0.5:
            found.append(str(column))
    return found


def _rater_scores(cells: pd.DataFrame, spec: UploadSpec) -> dict[str, list[dict[str, Any]]]:
    return {"rater_scores": cells[list(spec.rater_columns)].rename(columns=spec.rater_columns).to_dict("records")}


def _check_and_build(rows: UploadRows) -> tuple[StoreBatch, list[RowProblem]]:
    checked, problems = check_items(rows.valid, rows.records, rows.spec, rows.context)
    return items_batch(rows.valid, checked, rows.spec, rows.file_name, rows.content_hash), problems


def _raters(values: list[str]) -> dict[str, Any]:
    raters = key_value_pairs(values, "--rater-column", allow_bare=True)
    return {"rater_columns": {column: rater or column for column, rater in raters.items()}}


UPLOAD_KIND = UploadKind(
    name="items",
    label="Pointwise items (instruction, response, optional human scores)",
    fields=(
        ITEM_ID,
        FieldSpec("instruction", "Instruction", True, ("instruction", "prompt", "question", "input", "query",
                                                       "article", "source", "context")),
        FieldSpec("response", "Response", True, ("response", "output", "answer", "completion", "generation",
                                                 "summary", "model_output")),
        FieldSpec("reference_answer", "Reference answer", False, ("reference_answer", "reference", "gold",
                                                                  "ground_truth", "target", "expected_output")),
        FieldSpec("candidate", "Who wrote the response", False, ("candidate", "model", "system", "response_source",
                                                                 "generator", "model_name")),
        TASK,
        FieldSpec("scores", "Human scores (one column holding a list)", False,
                  ("scores", "human_scores", "ratings", "human_ratings", "labels"),
                  'A list per row such as [4, 5, 3] or "4,5,3"; raters are named rater-1, rater-2, ...'),
    ),
    row_model=ItemRow,
    dataset_kind="pointwise",
    creates_dataset=True,
    check_and_build=_check_and_build,
    preview_table="items",
    reads_levels=True,
    nested=_rater_scores,
    options=(
        UploadOption("--rater-column", "a column of human scores, one per rater (repeatable); RATER defaults to the "
                                       "column name", {"action": "append", "metavar": "COLUMN[=RATER]"}, _raters),
        UploadOption("--rubric", "rubric id the scores are levels of (upload it first with 'upload rubric')",
                     to_settings=lambda rubric: {"rubric_id": rubric}),
    ),
    settings=("rater_columns",),
)
