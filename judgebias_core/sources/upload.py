"""User uploads end to end: read the file, map its columns, validate every row, preview, write in one transaction.

``prepare_upload`` never writes: it returns the rows as they would be stored and every problem found.
``upload_file`` writes only when there is no problem (else it raises ``ValidationFailed``). The same file with
the same settings gets the same ids, so uploading it twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem, UploadLimitExceeded, ValidationFailed
from judgebias_core.sources.upload_checks import new_dataset_problems
from judgebias_core.sources.upload_kind import UPLOAD_KINDS, UploadKind, UploadRows
from judgebias_core.sources.upload_mapping import suggest_mapping
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_records import upload_run_id
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.sources.upload_validate import clean_cell, duplicate_problems, validate_rows
from judgebias_core.store.handle import Store, StoreReader
from judgebias_core.store.upload_queries import StoreContext, store_context
from judgebias_core.store.writes import StoreBatch, write_batch


@dataclass(frozen=True)
class UploadPreview:
    """What an upload would write, and every problem that stops it."""

    spec: UploadSpec
    file_name: str
    rows: int
    content_hash: str
    problems: list[RowProblem]
    stored: pd.DataFrame = field(default_factory=pd.DataFrame)  # first rows of the kind's preview table
    counts: dict[str, int] = field(default_factory=dict)  # rows per table in the batch
    samples: dict[str, pd.DataFrame] = field(default_factory=dict)  # first rows of every table in the batch
    already_stored: bool = False
    run_id: str | None = None
    batch: StoreBatch | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def stored_table(self) -> str:
        return UPLOAD_KINDS.get(self.spec.upload_kind).preview_table


@dataclass(frozen=True)
class UploadResult:
    dataset_id: str
    upload_kind: str
    rows: int
    run_id: str | None
    inserted: dict[str, int]
    already_stored: bool


def suggest_spec(frame: pd.DataFrame, upload_kind: str, dataset_id: str, **settings: Any) -> UploadSpec:
    """Settings suggested from the file (header names, and whatever the kind reads from the values); ``settings``
    override them, and a kind's refinements (suggested preference mappings) only fill what ``settings`` leave
    unset."""
    record = UPLOAD_KINDS.get(upload_kind)
    suggested = record.suggest(frame, record) if record.suggest else {
        "columns": suggest_mapping([str(c) for c in frame.columns], record.fields)}
    spec = UploadSpec(upload_kind=upload_kind, dataset_id=dataset_id, **{**suggested, **settings})
    return record.refine(frame, spec) if record.refine else spec


def mapping_problems(columns: Sequence[str], spec: UploadSpec) -> list[RowProblem]:
    """Mapped columns the file lacks, required fields left unmapped, settings that do not fit the kind."""
    present = set(columns)
    problems = [RowProblem(None, column, f"mapped to {name!r} but not in the file")
                for name, column in spec.columns.items() if column not in present]
    problems += [RowProblem(None, column, "not in the file")
                 for column in [*spec.rater_columns, *spec.candidate_columns, *spec.name_columns,
                                *spec.name_columns.values()] if column not in present]
    record = UPLOAD_KINDS.get(spec.upload_kind)
    known = set(record.field_names)
    problems += [RowProblem(None, None, f"{name!r} is not a field of a {spec.upload_kind} upload")
                 for name in spec.columns if name not in known]
    for required in (f for f in record.fields if f.required and f.name not in spec.columns):
        if required.name == "judge" and spec.judge:
            continue
        problems.append(RowProblem(None, None, f"no column is mapped to the required field {required.label!r}"
                                   + (" (or give one judge name)" if required.name == "judge" else "")))
    outcome = record.outcome
    if outcome and "raw_output" not in spec.columns and outcome not in spec.columns:
        problems.append(RowProblem(None, None, f"map the raw reply or the {outcome} (or both)"))
    parsers = record.parsers
    if parsers and spec.parser and spec.parser not in parsers:
        problems.append(RowProblem(None, None, f"parser {spec.parser!r} does not read {spec.upload_kind} replies "
                                               f"(use {', '.join(parsers)})"))
    return problems


def _records(frame: pd.DataFrame, spec: UploadSpec, record: UploadKind) -> list[dict[str, Any]]:
    cells = frame.astype(object)
    base = pd.DataFrame({name: cells[column] for name, column in spec.columns.items()}, index=cells.index)
    if "item_id" not in base and record.creates_dataset:
        base["item_id"] = [str(i) for i in range(1, len(cells) + 1)]
    if "judge" not in base and spec.judge:
        base["judge"] = spec.judge
    records = base.to_dict("records")
    for name, values in (record.nested(cells, spec) if record.nested else {}).items():
        for row, value in zip(records, values, strict=True):
            row[name] = value
    return records


def id_problems(records: list[dict[str, Any]], spec: UploadSpec) -> list[RowProblem]:
    """Repeated item ids over every row of a file making a new dataset, whether or not the row is otherwise
    valid."""
    if not UPLOAD_KINDS.get(spec.upload_kind).creates_dataset:
        return []
    ids = pd.Series([clean_cell(record.get("item_id")) for record in records], dtype=object)
    keyed = pd.DataFrame({"row": range(1, len(records) + 1), "item_id": ids.map(lambda v: None if v is None
                                                                               else str(v).strip())})
    return duplicate_problems(keyed[keyed["item_id"].notna()], ["item_id"], spec.columns.get("item_id"), "item id")


def _column_locator(spec: UploadSpec) -> Any:
    rater_column = {rater: column for column, rater in spec.rater_columns.items()}

    def column_of(location: tuple[Any, ...]) -> str | None:
        if not location:
            return None
        name, *rest = location
        if name == "rater_scores":
            return rater_column.get(rest[0]) if rest else None
        if name == "answers":
            return str(rest[0]) if rest else None
        if name == "names":
            return spec.name_columns.get(rest[0]) if rest else None
        return spec.columns.get(name)

    return column_of


def _store_context(reader: StoreReader, spec: UploadSpec, record: UploadKind,
                   run_id: str | None) -> StoreContext:
    is_log = not record.creates_dataset
    return store_context(reader, spec.dataset_id, items=is_log, answers=is_log and record.dataset_kind == "pairwise",
                         levels=record.reads_levels, run_id=run_id)


def prepare_upload(store: Store, data: bytes, file_name: str, spec: UploadSpec,
                   preview_rows: int = 20) -> UploadPreview:
    """Read, map, validate and check an upload without writing; the preview holds every problem found."""
    content_hash = spec.content_hash(data)
    try:
        frame = read_table(data, file_name)
    except UploadLimitExceeded:
        raise  # over a configured limit: refused outright, never previewed
    except ValidationFailed as error:
        return UploadPreview(spec, file_name, 0, content_hash, error.problems)
    record = UPLOAD_KINDS.get(spec.upload_kind)
    problems = mapping_problems(list(frame.columns), spec)
    if problems:
        return UploadPreview(spec, file_name, len(frame), content_hash, problems)
    records = _records(frame, spec, record)
    valid, problems = validate_rows(records, record.row_model, _column_locator(spec))
    problems += id_problems(records, spec)
    run_id = None if record.creates_dataset else upload_run_id(spec, content_hash)
    with store.reader() as reader:
        context = _store_context(reader, spec, record, run_id)
    if record.creates_dataset:
        dataset_problems, already = new_dataset_problems(spec, context, content_hash)
        problems += dataset_problems
    else:
        already = context.run_stored
    batch, more = record.check_and_build(UploadRows(record, valid, records, spec, context, file_name, content_hash,
                                                    run_id))
    problems = sorted(problems + more, key=lambda p: (p.row or 0, p.column or "", p.reason))
    samples = {name: rows.head(preview_rows).reset_index(drop=True) for name, rows in batch.frames()}
    return UploadPreview(
        spec, file_name, len(frame), content_hash, problems,
        stored=samples.get(record.preview_table, pd.DataFrame()),
        counts={name: len(rows) for name, rows in batch.frames()}, samples=samples, already_stored=already,
        run_id=run_id, batch=None if problems else batch,
    )


def write_upload(store: Store, preview: UploadPreview) -> UploadResult:
    """Write a prepared upload in one transaction; refuses (``ValidationFailed``) when it has any problem."""
    if preview.problems or preview.batch is None:
        raise ValidationFailed(preview.problems or [RowProblem(None, None, "nothing to write")], preview.file_name)
    result = write_batch(store, preview.batch)
    return UploadResult(dataset_id=preview.spec.dataset_id, upload_kind=preview.spec.upload_kind, rows=preview.rows,
                        run_id=preview.run_id, inserted=result.inserted, already_stored=preview.already_stored)


def upload_file(store: Store, data: bytes, file_name: str, spec: UploadSpec) -> UploadResult:
    """Validate and write an upload: everything or nothing."""
    return write_upload(store, prepare_upload(store, data, file_name, spec))
