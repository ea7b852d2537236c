"""Runs as Parquet: export judgments with their run, prompt template and dataset references; import them back.

One flat table, one row per judge call: every ``judge_calls`` column, then the run (``run_*``), the prompt
template (``template_*``), the judge (``judge_*``) and the dataset reference (``dataset_*``). DuckDB, pandas
(pyarrow) and Spark read it as is. Import splits it back into the store's tables in one ``write_batch``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
from pandas.api.types import is_numeric_dtype

from judgebias_core.errors import InvalidArgument, NotFoundError, RowProblem, ValidationFailed
from judgebias_core.store.handle import Store, StoreReader
from judgebias_core.store.writes import StoreBatch, write_batch

# store column -> exported column, per referenced table (the key column stays in the call's own columns)
RUN_COLUMNS: dict[str, str] = {
    "run_id": "run_id", "dataset_id": "dataset_id", "study": "run_study", "origin": "run_origin",
    "protocol": "run_protocol", "provider": "run_provider", "judge": "run_judge", "model": "run_model",
    "simulated": "run_simulated", "params": "run_params", "template_id": "run_template_id",
    "rubric_id": "run_rubric_id", "status": "run_status", "planned": "run_planned",
    "created_at": "run_created_at", "finished_at": "run_finished_at",
}
TEMPLATE_COLUMNS: dict[str, str] = {
    "template_id": "template_id", "name": "template_name", "kind": "template_kind", "text": "template_text",
}
JUDGE_COLUMNS: dict[str, str] = {
    "judge": "judge", "provider": "judge_provider", "family": "judge_family", "simulated": "judge_simulated",
    "description": "judge_description",
}
DATASET_COLUMNS: dict[str, str] = {
    "dataset_id": "dataset_id", "name": "dataset_name", "kind": "dataset_kind", "source": "dataset_source",
    "licence": "dataset_licence", "description": "dataset_description",
    "baseline_candidate": "dataset_baseline_candidate", "origin": "dataset_origin",
    "content_hash": "dataset_content_hash",
}
REQUIRED_COLUMNS: tuple[str, ...] = (
    "call_id", "run_id", "dataset_id", "study", "judge", "item_id", "kind", "parse_status", "parser",
    "run_origin", "run_protocol", "run_provider", "run_status",
)
CALL_KINDS = ("pairwise", "listwise", "rubric")
PARSE_STATUSES = ("ok", "failed", "no_reply")
MAX_PROBLEMS_LISTED = 50
# Integer columns of an export: given as text, only base-10 digits are an integer (DuckDB's cast would also read
# "0x10" as 16 and "1_000" as 1000).
INTEGER_COLUMNS = ("repetition", "options", "score", "chosen_position", "input_tokens", "output_tokens",
                   "run_planned")
BASE_10_INTEGER = r"^\s*[+-]?[0-9]+\s*$"

# Every judge_calls column (new ones too: the export follows the schema), then the references.
EXPORT_SQL = """
SELECT j.* REPLACE (coalesce(j.template_id, r.template_id) AS template_id),
       r.study AS run_study, r.origin AS run_origin, r.protocol AS run_protocol, r.provider AS run_provider,
       r.judge AS run_judge, r.model AS run_model, r.simulated AS run_simulated,
       CAST(r.params AS VARCHAR) AS run_params, r.template_id AS run_template_id, r.rubric_id AS run_rubric_id,
       r.status AS run_status, r.planned AS run_planned, r.created_at AS run_created_at,
       r.finished_at AS run_finished_at,
       t.name AS template_name, t.kind AS template_kind, t.text AS template_text,
       g.provider AS judge_provider, g.family AS judge_family, g.simulated AS judge_simulated,
       g.description AS judge_description,
       d.name AS dataset_name, d.kind AS dataset_kind, d.source AS dataset_source, d.licence AS dataset_licence,
       d.description AS dataset_description, d.baseline_candidate AS dataset_baseline_candidate,
       d.origin AS dataset_origin, d.content_hash AS dataset_content_hash
