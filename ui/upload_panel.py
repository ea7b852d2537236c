"""The Upload tab of the Data page: choose a file, map its columns, preview, write (all or nothing).

Uploaded text is only ever shown through ``st.dataframe`` / ``st.text`` or escaped, never as markdown or HTML.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from pydantic import ValidationError

from judgebias_core.analyses.datasets import dataset_summaries
from judgebias_core.errors import JudgebiasError, ValidationFailed, invalid_argument
from judgebias_core.names import slug
from judgebias_core.sources.rubric_files import RUBRIC_SUFFIXES, read_rubrics, upload_rubrics
from judgebias_core.sources.upload import UploadPreview, prepare_upload, suggest_spec, write_upload
from judgebias_core.sources.upload_kind import UPLOAD_KINDS, UploadKind
from judgebias_core.sources.upload_limits import MIB, UploadLimits
from judgebias_core.sources.upload_read import TABLE_SUFFIXES, read_table
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.store.handle import Store
from ui.access import operator_gate, record_operator_action
from ui.navigation import link_page, link_run_analysis
from ui.run_panel import NEW_RUN_DATASET_PARAM
from ui.share import escape_markdown
from ui.state import cached, current_store, problems_count, show_error, show_problems, store_stamp
from ui.tables import show_table
from ui.text import counted
from ui.upload_widgets import NONE, kind_settings

FLASH_KEY = "upload_flash"
ANALYSIS_KEY = "upload_analysis_page"
UPLOADED_DATASET_KEY = "upload_dataset"
RUBRIC = "rubric"  # rubric files: not a table upload (sources/rubric_files.py), offered after the upload kinds
# What a person checks first in each previewed table; the ids and bookkeeping columns follow.
_FIRST_COLUMNS: dict[str, tuple[str, ...]] = {
    "judge_calls": ("item_id", "judge", "slots", "first_candidate", "second_candidate", "order_label", "ordering",
                    "raw_output", "verdict", "score", "chosen_position", "parse_status", "parser", "error",
                    "repetition"),
    "items": ("item_id", "question", "response", "candidate", "reference_answer", "task", "rubric_id"),
    "answers": ("item_id", "candidate", "answer"),
}


# Uploads are cached apart from the analyses' cache, few and for minutes: each entry is bounded by the upload limits,
# and a preview is cached without its batch (the rows to write), which the write prepares afresh.
@st.cache_data(show_spinner=False, max_entries=2, ttl=900)
def _read_cached(data: bytes, file_name: str) -> pd.DataFrame:
    """The uploaded table, read once per file rather than on every widget change."""
    return read_table(data, file_name)


@st.cache_data(show_spinner=False, max_entries=4, ttl=900)
def _preview_cached(path: str, stamp: tuple[float, int], data: bytes, file_name: str,
                    spec: UploadSpec) -> UploadPreview:
    """The upload's preview (counts, first rows, problems) without its batch, until the store changes."""
    return dataclasses.replace(prepare_upload(Store(path), data, file_name, spec), batch=None)


def _readable(rows: pd.DataFrame, table: str) -> pd.DataFrame:
    first = [c for c in _FIRST_COLUMNS.get(table, ()) if c in rows.columns]
    ordered = rows[first + [c for c in rows.columns if c not in first]]
    # Text for display (mixed cells would trip Arrow); missing values stay empty rather than "None".
    return ordered.map(_cell_text)


