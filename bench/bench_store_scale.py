"""How judgebias holds up at scale: fill stores with synthetic judge calls and time every step that reads them.

    python bench/bench_store_scale.py --calls 1000000 10000000 [--dir /tmp/judgebias-bench] [--json out.json]
    python bench/bench_store_scale.py --calls 10000000 --keep            # keep the store, then time it again:
    python bench/bench_store_scale.py --calls 10000000 --reuse --no-import

Per store size it prints: generation and import rate (Parquet through ``write_batch``), pair classification
(full refresh vs the incremental one a write does), the time of every pairwise and rubric metric, and the time
to render each analysis page with AppTest. Metrics and pages are timed twice: "first" is the first call in this
process (it pays module imports and cold file pages), "again" a second call with Streamlit's cache cleared, with
its CPU time (DuckDB and BLAS threads included, so it can exceed the wall time). Metrics or pages not in this
build are reported as skipped.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from bench.synthetic import (  # noqa: E402
    PAIRWISE_DATASET,
    RUBRIC_DATASET,
    SyntheticPlan,
    SyntheticStore,
    describe_store,
    generate_store,
)
from judgebias_core.store.connection import connect, transaction  # noqa: E402
from judgebias_core.store.handle import Store  # noqa: E402
from judgebias_core.store.transfer import export_runs, import_runs  # noqa: E402
from judgebias_core.store.writes import StoreBatch, refresh_pair_outcomes, write_batch  # noqa: E402

ANALYSIS_PAGES = ("overview.py", "data.py", "pairwise_bias.py", "rubric_bias.py", "factors.py", "judges.py",
                  "calibration.py", "other_biases.py", "leaderboard.py", "runs.py", "report.py")


@dataclass
class Timing:
    name: str
    seconds: float | None
    note: str = ""
    again_seconds: float | None = None  # a second call in the same process
    again_cpu_seconds: float | None = None


def timed(name: str, action: Callable[[], Any]) -> Timing:
    """Run ``action`` once and time it; a missing module or a named error becomes a note, not a crash."""
    started = time.perf_counter()
    try:
        result = action()
    except (ImportError, AttributeError) as error:
        return Timing(name, None, f"skipped: not in this build ({error})")
    except Exception as error:  # noqa: BLE001 - a benchmark reports every failure and goes on
        return Timing(name, time.perf_counter() - started, f"error: {type(error).__name__}: {error}")
    elapsed = time.perf_counter() - started
    size = len(result) if hasattr(result, "__len__") and not isinstance(result, str) else None
    return Timing(name, elapsed, f"{size} rows/results" if size is not None else "")


def timed_twice(name: str, action: Callable[[], Any]) -> Timing:
    """:func:`timed`, then the same call again with its wall and CPU time."""
    first = timed(name, action)
    if first.seconds is None or first.note.startswith("error"):
        return first
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    first.again_seconds, first.again_cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
    return first


def metric_actions(path: str, store: SyntheticStore) -> list[tuple[str, Callable[[], Any]]]:
    """Every pairwise and rubric metric with the arguments its page uses by default."""
    run0, judge0 = store.pairwise_runs[0], "synthetic-judge-00"
    all_runs = list(store.pairwise_runs)
    all_judges = [f"synthetic-judge-{i:02d}" for i in range(len(all_runs))]
    perm0, repeat0 = store.rubric_permutation_runs[0], store.rubric_repeat_runs[0]

    def metric(module: str, function: str, db: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
        def call() -> Any:
            import importlib

            from judgebias_core.store.handle import Store

            analysis = getattr(importlib.import_module(f"judgebias_core.analyses.{module}"), function)
            with Store(db).reader() as reader:
                return analysis(reader, *args, **kwargs)
        return call

    return [
        ("pairwise: metrics, one judge's run (PC, Wilson, item bootstrap x2000, PF, McNemar)",
         metric("pairwise", "pairwise_metrics", path, PAIRWISE_DATASET, [judge0], run0)),
        ("pairwise: metrics, every judge and run of the dataset",
         metric("pairwise", "pairwise_metrics", path, PAIRWISE_DATASET)),
        ("pairwise: unit metrics (judge x candidate x task)", metric("pairwise", "unit_metrics", path,
                                                                     PAIRWISE_DATASET, run0)),
        ("pairwise: repetition stability", metric("pairwise", "repetition_metrics", path, PAIRWISE_DATASET,
                                                  None, run0)),
        ("pairwise: list-wise metrics", metric("pairwise", "listwise_metrics", path, PAIRWISE_DATASET)),
        ("judges: agreement (every judge pair)", metric("judges", "agreement_report", path, PAIRWISE_DATASET,
                                                        all_runs)),
        ("judges: leaderboard (one judge, bootstrap)", metric("judges", "leaderboard", path, PAIRWISE_DATASET,
                                                             [run0], judge0)),
        ("judges: self-preference", metric("other_biases", "self_preference", path, PAIRWISE_DATASET, all_runs,
                                           all_judges)),
        ("judges: verbosity", metric("other_biases", "verbosity", path, PAIRWISE_DATASET, all_runs, all_judges)),
        ("rubric: report (positions, P(p|s), spread, Permutation vs Repeat, bootstrap)",
         metric("rubric", "rubric_report", path, perm0, repeat0)),
        ("rubric: score-by-position of one run", metric("rubric", "run_score_position", path, perm0)),
        ("rubric: Bias Cost recommendation", metric("rubric", "probe_recommendation", path, perm0)),
        ("rubric: calibration vs human labels", metric("calibration", "calibration", path, RUBRIC_DATASET, judge0,
                                                       perm0)),
    ]


def _render(page: str) -> tuple[float, float, list[str]]:
    """Open the app, switch to the page with Streamlit's cache cleared, and time that run (wall, CPU)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    app = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=600)
    app.run()
    app.switch_page(str(PROJECT_ROOT / "pages" / page))
    wall, cpu = time.perf_counter(), time.process_time()
    app.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, [str(e.value)[:160] for e in app.exception] + [str(e.value)[:160] for e in app.error]