FROM judge_calls j
JOIN runs r ON r.run_id = j.run_id
LEFT JOIN prompt_templates t ON t.template_id = coalesce(j.template_id, r.template_id)
LEFT JOIN judges g ON g.judge = j.judge
LEFT JOIN datasets d ON d.dataset_id = j.dataset_id
WHERE list_contains(?::VARCHAR[], j.run_id)
ORDER BY j.run_id, j.call_id
"""


@dataclass(frozen=True)
class ExportedFile:
    """One Parquet file written by an export: which runs it holds and how many judge calls."""

    path: str
    run_ids: tuple[str, ...]
    judge_calls: int


@dataclass(frozen=True)
class ImportResult:
    """What an import added: rows per table (rows already present are left alone)."""

    files: tuple[str, ...]
    rows_read: int
    inserted: dict[str, int]
    runs: tuple[str, ...]
    datasets_without_items: tuple[str, ...]


def _file_name_for(run_id: str, taken: set[str]) -> str:
    """A file name from the run id; a short hash tells apart run ids that read the same once cleaned."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", run_id).strip("_") or "run"
    name = f"{stem}.parquet"
    if name in taken:
        name = f"{stem}-{hashlib.sha256(run_id.encode()).hexdigest()[:8]}.parquet"
    taken.add(name)
    return name


def _check_runs_exist(con: duckdb.DuckDBPyConnection, run_ids: list[str]) -> None:
    found = {row[0] for row in con.execute("SELECT run_id FROM runs WHERE list_contains(?, run_id)",
                                           [run_ids]).fetchall()}
    missing = [run_id for run_id in run_ids if run_id not in found]
    if missing:
        raise NotFoundError(f"no run {', '.join(map(repr, missing))} in the store")


def _write_runs(con: duckdb.DuckDBPyConnection, run_ids: list[str], target: Path) -> int:
    """Write the judge calls of ``run_ids`` into one Parquet file; returns the number of calls written."""
    relation = con.sql(EXPORT_SQL, params=[run_ids])
    relation.write_parquet(str(target), compression="zstd")
    return int(pq.ParquetFile(target).metadata.num_rows)


def export_runs(reader: StoreReader, run_ids: list[str], out: str | os.PathLike[str]) -> list[ExportedFile]:
    """Export runs as Parquet: to one file when ``out`` ends in .parquet, else one file per run in folder ``out``."""
    if not run_ids:
        raise InvalidArgument("name at least one run to export")
    run_ids = list(dict.fromkeys(run_ids))
    target = Path(out)
    single_file = target.suffix == ".parquet"
    if single_file:
        target.parent.mkdir(parents=True, exist_ok=True)
    else:
        target.mkdir(parents=True, exist_ok=True)
    exported: list[ExportedFile] = []
    con = reader.con
    _check_runs_exist(con, run_ids)
    if single_file:
        exported.append(ExportedFile(str(target), tuple(run_ids), _write_runs(con, run_ids, target)))
    else:
        taken: set[str] = set()
        for run_id in run_ids:
            file_path = target / _file_name_for(run_id, taken)
            exported.append(ExportedFile(str(file_path), (run_id,), _write_runs(con, [run_id], file_path)))
    return exported


def parquet_files(source: str | os.PathLike[str]) -> list[Path]:
    """The Parquet files at ``source``: the file itself, or every *.parquet in a folder (sorted)."""
    location = Path(source)
    if location.is_dir():
        files = sorted(location.glob("*.parquet"))
        if not files:
            raise NotFoundError(f"no .parquet file in {location}")
        return files
    if not location.exists():
        raise NotFoundError(f"no file {location}")
    return [location]


def read_export(files: list[Path]) -> pd.DataFrame:
    """The rows of exported files as one Arrow-backed frame (lists stay lists; fast to hand to DuckDB)."""
    frames = []
    for file_path in files:
        try:
            table = pq.read_table(file_path)
        except Exception as error:
            raise ValidationFailed([RowProblem(None, None, f"{file_path.name} is not a readable Parquet file: "
                                                           f"{error}")], what=str(file_path)) from error
        frames.append(table.to_pandas(types_mapper=pd.ArrowDtype))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def validate_export(frame: pd.DataFrame, what: str) -> None:
    """Collect every problem of an exported table (missing columns, empty keys, unknown kinds) in one error."""
    missing = [column for column in REQUIRED_COLUMNS if column not in frame.columns]
    if missing:
        raise ValidationFailed([RowProblem(None, column, "column missing: not a judgebias runs export")
                                for column in missing], what=what)
    problems: list[RowProblem] = []
    checks = [(column, frame[column].isna(), "empty") for column in REQUIRED_COLUMNS]
    checks.append(("kind", ~frame["kind"].isin(CALL_KINDS), f"kind must be one of {', '.join(CALL_KINDS)}"))
    checks.append(("parse_status", ~frame["parse_status"].isin(PARSE_STATUSES),
                   f"parse_status must be one of {', '.join(PARSE_STATUSES)}"))
    for column in (c for c in INTEGER_COLUMNS if c in frame.columns and not is_numeric_dtype(frame[c].dtype)):
        values = frame[column]
        written = values.notna() & values.astype(object).map(lambda v: not isinstance(v, int | float))
        checks.append((column, written & ~values.astype(str).str.match(BASE_10_INTEGER),
                       "not an integer (base-10 digits only)"))
    for column, bad, reason in checks:
        for row in frame.index[bad.fillna(True).to_numpy(dtype=bool)][:MAX_PROBLEMS_LISTED]:
            problems.append(RowProblem(int(row) + 1, column, reason))
    if problems:
        raise ValidationFailed(problems, what=what)


