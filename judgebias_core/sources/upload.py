"""User uploads end to end: read the file, map its columns, validate every row, preview, write in one transaction.

``prepare_upload`` never writes: it returns the rows as they would be stored and every problem found.
``upload_file`` writes only when there is no problem (else it raises ``ValidationFailed``). The same file with
the same settings gets the same ids, so uploading it twice changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem, UploadLimitExceeded, ValidationFailed
from judgebias_core.sources.upload_checks import check_items, check_pairs, new_dataset_problems
from judgebias_core.sources.upload_listwise_checks import check_listwise_log
from judgebias_core.sources.upload_log_checks import check_pairwise_log, check_rubric_log
from judgebias_core.sources.upload_mapping import (
    FIELDS,
    LOG_DATASET_KINDS,
    LOG_KINDS,
    LOG_OUTCOMES,
    UploadKind,
    normalise,
    suggest_candidate_columns,
    suggest_mapping,
    suggest_name_columns,
    suggest_preference_column,
    suggest_preference_map,
)
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_records import (
    items_batch,
    listwise_log_batch,
    pairs_batch,
    pairwise_log_batch,
    rubric_log_batch,
    upload_run_id,
)
from judgebias_core.sources.upload_spec import LOG_PARSERS, UploadSpec
from judgebias_core.sources.upload_validate import (
    ItemRow,
    ListwiseCallRow,
    PairCallRow,
    PairRow,
    RubricTrialRow,
    _Row,
    clean_cell,
    duplicate_problems,
    validate_rows,
)
from judgebias_core.store.handle import Store, StoreReader
from judgebias_core.store.upload_queries import StoreContext, store_context
from judgebias_core.store.writes import StoreBatch, write_batch

ROW_MODELS: dict[str, type[_Row]] = {
    "items": ItemRow, "pairs": PairRow, "pairwise-log": PairCallRow, "rubric-log": RubricTrialRow,
    "listwise-log": ListwiseCallRow}
# The table the preview shows: what the user's rows become.
PREVIEW_TABLE: dict[str, str] = {"items": "items", "pairs": "answers", **{kind: "judge_calls" for kind in LOG_KINDS}}
CheckLog = Callable[[pd.DataFrame, list[dict[str, Any]], UploadSpec, StoreContext],
                    tuple[pd.DataFrame, list[RowProblem]]]
BuildLog = Callable[[pd.DataFrame, UploadSpec, str, str, str], StoreBatch]
# Each log kind's checks against the store and the batch its checked calls become.
LOG_STEPS: dict[str, tuple[CheckLog, BuildLog]] = {
    "pairwise-log": (check_pairwise_log, pairwise_log_batch),
    "rubric-log": (check_rubric_log, rubric_log_batch),
    "listwise-log": (check_listwise_log, listwise_log_batch),
}


@dataclass(frozen=True)
class UploadPreview:
    """What an upload would write, and every problem that stops it."""

    spec: UploadSpec
    file_name: str
    rows: int
    content_hash: str
    problems: list[RowProblem]
    stored: pd.DataFrame = field(default_factory=pd.DataFrame)  # first rows of PREVIEW_TABLE[kind]
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
        return PREVIEW_TABLE[self.spec.kind]


@dataclass(frozen=True)
class UploadResult:
    dataset_id: str
    kind: str
    rows: int
    run_id: str | None
    inserted: dict[str, int]
    already_stored: bool


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


def suggest_rater_columns(frame: pd.DataFrame, taken: Sequence[str] = ()) -> list[str]:
    """Columns that look like one rater's scores: named like scores, or mostly whole numbers."""
    found = []
    for column in (c for c in frame.columns if c not in set(taken)):
        values = frame[column].astype(object).map(clean_cell).dropna().astype(str).str.strip()
        numeric = values.str.fullmatch(r"[+-]?\d+(?:\.0*)?").mean() if len(values) else 0.0
        if re.search(r"score|rating|rater|grade|annotator", normalise(str(column))) or numeric >= 0.5:
            found.append(str(column))
    return found


