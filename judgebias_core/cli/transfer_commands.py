"""CLI: ``export runs`` (runs as Parquet) and ``import-runs`` (read such files back, idempotent)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from judgebias_core.bootstrap import ensure_store_ready
from judgebias_core.cli.common import add_json_flag, db_path, emit, open_store, progress
from judgebias_core.sources.bundled import BUNDLED_DATASETS, import_bundled
from judgebias_core.store.handle import Store
from judgebias_core.store.transfer import ImportResult, export_runs, import_runs


def load_bundled_datasets(store: Store, dataset_ids: Sequence[str]) -> None:
    """The bundled datasets among ``dataset_ids`` (ids that are not bundled are left out), loaded from data/."""
    wanted = tuple(d for d in dataset_ids if d in BUNDLED_DATASETS)
    if wanted:
        import_bundled(store, wanted)


def import_runs_with_bundled_data(store: Store, source: str | os.PathLike[str]) -> ImportResult:
    """``import_runs`` as ``import-runs`` does it: an empty store first gets what a first launch gives it, and a
    bundled dataset the runs refer to is loaded from the bundled files."""
    return import_runs(store, source, prepare=ensure_store_ready, load_bundled=load_bundled_datasets)


def _export_runs(args: argparse.Namespace) -> int:
    with Store(db_path(args)).reader() as reader:  # reads only: a missing store is not made
        files = export_runs(reader, args.run_id, args.out)
    rows = [{"file": f.path, "runs": list(f.run_ids), "judge_calls": f.judge_calls} for f in files]
    emit(args, rows, "\n".join(f"{f.path}: {f.judge_calls:,} judge calls of {', '.join(f.run_ids)}"
                               for f in files))
    return 0


def _import_runs(args: argparse.Namespace) -> int:
    result = import_runs_with_bundled_data(open_store(args), args.file)
    for dataset_id in result.datasets_without_items:
        progress(f"note: dataset {dataset_id} has no items in this store (only its reference was added); "
                 "import or upload the dataset for per-item views")
    payload = {"files": list(result.files), "rows_read": result.rows_read, "runs": list(result.runs),
               "inserted": result.inserted, "datasets_without_items": list(result.datasets_without_items)}
    text = (f"read {result.rows_read:,} judge calls of {len(result.runs)} run(s) from {len(result.files)} file(s); "
            f"new rows: " + ", ".join(f"{table} {count:,}" for table, count in result.inserted.items()))
    emit(args, payload, text)
    return 0


def export_runs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-id", action="append", required=True, metavar="ID", help="a run to export (repeatable)")
    parser.add_argument("--out", required=True, metavar="DIR_OR_FILE",
                        help="a .parquet file (all runs together) or a folder (one file per run)")
    add_json_flag(parser)
    parser.set_defaults(handler=_export_runs)


def import_runs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", required=True, metavar="PATH", help="a .parquet file or a folder of them")
    add_json_flag(parser)
    parser.set_defaults(handler=_import_runs)
