"""Pairwise items: a prompt and two or more candidate answers each, with an optional human preference."""

from __future__ import annotations

from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem
from judgebias_core.sources.upload_checks import check_pairs
from judgebias_core.sources.upload_kind import UploadKind, UploadOption, UploadRows, key_value_pairs
from judgebias_core.sources.upload_mapping import (
    ITEM_ID,
    TASK,
    FieldSpec,
    candidate_from_header,
    suggest_candidate_columns,
    suggest_mapping,
    suggest_name_columns,
    suggest_preference_column,
    suggest_preference_map,
)
from judgebias_core.sources.upload_records import pairs_batch
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.sources.upload_validate import PairRow, clean_cell
from judgebias_core.store.writes import StoreBatch


def preference_values(frame: pd.DataFrame, spec: UploadSpec) -> list[str]:
    """The distinct values of the mapped preference column, in first-seen order (blanks left out)."""
    column = spec.columns.get("preference")
    if column not in frame:
        return []
    values = frame[column].astype(object).map(clean_cell).dropna().astype(str).str.strip()
    return values.drop_duplicates().tolist()


def preference_targets(spec: UploadSpec) -> list[str]:
    """What a preference value may map to besides 'tie': candidate names, or answer columns in name-column mode."""
    return list(spec.name_columns) if spec.name_columns else list(dict.fromkeys(spec.candidate_columns.values()))


def _suggest(frame: pd.DataFrame, upload_kind: UploadKind) -> dict[str, Any]:
    """Answer columns (named by their headers, or next to name columns), the field mapping, and the preference
    column found from its values when no header says so."""
    columns = [str(c) for c in frame.columns]
    suggested: dict[str, Any] = {}
    name_columns = suggest_name_columns(columns)
    if len(name_columns) >= 2:
        suggested["name_columns"] = name_columns
        taken = [*name_columns, *name_columns.values()]
    else:
        suggested["candidate_columns"] = suggest_candidate_columns(columns)
        taken = list(suggested["candidate_columns"])
    suggested["columns"] = suggest_mapping(columns, upload_kind.fields, taken)
    if "preference" not in suggested["columns"]:  # no header says so: look at the values
        filled = {str(c): frame[c].astype(object).map(clean_cell).dropna().astype(str).str.strip().tolist()
                  for c in frame.columns}
        targets = list(suggested.get("candidate_columns", {}).values()) or list(suggested.get("name_columns", {}))
        found = suggest_preference_column(filled, targets, [*taken, *suggested["columns"].values()])
        if found is not None:
            suggested["columns"]["preference"] = found
    return suggested


def _refine(frame: pd.DataFrame, spec: UploadSpec) -> UploadSpec:
    """Suggested preference mappings fill the values the settings leave unmapped."""
    guessed = suggest_preference_map(preference_values(frame, spec), preference_targets(spec))
    return spec.model_copy(update={"preference_map": {**guessed, **spec.preference_map}})


def _answers(cells: pd.DataFrame, spec: UploadSpec) -> dict[str, list[dict[str, Any]]]:
    nested = {"answers": cells[list(spec.name_columns or spec.candidate_columns)].to_dict("records")}
    if spec.name_columns:
        by_answer = {name: answer for answer, name in spec.name_columns.items()}
        nested["names"] = cells[list(by_answer)].rename(columns=by_answer).to_dict("records")
    return nested


def _check_and_build(rows: UploadRows) -> tuple[StoreBatch, list[RowProblem]]:
    checked, problems = check_pairs(rows.valid, rows.spec)
    if any(p.row is None for p in problems):
        return StoreBatch(), problems
    return pairs_batch(rows.valid, checked, rows.spec, rows.file_name, rows.content_hash), problems


def _candidate_columns(values: list[str]) -> dict[str, Any]:
    named = key_value_pairs(values, "--candidate-column", allow_bare=True)
    return {"candidate_columns": {c: n or candidate_from_header(c) or c for c, n in named.items()}}


def _name_columns(values: list[str]) -> dict[str, Any]:
    return {"name_columns": key_value_pairs(values, "--candidate-name-column"), "candidate_columns": {}}


UPLOAD_KIND = UploadKind(
    name="pairs",
    label="Pairwise items (prompt, two or more candidate answers, optional human preference)",
    fields=(
        ITEM_ID,
        FieldSpec("prompt", "Prompt", True, ("prompt", "question", "instruction", "input", "query", "conversation")),
        TASK,
        FieldSpec("preference", "Human preference", False, ("preference", "winner", "human_label", "label",
                                                            "human_preference", "choice", "preferred",
                                                            "human_verdict", "verdict", "human_choice",
                                                            "human_winner", "gold_label", "annotation")),
    ),
    row_model=PairRow,
    dataset_kind="pairwise",
    creates_dataset=True,
    check_and_build=_check_and_build,
    preview_table="answers",
    nested=_answers,
    suggest=_suggest,
    refine=_refine,
    options=(
        UploadOption("--candidate-column",
                     'an answer column, one per candidate (repeatable); NAME defaults to the name in the header '
                     '("Response (ChatGPT)" -> ChatGPT)', {"action": "append", "metavar": "COLUMN[=NAME]"},
                     _candidate_columns),
        UploadOption("--candidate-name-column",
                     "an answer column and the column naming its candidate on each row (repeatable)",
                     {"action": "append", "metavar": "ANSWER_COLUMN=NAME_COLUMN"}, _name_columns),
        UploadOption("--preference-map",
                     "what a preference value means: a candidate name or 'tie' (with name columns, an answer column); "
                     "values equal to a candidate's name need no mapping",
                     {"action": "append", "metavar": "VALUE=CANDIDATE|tie"},
                     lambda values: {"preference_map": key_value_pairs(values, "--preference-map")}),
        UploadOption("--baseline", "baseline candidate (its first-slot order is a pair's original order)",
                     to_settings=lambda name: {"baseline_candidate": name}),
    ),
    settings=("candidate_columns", "preference_map"),
)