def suggest_spec(frame: pd.DataFrame, kind: UploadKind, dataset_id: str, **settings: Any) -> UploadSpec:
    """Settings suggested from the file (header names, preference values); ``settings`` override them, and
    suggested preference mappings only fill values ``settings`` leave unmapped."""
    columns = [str(c) for c in frame.columns]
    suggested: dict[str, Any] = {}
    taken: list[str] = []
    if kind == "pairs":
        name_columns = suggest_name_columns(columns)
        if len(name_columns) >= 2:
            suggested["name_columns"] = name_columns
            taken = [*name_columns, *name_columns.values()]
        else:
            suggested["candidate_columns"] = suggest_candidate_columns(columns)
            taken = list(suggested["candidate_columns"])
    suggested["columns"] = suggest_mapping(columns, kind, taken)
    if kind == "pairs" and "preference" not in suggested["columns"]:  # no header says so: look at the values
        filled = {str(c): frame[c].astype(object).map(clean_cell).dropna().astype(str).str.strip().tolist()
                  for c in frame.columns}
        targets = list(suggested.get("candidate_columns", {}).values()) or list(suggested.get("name_columns", {}))
        found = suggest_preference_column(filled, targets, [*taken, *suggested["columns"].values()])
        if found is not None:
            suggested["columns"]["preference"] = found
    spec = UploadSpec(kind=kind, dataset_id=dataset_id, **{**suggested, **settings})
    if kind != "pairs":
        return spec
    guessed = suggest_preference_map(preference_values(frame, spec), preference_targets(spec))
    return spec.model_copy(update={"preference_map": {**guessed, **spec.preference_map}})


def mapping_problems(columns: Sequence[str], spec: UploadSpec) -> list[RowProblem]:
    """Mapped columns the file lacks, required fields left unmapped, settings that do not fit the kind."""
    present = set(columns)
    problems = [RowProblem(None, column, f"mapped to {name!r} but not in the file")
                for name, column in spec.columns.items() if column not in present]
    problems += [RowProblem(None, column, "not in the file")
                 for column in [*spec.rater_columns, *spec.candidate_columns, *spec.name_columns,
                                *spec.name_columns.values()] if column not in present]
    known = {f.name for f in FIELDS[spec.kind]}
    problems += [RowProblem(None, None, f"{name!r} is not a field of a {spec.kind} upload")
                 for name in spec.columns if name not in known]
    for required in (f for f in FIELDS[spec.kind] if f.required and f.name not in spec.columns):
        if required.name == "judge" and spec.judge:
            continue
        problems.append(RowProblem(None, None, f"no column is mapped to the required field {required.label!r}"
                                   + (" (or give one judge name)" if required.name == "judge" else "")))
    outcome = LOG_OUTCOMES.get(spec.kind)
    if outcome and "raw_output" not in spec.columns and outcome not in spec.columns:
        problems.append(RowProblem(None, None, f"map the raw reply or the {outcome} (or both)"))
    parsers = LOG_PARSERS.get(spec.kind)
    if parsers and spec.parser_name not in parsers:
        problems.append(RowProblem(None, None, f"parser {spec.parser_name!r} does not read {spec.kind} replies "
                                               f"(use {', '.join(parsers)})"))
    return problems


def _records(frame: pd.DataFrame, spec: UploadSpec) -> list[dict[str, Any]]:
    cells = frame.astype(object)
    base = pd.DataFrame({name: cells[column] for name, column in spec.columns.items()}, index=cells.index)
    if "item_id" not in base and spec.kind in ("items", "pairs"):
        base["item_id"] = [str(i) for i in range(1, len(cells) + 1)]
    if "judge" not in base and spec.judge:
        base["judge"] = spec.judge
    records = base.to_dict("records")
    nested: dict[str, list[dict[str, Any]]] = {}
    if spec.kind == "items":
        nested["rater_scores"] = cells[list(spec.rater_columns)].rename(columns=spec.rater_columns).to_dict("records")
    if spec.kind == "pairs":
        answer_columns = list(spec.name_columns or spec.candidate_columns)
        nested["answers"] = cells[answer_columns].to_dict("records")
        if spec.name_columns:
            by_answer = {name: answer for answer, name in spec.name_columns.items()}
            nested["names"] = cells[list(by_answer)].rename(columns=by_answer).to_dict("records")
    for name, values in nested.items():
        for record, value in zip(records, values, strict=True):
            record[name] = value
    return records