def time_pages(path: str) -> list[Timing]:
    """Render each analysis page with AppTest from a cold cache: first (pays its imports), then again."""
    os.environ["JUDGEBIAS_DB"] = path
    timings = []
    for page in ANALYSIS_PAGES:
        if not (PROJECT_ROOT / "pages" / page).exists():
            timings.append(Timing(f"page {page}", None, "skipped: page not in this build"))
            continue
        first, _, problems = _render(page)
        again, again_cpu, _ = _render(page)
        timings.append(Timing(f"page {page}", first, "; ".join(problems), again, again_cpu))
    return timings


def time_import(path: str, store: SyntheticStore, work: Path, cap: int) -> list[Timing]:
    """Export runs (up to ``cap`` calls) to Parquet and import them into a new store via ``write_batch``."""
    runs, calls = [], 0
    with connect(path, read_only=True) as con:
        sizes = dict(con.execute("SELECT run_id, count(*) FROM judge_calls GROUP BY run_id").fetchall())
    for run_id in (*store.pairwise_runs, *store.rubric_permutation_runs, *store.rubric_repeat_runs):
        if calls >= cap:
            break
        runs.append(run_id)
        calls += sizes.get(run_id, 0)
    target, copy = work / "export", work / "imported.duckdb"
    started = time.perf_counter()
    Store(path).read(export_runs, runs, target)
    exported = time.perf_counter() - started
    started = time.perf_counter()
    import_runs(Store.open(copy), target)
    imported = time.perf_counter() - started
    size_mb = sum(f.stat().st_size for f in target.glob("*.parquet")) / 1e6
    shutil.rmtree(target)
    copy.unlink()
    return [
        Timing("export runs as Parquet", exported,
               f"{calls:,} calls, {calls / exported:,.0f} calls/s, {size_mb:.0f} MB"),
        Timing("import-runs (Parquet -> write_batch, one transaction)", imported,
               f"{calls:,} calls, {calls / imported:,.0f} calls/s"),
    ]


