"""Checks of item uploads across rows and against the store (duplicates, rubric levels, preferences).

Each check returns the long frames the records step stores, and every problem it found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem
from judgebias_core.sources.upload_mapping import TIE
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.sources.upload_validate import (
    clean_cell,
    duplicate_problems,
    readable_integer,
    readable_integers,
)
from judgebias_core.store.upload_queries import StoreContext


def new_dataset_problems(spec: UploadSpec, context: StoreContext, content_hash: str) -> tuple[list[RowProblem], bool]:
    """Problems with creating ``spec.dataset_id``, and whether this very upload is already stored."""
    record = context.dataset
    if record is None:
        return [], False
    if record.origin == "upload" and record.content_hash == content_hash:
        return [], True
    return [RowProblem(None, None, f"dataset id {spec.dataset_id!r} is already used by another "
                                   f"{'upload' if record.origin == 'upload' else record.origin + ' dataset'}; "
                                   "choose another id")], False


@dataclass(frozen=True)
class CheckedItems:
    scores: pd.DataFrame  # row, item_id, rater, score


def _melt(valid: pd.DataFrame, values: pd.Series, names: list[str], var_name: str, value_name: str) -> pd.DataFrame:
    """(row, item_id, var_name, value_name) from a column of per-row dicts keyed by ``names``.

    Dict keys are user strings (a rater may be called "row"), so they are melted by position, then named.
    """
    wide = pd.DataFrame(values.tolist()).reindex(columns=names)
    wide.columns = range(len(names))
    wide.insert(0, "row", valid["row"].to_numpy())
    wide.insert(1, "item_id", valid["item_id"].to_numpy())
    long = wide.melt(["row", "item_id"], var_name="slot", value_name=value_name)
    return long.assign(**{var_name: long["slot"].map(dict(enumerate(names)))}).drop(columns="slot")


def _long_scores(valid: pd.DataFrame, spec: UploadSpec) -> pd.DataFrame:
    """(row, item_id, rater, column, score) of every human score given, per rater column or from a list column."""
    parts = []
    if spec.rater_columns:
        raters = list(dict.fromkeys(spec.rater_columns.values()))
        melted = _melt(valid, valid["rater_scores"], raters, "rater", "score")
        column_of = {rater: column for column, rater in spec.rater_columns.items()}
        parts.append(melted.assign(column=melted["rater"].map(column_of)))
    if "scores" in spec.columns:
        listed = valid[["row", "item_id"]].assign(score=valid["scores"]).explode("score")
        listed["rater"] = "rater-" + (listed.groupby("row").cumcount() + 1).astype(str)
        parts.append(listed.assign(column=spec.columns["scores"]))
    if not parts:
        return pd.DataFrame(columns=["row", "item_id", "rater", "column", "score"])
    scores = pd.concat(parts, ignore_index=True)
    return scores[scores["score"].notna()].astype({"score": float}).reset_index(drop=True)


def _readable_scores(records: Sequence[dict[str, Any]], spec: UploadSpec) -> pd.DataFrame:
    """Every score cell of every row that holds an integer, whether or not the rest of its row is valid."""
    frame = pd.DataFrame({
        "row": range(1, len(records) + 1),
        "item_id": [str(clean_cell(record.get("item_id"))) for record in records],
        "rater_scores": [{rater: readable_integer(cell) for rater, cell in record.get("rater_scores", {}).items()}
                         for record in records],
        "scores": [readable_integers(record.get("scores")) for record in records],
    })
    return _long_scores(frame, spec)


def check_items(valid: pd.DataFrame, records: Sequence[dict[str, Any]], spec: UploadSpec,
                context: StoreContext) -> tuple[CheckedItems, list[RowProblem]]:
    """Human scores that are not levels of the chosen rubric (on every row), or given twice by one rater."""
    problems: list[RowProblem] = []
    scores = _long_scores(valid, spec)
    readable = _readable_scores(records, spec)
    levels = context.rubric_levels(spec.rubric_id) if spec.rubric_id else []
    if spec.rubric_id and not levels:
        problems.append(RowProblem(None, None, f"rubric {spec.rubric_id!r} is not in the store; upload it first"))
    elif not readable.empty and not spec.rubric_id:
        problems.append(RowProblem(None, None, "the file holds human scores: choose the rubric they are levels of"))
    elif not readable.empty:
        outside = readable[~readable["score"].isin(levels)]
        problems += [RowProblem(int(r.row), r.column, f"score {r.score:g} is not a level of rubric "
                                                      f"{spec.rubric_id!r} ({', '.join(map(str, levels))})")
                     for r in outside.itertuples()]
    # Repeated item ids are reported on their own (over every row, valid or not: see upload.id_problems).
    repeated_id = scores["item_id"].isin(valid.loc[valid["item_id"].duplicated(), "item_id"])
    problems += duplicate_problems(scores[~repeated_id], ["item_id", "rater"], None, "rater name for the item")
    return CheckedItems(scores=scores[["row", "item_id", "rater", "score"]]), problems


@dataclass(frozen=True)
class CheckedPairs:
    answers: pd.DataFrame  # row, item_id, column, candidate, answer
    preferences: pd.DataFrame  # row, item_id, preference


def _long_answers(valid: pd.DataFrame, spec: UploadSpec) -> pd.DataFrame:
    """(row, item_id, column, answer, candidate) of every answer given, in answer-column order per row."""
    answer_columns = list(spec.name_columns or spec.candidate_columns)
    answers = _melt(valid, valid["answers"], answer_columns, "column", "answer")
    if spec.name_columns:
        names = _melt(valid, valid["names"], answer_columns, "column", "candidate")
        answers = answers.merge(names.drop(columns="item_id"), on=["row", "column"], how="left")
    else:
        answers = answers.assign(candidate=answers["column"].map(spec.candidate_columns))
    answers = answers[answers["answer"].notna()]
    slot = answers["column"].map({column: i for i, column in enumerate(answer_columns)})
    return answers.assign(slot=slot).sort_values(["row", "slot"]).drop(columns="slot").reset_index(drop=True)


def _resolve_preferences(valid: pd.DataFrame, answers: pd.DataFrame, spec: UploadSpec) -> tuple[pd.DataFrame,
                                                                                                  list[RowProblem]]:
    column = spec.columns.get("preference")
    given = valid.loc[valid["preference"].notna(), ["row", "item_id", "preference"]]
    if given.empty:
        return given, []
    target = given["preference"].map(spec.preference_map)
    # An unmapped value that is itself a candidate's name names that candidate.
    target = target.fillna(given["preference"].where(given["preference"].isin(set(answers["candidate"]))))
    by_column = given.assign(column=target).merge(answers[["row", "column", "candidate"]], on=["row", "column"],
                                                   how="left")["candidate"].set_axis(given.index)
    resolved = by_column.fillna(target) if spec.name_columns else target
    row_candidates = answers.groupby("row")["candidate"].agg(set)
    known = [r is not None and r == r and (r == TIE or r in row_candidates.get(row, set()))
             for row, r in zip(given["row"], resolved, strict=True)]
    problems = [
        RowProblem(int(row), column,
                   f"preference value {value!r} is not mapped to a candidate or to tie" if mapped != mapped
                   else f"preference {value!r} means {mapped!r}, which has no answer in this row")
        for row, value, mapped, ok in zip(given["row"], given["preference"], target, known, strict=True) if not ok
    ]
    return given.assign(preference=resolved)[known], problems


def check_pairs(valid: pd.DataFrame, spec: UploadSpec) -> tuple[CheckedPairs, list[RowProblem]]:
    """Candidate names, the baseline, and every preference value mapped to a candidate or tie."""
    problems: list[RowProblem] = []
    answer_columns = list(spec.name_columns or spec.candidate_columns)
    if len(answer_columns) < 2:
        problems.append(RowProblem(None, None, "choose at least two answer columns (one per candidate)"))
        return CheckedPairs(pd.DataFrame(), pd.DataFrame()), problems
    names = list(spec.candidate_columns.values())
    if not spec.name_columns and len(set(names)) < len(names):
        problems.append(RowProblem(None, None, "two answer columns have the same candidate name"))
    answers = _long_answers(valid, spec)
    if spec.baseline_candidate and spec.baseline_candidate not in set(answers["candidate"]):
        problems.append(RowProblem(None, None, f"baseline {spec.baseline_candidate!r} is not one of the candidates"))
    preferences, preference_problems = _resolve_preferences(valid, answers, spec)
    return CheckedPairs(answers=answers, preferences=preferences), problems + preference_problems