def _table(frame: pd.DataFrame, mapping: dict[str, str], key: str, required: str) -> pd.DataFrame | None:
    """The distinct rows of one referenced table, in the store's column names; None when the export has none.

    Rows whose ``required`` column is empty are references the source store could not resolve: left out.
    """
    present = {store: exported for store, exported in mapping.items() if exported in frame.columns}
    if required not in present:
        return None
    table = frame[list(present.values())].rename(columns={v: k for k, v in present.items()})
    table = table[table[key].notna() & table[required].notna()].drop_duplicates(subset=[key])
    return table.reset_index(drop=True) if not table.empty else None


def judge_call_columns(reader: StoreReader) -> list[str]:
    """The columns ``judge_calls`` has in this store (the export carries whatever its source store had)."""
    con = reader.con
    rows = con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'judge_calls' "
                       "ORDER BY ordinal_position").fetchall()
    return [row[0] for row in rows]


def export_to_batch(frame: pd.DataFrame, call_columns: list[str]) -> StoreBatch:
    """Split an exported table back into the store's tables (``call_columns``: those of the target store)."""
    return StoreBatch(
        datasets=_table(frame, DATASET_COLUMNS, "dataset_id", required="name"),
        judges=_table(frame, JUDGE_COLUMNS, "judge", required="provider"),
        prompt_templates=_table(frame, TEMPLATE_COLUMNS, "template_id", required="text"),
        runs=_table(frame, RUN_COLUMNS, "run_id", required="origin"),
        judge_calls=frame[[column for column in call_columns if column in frame.columns]],
    )


def _datasets_without_items(reader: StoreReader, dataset_ids: list[str]) -> tuple[str, ...]:
    con = reader.con
    rows = con.execute(
        "SELECT d FROM unnest(?::VARCHAR[]) AS u(d) WHERE d NOT IN (SELECT DISTINCT dataset_id FROM items) "
        "ORDER BY d", [dataset_ids],
    ).fetchall()
    return tuple(row[0] for row in rows)


# Loaders the caller passes in (the store does not depend on the bundled sources or the first launch):
StorePreparer = Callable[[Store], object]  # fills an empty store as a first launch would
BundledLoader = Callable[[Store, Sequence[str]], object]  # loads the bundled datasets of these ids (unknown: skip)


def import_runs(store: Store, source: str | os.PathLike[str], prepare: StorePreparer | None = None,
                load_bundled: BundledLoader | None = None) -> ImportResult:
    """Import exported runs from a Parquet file or folder, in one transaction; a second import adds nothing.

    ``prepare`` (e.g. ``bootstrap.ensure_store_ready``) readies the (opened, so migrated) store first;
    ``load_bundled`` gets the ids of the bundled datasets the runs refer to, so the store gets their items too;
    any other missing dataset gets only its reference row.
    """
    files = parquet_files(source)
    frame = read_export(files)
    validate_export(frame, what=str(source))
    if prepare is not None:
        prepare(store)
    if load_bundled is not None and "dataset_origin" in frame:
        referenced = sorted(set(frame.loc[frame["dataset_origin"] == "bundled", "dataset_id"]))
        if referenced:
            load_bundled(store, referenced)
    with store.reader() as reader:
        call_columns = judge_call_columns(reader)
    result = write_batch(store, export_to_batch(frame, call_columns))
    dataset_ids = sorted(frame["dataset_id"].unique().tolist())
    with store.reader() as reader:
        without_items = _datasets_without_items(reader, dataset_ids)
    return ImportResult(
        files=tuple(str(f) for f in files), rows_read=len(frame), inserted=result.inserted,
        runs=tuple(sorted(frame["run_id"].unique().tolist())),
        datasets_without_items=without_items,
    )
