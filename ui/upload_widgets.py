"""Widgets of the Upload tab for the settings a kind asks for (its record's ``settings``): one widget per setting."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from judgebias_core.analyses.datasets import list_rubrics
from judgebias_core.sources.upload_kind import UploadKind
from judgebias_core.sources.upload_kinds.items import suggest_rater_columns
from judgebias_core.sources.upload_kinds.pairs import preference_targets, preference_values
from judgebias_core.sources.upload_mapping import TIE, candidate_from_header, suggest_preference_map
from judgebias_core.sources.upload_spec import UploadSpec
from ui.share import code_span, escape_markdown
from ui.state import cached

NONE = "(none)"
UNMAPPED = "(not mapped)"
MAX_PREFERENCE_VALUES = 60


RUBRIC_LABEL_CHARS = 90


def rubric_labels(dataset_id: str | None = None) -> dict[str, str]:
    """Rubric id -> how a person recognises it: its criterion text (shortened), with the id and k beside it; the
    rubrics of ``dataset_id`` only when given."""
    rubrics = cached(list_rubrics, dataset_id)
    labels = {}
    for rubric_id, criterion, k in rubrics[["rubric_id", "criterion", "k"]].itertuples(index=False):
        text = " ".join(str(criterion or "").split())
        short = text if len(text) <= RUBRIC_LABEL_CHARS else text[:RUBRIC_LABEL_CHARS - 1].rstrip() + "…"
        labels[rubric_id] = f"{short} ({rubric_id}, k = {k})" if short else f"{rubric_id} (k = {k})"
    return labels


def rater_settings(frame: pd.DataFrame, mapped: dict[str, str], key: str) -> dict[str, Any]:
    """Items: the rubric the human scores use, and the score columns (one per rater) with rater names."""
    rubrics = rubric_labels()
    rubric = st.selectbox("Rubric the human scores are levels of (and the items' default rubric)", [NONE, *rubrics],
                          key=f"{key}:rubric", format_func=lambda r: rubrics.get(r, r),
                          help="Upload a rubric first (choose 'Rubric' above) if yours is not listed.")
    free = [str(c) for c in frame.columns if c not in mapped.values()]
    chosen = st.multiselect("Human score columns, one per rater", free, key=f"{key}:raters",
                            default=suggest_rater_columns(frame, list(mapped.values())),
                            help="Suggested: columns named like scores or holding mostly whole numbers.")
    raters = {column: st.text_input(f"Rater name for column {escape_markdown(column)}", column,
                                    key=f"{key}:rater:{column}").strip() or column for column in chosen}
    return {"rubric_id": None if rubric == NONE else rubric, "rater_columns": raters}


def candidate_settings(columns: list[str], suggested: UploadSpec, key: str) -> dict[str, Any]:
    """Pairs: answer columns named from their headers (editable), or answer columns next to name columns."""
    modes = ("columns", "names")
    mode = st.radio("How does the file give the candidates?", modes, horizontal=True, key=f"{key}:mode",
                    index=1 if suggested.name_columns else 0,
                    format_func=lambda m: "one answer column per candidate" if m == "columns"
                    else "candidate-name columns next to answer columns")
    if mode == "columns":
        chosen = st.multiselect("Answer columns (two or more)", columns, default=list(suggested.candidate_columns),
                                key=f"{key}:answers")
        names = {column: st.text_input(f"Candidate name for column {escape_markdown(column)}",
                                       suggested.candidate_columns.get(column) or candidate_from_header(column)
                                       or column, key=f"{key}:candidate:{column}").strip() or column
                 for column in chosen}
        baseline = st.selectbox("Baseline candidate (optional: its first-slot order is a pair's original order)",
                                [NONE, *dict.fromkeys(names.values())], key=f"{key}:baseline")
        return {"candidate_columns": names, "name_columns": {},
                "baseline_candidate": None if baseline == NONE else baseline}
    chosen = st.multiselect("Answer columns (two or more)", columns, default=list(suggested.name_columns),
                            key=f"{key}:named_answers")
    name_columns = {}
    for column in chosen:
        options = [c for c in columns if c != column]
        default = options.index(suggested.name_columns[column]) if suggested.name_columns.get(column) in options else 0
        name_columns[column] = st.selectbox(f"Column naming the candidate of {escape_markdown(column)}", options,
                                            index=default, key=f"{key}:namecol:{column}")
    baseline = st.text_input("Baseline candidate (optional)", key=f"{key}:baseline_name").strip()
    return {"name_columns": name_columns, "candidate_columns": {}, "baseline_candidate": baseline or None}


def preference_settings(frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    """Pairs: each distinct preference value mapped to a candidate or to tie."""
    values = preference_values(frame, spec)
    if not values:
        return {"preference_map": {}}
    targets = preference_targets(spec)
    guessed = suggest_preference_map(values, targets)
    st.markdown("**What each preference value means**")
    if len(values) > MAX_PREFERENCE_VALUES:
        st.warning(f"{len(values)} distinct preference values; the first {MAX_PREFERENCE_VALUES} are shown. "
                   "Values equal to a candidate's name need no mapping.")
    options = [UNMAPPED, TIE, *targets]

    def describe(target: str) -> str:
        return f"the candidate in column {target}" if spec.name_columns and target in targets else target

    mapping: dict[str, str] = {}
    grid = st.columns(3)
    for index, value in enumerate(values[:MAX_PREFERENCE_VALUES]):
        default = options.index(guessed[value]) if guessed.get(value) in options else 0
        with grid[index % 3]:
            target = st.selectbox(f"{escape_markdown(value)} means", options, index=default, format_func=describe,
                                  key=f"{key}:pref:{index}")
        if target != UNMAPPED:
            mapping[value] = target
    unmatched = [value for value in values[:MAX_PREFERENCE_VALUES] if value not in mapping and value not in targets]
    for value in unmatched:  # one hint per value, rather than one problem per row below
        st.caption(f":material/help: {code_span(value)} matches no candidate: choose above what it means "
                   "(a candidate or tie); until then its rows cannot be written.")
    return {"preference_map": mapping}


def judge_setting(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    if "judge" in spec.columns:
        return {}
    return {"judge": st.text_input("Judge name for every row (the file has no judge column)",
                                   key=f"{key}:judge").strip() or None}


def parser_setting(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    return {"parser": st.selectbox("Parser for raw replies", kind.parsers, key=f"{key}:parser",
                                   help="Replies the parser cannot read are stored raw with parse status "
                                        "'failed', never dropped.")}


def options_setting(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    return {"options": st.radio("Could the judge answer tie?", (3, 2), horizontal=True, key=f"{key}:options",
                                format_func=lambda n: "yes (A / B / C)" if n == 3 else "no (A / B)")}


def allow_none_setting(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    return {"allow_none": st.checkbox("The judge could answer 'no clear winner' ([[NONE]] or none)",
                                      key=f"{key}:allow_none")}


def original_first_setting(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    return {"original_first": st.text_input(
        "Candidate whose first-slot call is the original order", key=f"{key}:original",
        help="Default: the dataset's baseline candidate. " + kind.order_note).strip() or None}


def log_rubric_setting(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    rubrics = rubric_labels()
    rubric = st.selectbox("Rubric of every trial", [NONE, *rubrics], key=f"{key}:rubric",
                          format_func=lambda r: "each item's own rubric" if r == NONE else rubrics.get(r, r))
    return {"rubric_id": None if rubric == NONE else rubric}


def _raters(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    return rater_settings(frame, spec.columns, key)


def _candidates(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    return candidate_settings(list(frame.columns), spec, key)


def _preferences(kind: UploadKind, frame: pd.DataFrame, spec: UploadSpec, key: str) -> dict[str, Any]:
    return preference_settings(frame, spec, key)


# A widget gets the kind, the file, the suggested spec updated with the columns and the settings chosen above it.
SettingWidget = Callable[[UploadKind, pd.DataFrame, UploadSpec, str], dict[str, Any]]
# The widget of each setting a kind may ask for (keyed by setting, not by kind: a new kind picks among these).
SETTING_WIDGETS: dict[str, SettingWidget] = {
    "judge": judge_setting, "parser": parser_setting, "options": options_setting, "allow_none": allow_none_setting,
    "original_first": original_first_setting, "rubric_id": log_rubric_setting, "rater_columns": _raters,
    "candidate_columns": _candidates, "preference_map": _preferences,
}


def kind_settings(kind: UploadKind, frame: pd.DataFrame, suggested: UploadSpec, columns: dict[str, str],
                  key: str) -> dict[str, Any]:
    """The widgets of the settings ``kind`` asks for, in its order; each sees the settings chosen above it
    (preference values are mapped to the candidates chosen first)."""
    settings: dict[str, Any] = {}
    for name in kind.settings:
        current = suggested.model_copy(update={**settings, "columns": columns})
        settings.update(SETTING_WIDGETS[name](kind, frame, current, key))
    return settings
