"""CLI: import-bundled, datasets, runs."""

from __future__ import annotations

import argparse

from judgebias_core.cli.common import add_json_flag, db_path, emit, open_store
from judgebias_core.engine.overview import runs_overview
from judgebias_core.sources.bundled import BUNDLED_DATASETS, import_bundled
from judgebias_core.store.integrity import check_store
from judgebias_core.store.queries import dataset_summaries


def _import_bundled(args: argparse.Namespace) -> int:
    reports = import_bundled(open_store(args), tuple(args.dataset) if args.dataset else BUNDLED_DATASETS, force=args.force)
    emit(args, [{"dataset": r.dataset_id, "inserted": r.inserted} for r in reports],
         "\n".join(f"{r.dataset_id}: {sum(r.inserted.values())} new rows" for r in reports))
    return 0


def _datasets(args: argparse.Namespace) -> int:
    store = open_store(args)
    with store.reader() as reader:
        summaries = dataset_summaries(reader)
    rows = [
        {"id": s.id, "name": s.name, "kind": s.dataset_kind, "items": s.items, "candidates": s.candidates,
         "judge_calls": s.judge_calls, "human_labels": s.human_labels, "source": s.source, "licence": s.licence}
        for s in summaries
    ]
    text = "\n".join(
        f"{r['id']:<22} {r['kind']:<9} items={r['items']:<6} candidates={r['candidates']:<4} "
        f"judge_calls={r['judge_calls']:<7} human_labels={r['human_labels']}" for r in rows
    )
    emit(args, rows, text or "the store holds no dataset; run import-bundled")
    return 0


def _runs(args: argparse.Namespace) -> int:
    store = open_store(args)
    with store.reader() as reader:
        frame = runs_overview(reader)  # a run whose process died reads as 'interrupted', not 'running'
    rows = [
        {"run_id": r.run_id, "dataset": r.dataset, "study": r.study, "protocol": r.protocol, "provider": r.provider,
         "model": r.model, "simulated": bool(r.simulated), "status": r.status, "summary": r.summary,
         "planned": int(r.planned) if r.planned == r.planned and r.planned is not None else None,
         "completed": int(r.completed), "failed": int(r.failed), "parse_failures": int(r.parse_failures),
         "cost_usd": None if r.unpriced_calls else float(r.cost_usd),
         "cost_estimated_usd": float(r.cost_estimated_usd), "unanswered_sends": int(r.unanswered_sends),
         "unpriced_calls": int(r.unpriced_calls)}
        for r in frame.itertuples()
    ]
    emit(args, rows, frame.drop(columns=["created_at", "status", "resumable"]).to_string(index=False))
    return 0


def _check_store(args: argparse.Namespace) -> int:
    found = check_store(db_path(args))
    lines = [f"{found.path}: schema version {found.schema_version if found.schema_version is not None else '-'}, "
             f"{len(found.rows)} tables, {sum(found.rows.values()):,} rows read"]
    lines += [f"problem: {problem}" for problem in found.problems] or ["no problem found"]
    emit(args, {"path": found.path, "ok": found.ok, "schema_version": found.schema_version, "rows": found.rows,
                "problems": found.problems}, "\n".join(lines))
    return 0 if found.ok else 2


def import_bundled_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", action="append", choices=BUNDLED_DATASETS, help="only this dataset (repeatable)")
    parser.add_argument("--force", action="store_true",
                        help="re-read datasets already in the store (adds only missing rows)")
    add_json_flag(parser)
    parser.set_defaults(handler=_import_bundled)


def datasets_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_flag(parser)
    parser.set_defaults(handler=_datasets)


def check_store_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_flag(parser)
    parser.set_defaults(handler=_check_store)


def runs_arguments(parser: argparse.ArgumentParser) -> None:
    add_json_flag(parser)
    parser.set_defaults(handler=_runs)