def _cell_text(value: Any) -> str | None:
    """A stored value as text: a list (the turns of an answer) one element after the other, a mapping as JSON, no
    Python brackets or quotes."""
    if isinstance(value, list | tuple | np.ndarray):
        return " / ".join(str(part) for part in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return None if pd.isna(value) else str(value)


def _slug(file_name: str) -> str:
    return slug(file_name.rsplit(".", 1)[0], "upload", lowercase=True, strip="-._", max_length=60)


def _field_columns(kind: UploadKind, columns: list[str], suggested: dict[str, str], key: str) -> dict[str, str]:
    """One selectbox per field of the kind, preset to the column suggested from the header names."""
    chosen: dict[str, str] = {}
    grid = st.columns(3)
    for index, spec in enumerate(kind.fields):
        options = [NONE, *columns]
        default = options.index(suggested[spec.name]) if suggested.get(spec.name) in options else 0
        with grid[index % 3]:
            column = st.selectbox(spec.label + (" *" if spec.required else ""), options, index=default,
                                  key=f"{key}:field:{spec.name}", help=spec.help or None)
        if column != NONE:
            chosen[spec.name] = column
    return chosen


def _target_dataset(kind: UploadKind, file_name: str, key: str) -> dict[str, Any]:
    if not kind.creates_dataset:
        wanted = kind.dataset_kind
        choices = [s.id for s in cached(dataset_summaries) if s.dataset_kind == wanted]
        if not choices:
            st.warning(f"The store has no {wanted} dataset yet: upload its items first.")
            return {"dataset_id": ""}
        return {"dataset_id": st.selectbox("Dataset the log's items belong to", choices, key=f"{key}:dataset")}
    left, middle, right = st.columns(3)
    return {
        "dataset_id": left.text_input("New dataset id", _slug(file_name), key=f"{key}:dataset",
                                      help="Lower-case letters, digits, '.', '_' or '-'.").strip(),
        "dataset_name": middle.text_input("Dataset name", key=f"{key}:name").strip(),
        "licence": right.text_input("Licence", "user upload (licence not stated)", key=f"{key}:licence").strip(),
    }


def _show_preview(preview: UploadPreview) -> None:
    counts = table_counts(preview.counts)
    st.text(f"{counted(preview.rows, 'row')} in the file -> {counts or 'nothing'}"
            + (f"; run {preview.run_id}" if preview.run_id else ""))
    if preview.already_stored:
        st.info("This file with these settings is already in the store: writing it again changes nothing.")
    if preview.problems:
        show_problems(preview.problems, f"{problems_count(preview.problems)}: nothing can be written "
                                        "until every one is fixed.")
    if not preview.stored.empty:
        st.markdown(f"**First rows as they will be stored** (table `{preview.stored_table}`)")
        show_table(_readable(preview.stored, preview.stored_table), spell_out=False)
    others = {table: rows for table, rows in preview.samples.items()
              if table != preview.stored_table and not rows.empty}
    if others:
        with st.expander(f"The other tables this upload writes ({', '.join(others)})"):
            for table, rows in others.items():
                st.text(f"{table}: first {len(rows)} of {counted(preview.counts[table], 'row')}")
                show_table(_readable(rows, table), spell_out=False)
    order_note = UPLOAD_KINDS.get(preview.spec.upload_kind).order_note
    if order_note:
        st.caption(order_note)


def _write(data: bytes, file_name: str, spec: UploadSpec) -> None:
    if not operator_gate("Uploading"):
        return
    try:  # prepared again: the store may have changed since the preview, and previews are cached without batches
        store = current_store()
        preview = prepare_upload(store, data, file_name, spec)
        result = write_upload(store, preview)
    except JudgebiasError as error:
        show_error(error)
        return
    if not result.already_stored:
        record_operator_action("upload", [result.run_id or result.dataset_id], preview.file_name)
    st.cache_data.clear()
    added = sum(result.inserted.values())
    st.session_state[FLASH_KEY] = (
        f"Upload to {result.dataset_id}: {counted(added, 'new row')}"
        + (f" ({table_counts(result.inserted)})" if added else "")
        + (f"; run {result.run_id}, now in the analysis pages" if result.run_id else "")
        + (" - already stored, nothing changed." if not added else "."))
    kind = UPLOAD_KINDS.get(preview.spec.upload_kind)
    if kind.analysis_protocol and result.run_id:  # where the uploaded run is analysed
        st.session_state[ANALYSIS_KEY] = (result.run_id, result.dataset_id, kind.analysis_protocol)
    if kind.creates_dataset:  # a new dataset: the next step is judging it
        st.session_state[UPLOADED_DATASET_KEY] = result.dataset_id
    st.rerun()


def table_counts(inserted: Mapping[str, int]) -> str:
    """Rows written per store table, as a person reads it: "items 3, answers 6, human labels 3"."""
    return ", ".join(f"{table.replace('_', ' ')} {rows:,}" for table, rows in inserted.items() if rows)


def _table_upload(kind: UploadKind) -> None:
    try:
        limits = UploadLimits.from_environment()
    except JudgebiasError as error:  # a limit set to something that is not a number
        show_error(error)
        return
    file = st.file_uploader("File (CSV, TSV, JSON Lines, JSON, Parquet or XLSX)", key=f"upload_file:{kind.name}",
                            type=[suffix.lstrip(".") for suffix in TABLE_SUFFIXES],
                            max_upload_size=max(1, limits.max_bytes // MIB))
    if file is None:
        st.caption("Fields: " + ", ".join(f.label + (" (required)" if f.required else "") for f in kind.fields))
        return
    data = file.getvalue()
    try:
        frame = _read_cached(data, file.name)
    except JudgebiasError as error:
        show_error(error)
        return
    key = f"upload:{kind.name}:{file.file_id}"
    st.text(f"{file.name}: {counted(len(frame), 'row')}, {counted(len(frame.columns), 'column')}. First rows as read:")
    show_table(_readable(frame.head(5), ""), spell_out=False)
    target = _target_dataset(kind, file.name, key)
    try:
        suggested = suggest_spec(frame, kind.name, target["dataset_id"] or "upload")
    except ValidationError:
        suggested = suggest_spec(frame, kind.name, "upload")
    st.markdown("**Map your columns to the fields** (suggested from the header names)")
    columns = _field_columns(kind, [str(c) for c in frame.columns], suggested.columns, key)
    settings = kind_settings(kind, frame, suggested, columns, key)
    try:
        spec = UploadSpec.model_validate({**suggested.model_dump(), **target, **settings, "columns": columns})
    except ValidationError as error:
        show_error(invalid_argument(error, "Settings"))
        return
    path = current_store().path
    preview = _preview_cached(str(path), store_stamp(path), data, file.name, spec)
    _show_preview(preview)
    if st.button("Write to the store", type="primary", disabled=not preview.ok, key=f"{key}:write"):
        _write(data, file.name, spec)


def _rubric_upload() -> None:
    file = st.file_uploader("Rubric file (YAML or JSON)", type=[s.lstrip(".") for s in RUBRIC_SUFFIXES],
                            key="upload_file:rubric")
    st.caption("A criterion under 'criterion' or 'criteria'; level descriptions under 'levels' or "
               "'score_descriptions', keyed by level (1, 2, ... or \"1\", \"2\", ...). One rubric or a list.")
    if file is None:
        return
    data = file.getvalue()
    try:
        rubrics = read_rubrics(data, file.name)
    except ValidationFailed as error:
        show_error(error)
        return
    for rubric in rubrics:
        st.text(f"{rubric.rubric_id} (k = {rubric.k}): {rubric.criterion}")
        show_table([{"level": lv.level, "description": lv.description} for lv in rubric.levels])
    datasets = [NONE, *(s.id for s in cached(dataset_summaries))]
    dataset = st.selectbox("Belongs to dataset (optional)", datasets, key="upload:rubric:dataset")
    if st.button("Write rubric(s) to the store", type="primary", key="upload:rubric:write"):
        if not operator_gate("Uploading"):
            return
        try:
            _, result = upload_rubrics(current_store(), data, file.name, None if dataset == NONE else dataset)
        except JudgebiasError as error:
            show_error(error)
            return
        if sum(result.inserted.values()):
            record_operator_action("upload", [r.rubric_id for r in rubrics], file.name)
        st.cache_data.clear()
        added = sum(result.inserted.values())
        st.session_state[FLASH_KEY] = (f"Rubrics: {counted(added, 'new row')}"
                                       + (f" ({table_counts(result.inserted)})." if added else "."))
        st.rerun()


def render_upload_panel() -> None:
    """The whole Upload tab."""
    st.caption("Add your own items, pairs, judge logs or rubrics. Every problem is listed at once (row, column, "
               "reason); nothing is written unless the whole file is valid, and the same file twice changes nothing.")
    if FLASH_KEY in st.session_state:
        st.success(escape_markdown(st.session_state.pop(FLASH_KEY)))
    uploaded_run = st.session_state.pop(ANALYSIS_KEY, None)
    if uploaded_run:
        link_run_analysis(*uploaded_run)  # the run preselected, not just the page
    uploaded = st.session_state.pop(UPLOADED_DATASET_KEY, None)
    if uploaded:
        link_page("new_run.py", "Run a judge on this dataset", query_params={NEW_RUN_DATASET_PARAM: uploaded})
    labels = {kind.name: kind.label for kind in UPLOAD_KINDS.records()} | {RUBRIC: "Rubric (YAML or JSON)"}
    chosen = st.selectbox("What are you uploading?", list(labels), key="upload_kind", format_func=labels.__getitem__)
    if chosen == RUBRIC:
        _rubric_upload()
    else:
        _table_upload(UPLOAD_KINDS.get(chosen))
