"""Benchmark: every pairwise metric over 1 million synthetic judge calls (a benchmark, not a test).

Synthetic calls (clearly not real data) are written to a temporary store: a `full` study (5 judges x 1,000 items x
40 candidates x 2 orders = 400,000 calls) and a `repetition` study (5 judges x 1,000 items x 20 candidates x 2 orders
x 3 repetitions = 600,000 calls). Prints how long each metric takes. Run: python bench/bench_pairwise.py [--keep PATH]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.analyses.pairwise import (
    listwise_metrics,
    pairwise_metrics,
    repetition_metrics,
    unit_metrics,
)
from judgebias_core.store.handle import Store
from judgebias_core.store.pairwise_queries import pair_details
from judgebias_core.store.writes import StoreBatch, write_batch

BASE = "baseline"


def synthetic_calls(study: str, judges: int, items: int, candidates: int, repetitions: int,
                    rng: np.random.Generator) -> pd.DataFrame:
    """Both orders of every (judge, item, candidate, repetition); verdicts lean to one slot per judge."""
    grid = pd.MultiIndex.from_product(
        [[f"judge-{j}" for j in range(judges)], [f"item-{i}" for i in range(items)],
         [f"cand-{c}" for c in range(candidates)], range(1, repetitions + 1), ["original", "swapped"]],
        names=["judge", "item_id", "candidate", "repetition", "order_label"],
    ).to_frame(index=False)
    n = len(grid)
    original = (grid["order_label"] == "original").to_numpy()
    first = np.where(original, BASE, grid["candidate"].to_numpy())
    second = np.where(original, grid["candidate"].to_numpy(), BASE)
    verdict = rng.choice(np.array(["A", "B", "C"]), size=n, p=[0.45, 0.4, 0.15])
    failed = rng.random(n) < 0.005
    frame = pd.DataFrame({
        "call_id": study + ":" + pd.RangeIndex(n).astype(str),
        "run_id": f"synthetic:{study}", "dataset_id": "synthetic", "study": study, "judge": grid["judge"],
        "item_id": grid["item_id"], "kind": "pairwise", "repetition": grid["repetition"], "options": 3,
        "slots": list(np.stack([first, second], axis=1)), "first_candidate": first, "second_candidate": second,
        "order_label": grid["order_label"], "verdict": np.where(failed, None, verdict),
        "parse_status": np.where(failed, "failed", "ok"), "parser": "synthetic",
    })
    frame["slots"] = frame["slots"].map(list)
    return frame


def build_store(path: Path) -> int:
    rng = np.random.default_rng(0)
    items = pd.DataFrame({"dataset_id": "synthetic", "item_id": [f"item-{i}" for i in range(1000)],
                          "seq": range(1000), "task": [f"task-{i % 8}" for i in range(1000)],
                          "question": "synthetic question"})
    dataset = pd.DataFrame([{"dataset_id": "synthetic", "name": "synthetic benchmark (not real data)",
                             "kind": "pairwise", "source": "bench/bench_pairwise.py", "licence": "none",
                             "baseline_candidate": BASE}])
    write_batch(Store.open(path), StoreBatch(datasets=dataset, items=items))
    total = 0
    for study, candidates, repetitions in (("full", 40, 1), ("repetition", 20, 3)):
        calls = synthetic_calls(study, 5, 1000, candidates, repetitions, rng)
        started = time.perf_counter()
        write_batch(Store.open(path), StoreBatch(judge_calls=calls))
        print(f"write + classify {len(calls):>9,} calls ({study}): {time.perf_counter() - started:6.2f} s")
        total += len(calls)
    return total


def timed(label: str, fn: Callable[[], object]) -> float:
    """Run ``fn`` once; print wall time and process CPU time (DuckDB's threads included; on a shared machine the
    wall time mostly measures the queue for a core)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    result = fn()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    size = len(result) if hasattr(result, "__len__") else ""
    print(f"{label:<48} wall {elapsed:6.3f} s   cpu {cpu:6.3f} s   ({size} rows)")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the store at this path instead of a temp dir")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.keep or Path(folder) / "bench.duckdb"
        if not path.exists():
            print(f"{build_store(path):,} synthetic judge calls written to {path}")
        store = Store(path)

        def on_reader(fn: Callable[..., object], *fn_args: object) -> Callable[[], object]:
            def call() -> object:
                with store.reader() as reader:
                    return fn(reader, *fn_args)
            return call

        total = sum([
            timed("pairwise_metrics (all rows, Wilson, bootstrap)", on_reader(pairwise_metrics)),
            timed("repetition_metrics", on_reader(repetition_metrics)),
            timed("unit_metrics (full study)", on_reader(unit_metrics, "synthetic", "full")),
            timed("unit_metrics (repetition study)", on_reader(unit_metrics, "synthetic", "repetition")),
            timed("listwise_metrics", on_reader(listwise_metrics)),
            timed("pair_details (500 inconsistent pairs)",
                  on_reader(pair_details, "synthetic", "full", ["judge-0"])),
        ])
        print(f"{'all pairwise metrics':<48} wall {total:6.3f} s   (load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