def id_problems(records: list[dict[str, Any]], spec: UploadSpec) -> list[RowProblem]:
    """Repeated item ids over every row of an items or pairs file, whether or not the row is otherwise valid."""
    if spec.kind not in ("items", "pairs"):
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


def _store_context(reader: StoreReader, spec: UploadSpec, content_hash: str) -> StoreContext:
    is_log = spec.kind in LOG_KINDS
    return store_context(reader, spec.dataset_id, items=is_log, answers=LOG_DATASET_KINDS.get(spec.kind) == "pairwise",
                         levels=spec.kind in ("items", "rubric-log"),
                         run_id=upload_run_id(spec, content_hash) if is_log else None)


def _batch(valid: pd.DataFrame, records: list[dict[str, Any]], spec: UploadSpec, context: StoreContext,
           file_name: str, content_hash: str) -> tuple[StoreBatch, list[RowProblem], bool, str | None]:
    if spec.kind in ("items", "pairs"):
        problems, already = new_dataset_problems(spec, context, content_hash)
        if spec.kind == "items":
            checked_items, more = check_items(valid, records, spec, context)
            return items_batch(valid, checked_items, spec, file_name, content_hash), problems + more, already, None
        checked_pairs, more = check_pairs(valid, spec)
        if any(p.row is None for p in more):
            return StoreBatch(), problems + more, already, None
        return pairs_batch(valid, checked_pairs, spec, file_name, content_hash), problems + more, already, None
    run_id = upload_run_id(spec, content_hash)
    check, build = LOG_STEPS[spec.kind]
    rows, problems = check(valid, records, spec, context)
    if any(p.row is None for p in problems):
        return StoreBatch(), problems, False, run_id
    return build(rows, spec, run_id, file_name, content_hash), problems, context.run_stored, run_id


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
    problems = mapping_problems(list(frame.columns), spec)
    if problems:
        return UploadPreview(spec, file_name, len(frame), content_hash, problems)
    records = _records(frame, spec)
    valid, problems = validate_rows(records, ROW_MODELS[spec.kind], _column_locator(spec))
    problems += id_problems(records, spec)
    with store.reader() as reader:
        context = _store_context(reader, spec, content_hash)
    batch, more, already, run_id = _batch(valid, records, spec, context, file_name, content_hash)
    problems = sorted(problems + more, key=lambda p: (p.row or 0, p.column or "", p.reason))
    samples = {name: rows.head(preview_rows).reset_index(drop=True) for name, rows in batch.frames()}
    return UploadPreview(
        spec, file_name, len(frame), content_hash, problems,
        stored=samples.get(PREVIEW_TABLE[spec.kind], pd.DataFrame()),
        counts={name: len(rows) for name, rows in batch.frames()}, samples=samples, already_stored=already,
        run_id=run_id, batch=None if problems else batch,
    )


def write_upload(store: Store, preview: UploadPreview) -> UploadResult:
    """Write a prepared upload in one transaction; refuses (``ValidationFailed``) when it has any problem."""
    if preview.problems or preview.batch is None:
        raise ValidationFailed(preview.problems or [RowProblem(None, None, "nothing to write")], preview.file_name)
    result = write_batch(store, preview.batch)
    return UploadResult(dataset_id=preview.spec.dataset_id, kind=preview.spec.kind, rows=preview.rows,
                        run_id=preview.run_id, inserted=result.inserted, already_stored=preview.already_stored)


def upload_file(store: Store, data: bytes, file_name: str, spec: UploadSpec) -> UploadResult:
    """Validate and write an upload: everything or nothing."""
    return write_upload(store, prepare_upload(store, data, file_name, spec))