def time_incremental_write(path: str, store: SyntheticStore) -> list[Timing]:
    """A small write into the big store (what a running engine does) against a full reclassification of a run."""
    run_id = store.pairwise_runs[0]
    with connect(path, read_only=True) as con:
        sample = con.execute("SELECT * EXCLUDE (created_at) FROM judge_calls WHERE run_id = ? ORDER BY item_id, "
                             "second_candidate, first_candidate LIMIT 1000", [run_id]).df()
        run_calls = con.execute("SELECT count(*) FROM judge_calls WHERE run_id = ?", [run_id]).fetchall()[0][0]
    sample["call_id"] = "bench-extra-" + sample["call_id"]
    sample["repetition"] = 2
    started = time.perf_counter()
    write_batch(Store.open(path), StoreBatch(judge_calls=sample))
    incremental = time.perf_counter() - started
    started = time.perf_counter()
    with transaction(path) as con:
        refresh_pair_outcomes(con, PAIRWISE_DATASET, run_id)
    full = time.perf_counter() - started
    with transaction(path) as con:  # leave the store as generated, so it can be timed again (--reuse)
        con.execute("DELETE FROM judge_calls WHERE call_id LIKE 'bench-extra-%'")
        refresh_pair_outcomes(con, PAIRWISE_DATASET, run_id)
    return [
        Timing("write_batch of 1,000 new calls (incremental pair classification)", incremental),
        Timing(f"full reclassification of one run ({run_calls:,} calls; the old per-write cost)", full),
    ]


def bench_size(calls: int, work: Path, import_cap: int, pages: bool, reuse: bool = False) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    path = work / f"synthetic-{calls}.duckdb"
    if reuse and path.exists():
        store = describe_store(path)
        size_mb = path.stat().st_size / 1e6
        rows = [Timing("generate (DuckDB SQL)", None, f"reused {path}: {store.calls:,} calls, store {size_mb:,.0f} MB")]
    else:
        path.unlink(missing_ok=True)
        store = generate_store(path, SyntheticPlan(calls=calls))
        size_mb = path.stat().st_size / 1e6
        rows = [
            Timing("generate (DuckDB SQL)", store.generate_s, f"{store.calls:,} calls, "
                   f"{store.calls / store.generate_s:,.0f} calls/s, store {size_mb:,.0f} MB"),
            Timing("classify every pair (full refresh of every run)", store.classify_s,
                   f"{store.pair_outcomes:,} pairs"),
        ]
    if import_cap > 0:
        rows += time_import(str(path), store, work, import_cap)
    rows += [timed_twice(name, action) for name, action in metric_actions(str(path), store)]
    if pages:
        rows += time_pages(str(path))
    rows += time_incremental_write(str(path), store)  # last: it adds a repetition the metrics above must not see
    return {"calls": store.calls, "pairwise_calls": store.pairwise_calls, "rubric_calls": store.rubric_calls,
            "store_mb": size_mb, "timings": [asdict(t) for t in rows]}


def print_report(result: dict[str, Any]) -> None:
    print(f"\n== {result['calls']:,} judge calls ({result['pairwise_calls']:,} pairwise, "
          f"{result['rubric_calls']:,} rubric); store {result['store_mb']:,.0f} MB")
    for row in result["timings"]:
        seconds = "      -  " if row["seconds"] is None else f"{row['seconds']:8.2f}s"
        again = ("" if row.get("again_seconds") is None else
                 f"  again {row['again_seconds']:.2f}s wall / {row['again_cpu_seconds']:.2f}s CPU")
        print(f"{seconds}  {row['name']}{again}" + (f"  [{row['note']}]" if row["note"] else ""))
    sys.stdout.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, nargs="+", default=[1_000_000, 10_000_000],
                        help="store sizes in judge calls (default: 1,000,000 and 10,000,000)")
    parser.add_argument("--dir", default="/tmp/judgebias-bench", help="where the store files go (deleted after)")
    parser.add_argument("--import-calls", type=int, default=1_000_000, help="calls to export and re-import")
    parser.add_argument("--no-import", action="store_true", help="skip the Parquet export and import")
    parser.add_argument("--reuse", action="store_true", help="time the store already in --dir instead of "
                        "generating it (keeps it)")
    parser.add_argument("--no-pages", action="store_true", help="skip the AppTest page renders")
    parser.add_argument("--keep", action="store_true", help="keep the store files")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    results = []
    for calls in args.calls:
        result = bench_size(calls, Path(args.dir), 0 if args.no_import else args.import_calls, not args.no_pages,
                            args.reuse)
        print_report(result)
        results.append(result)
        if not (args.keep or args.reuse):
            (Path(args.dir) / f"synthetic-{calls}.duckdb").unlink(missing_ok=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
