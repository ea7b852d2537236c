"""Benchmark: every rubric metric over 1 million synthetic rubric trials (a benchmark, not a test).

Synthetic trials (clearly not real data) are generated inside a temporary store with set-based SQL: a
permutation run (100,000 items x the 10 balanced orderings of k = 5) and a repeat run (100,000 items x 10 repeats
of the canonical ordering), 1,000,000 trials each, plus one synthetic label per item. The synthetic judge answers
the label with probability 0.7, else the score shown at position 1 or 2; 0.5 % of replies fail to parse.
Prints how long each step takes. Run: python bench/bench_rubric.py [--items N] [--keep PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.analyses.rubric import probe_recommendation, rubric_report
from judgebias_core.metrics.bias_cost import rank_by_bias_cost
from judgebias_core.metrics.rubric import (
    item_mean_scores,
    ordering_item_scores,
    position_share,
    score_position_table,
    within_item_spread,
)
from judgebias_core.metrics.rubric_correlation import human_correlation, ordering_correlations
from judgebias_core.protocols.orderings import all_orderings, balanced_orderings
from judgebias_core.store.connection import transaction
from judgebias_core.store.handle import Store
from judgebias_core.store.rubric_queries import rubric_labels, rubric_trials
from judgebias_core.store.writes import StoreBatch, write_batch

SCORES = (1, 2, 3, 4, 5)
RUBRIC = "synthetic-k5"

TRIALS_SQL = """
INSERT INTO judge_calls (call_id, run_id, dataset_id, study, judge, item_id, kind, repetition, ordering, rubric_id,
                         score, chosen_position, parse_status, parser)
WITH grid AS (
    SELECT i, o, ord.ordering, CAST(1 + hash(i, 'label') % 5 AS INTEGER) AS label,
           hash(i, o, $salt) % 1000 AS draw, CAST(hash(i, o, $salt, 'pos') % 2 AS BIGINT) AS slot
    FROM range($items) r(i) CROSS JOIN (SELECT unnest($orderings) AS ordering, generate_subscripts($orderings, 1) AS o) ord
), answered AS (
    SELECT *, CASE WHEN draw < 5 THEN NULL WHEN draw < 305 THEN ordering[1 + slot] ELSE label END AS score FROM grid
)
SELECT $run || ':' || i || ':' || o, $run, 'synthetic', $run, 'synthetic-judge', 'item-' || i, 'rubric',
       CASE WHEN $repeat THEN o ELSE 1 END, ordering, $rubric, score, list_position(ordering, score),
       CASE WHEN score IS NULL THEN 'failed' ELSE 'ok' END, 'synthetic'
FROM answered
"""

LABELS_SQL = """
INSERT INTO human_labels (dataset_id, item_id, rater, rater_group, label_source, rubric_id, score)
SELECT 'synthetic', 'item-' || i, 'synthetic-rater', 'synthetic', 'human', $rubric, 1 + hash(i, 'label') % 5
FROM range($items) r(i)
"""


T = TypeVar("T")

def build_store(path: Path, items: int) -> None:
    runs = pd.DataFrame([{"run_id": run, "dataset_id": "synthetic", "study": run, "origin": "engine",
                          "protocol": protocol, "provider": "synthetic", "judge": "synthetic-judge", "simulated": True,
                          "rubric_id": RUBRIC, "status": "complete"}
                         for run, protocol in (("perm", "rubric-permutation"), ("repeat", "rubric-repeat"))])
    write_batch(Store.open(path), StoreBatch(
        datasets=pd.DataFrame([{"dataset_id": "synthetic", "name": "synthetic benchmark (not real data)",
                                "kind": "pointwise", "source": "bench/bench_rubric.py", "licence": "none"}]),
        rubrics=pd.DataFrame([{"rubric_id": RUBRIC, "criterion": "synthetic", "k": 5, "dataset_id": "synthetic"}]),
        runs=runs,
    ))
    balanced = [list(o) for o in balanced_orderings(SCORES)]
    with transaction(path) as con:
        con.execute(TRIALS_SQL, {"items": items, "orderings": balanced, "run": "perm", "salt": 1, "repeat": False,
                                 "rubric": RUBRIC})
        con.execute(TRIALS_SQL, {"items": items, "orderings": [list(SCORES)] * len(balanced), "run": "repeat",
                                 "salt": 2, "repeat": True, "rubric": RUBRIC})
        con.execute(LABELS_SQL, {"items": items, "rubric": RUBRIC})


def timed(name: str, fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = fn()
    print(f"{name:<52} {time.perf_counter() - start:8.2f} s")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=100_000, help="items per run (10 trials each)")
    parser.add_argument("--keep", help="write the store here instead of a temporary folder (reused if it exists)")
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    path = Path(args.keep) if args.keep else Path(folder.name) / "bench.duckdb"
    if path.exists():
        print(f"reusing the store {path}")
    else:
        timed(f"build store ({args.items * 20:,} synthetic trials)", lambda: build_store(path, args.items))
    store = Store(path)

    def on_reader(fn: Callable[..., T], *fn_args: object) -> Callable[[], T]:
        def call() -> T:
            with store.reader() as reader:
                return fn(reader, *fn_args)
        return call

    trials = timed("read permutation trials (rubric_trials)", on_reader(rubric_trials, "perm"))
    repeat = timed("read repeat trials (rubric_trials)", on_reader(rubric_trials, "repeat"))
    labels = timed("read labels (rubric_labels)", lambda: on_reader(rubric_labels, "perm")().set_index("item_id")["label"])
    print(f"  {len(trials):,} permutation trials, {len(repeat):,} repeat trials, {len(labels):,} labelled items")
    timed("position share + Wilson intervals", lambda: position_share(trials, 5))
    table = timed("P(position | score) table", lambda: score_position_table(trials, SCORES))
    timed("within-item spread (permutation run)", lambda: within_item_spread(trials))
    timed("Bias Cost of all 120 orderings", lambda: rank_by_bias_cost(table, all_orderings(SCORES)))
    per_ordering = timed("item x ordering scores", lambda: ordering_item_scores(trials))
    timed("per-ordering correlations and ranks", lambda: ordering_correlations(per_ordering, labels))
    perm_means = timed("per-item means (permutation)", lambda: item_mean_scores(trials))
    repeat_means = item_mean_scores(repeat)
    timed("Permutation vs Repeat, 2,000 bootstrap resamples",
          lambda: human_correlation(perm_means, repeat_means, labels, "human"))
    timed("full rubric_report (store to result, with repeat run)", on_reader(rubric_report, "perm", "repeat"))
    timed("probe_recommendation (all 120 orderings)", on_reader(probe_recommendation, "perm", "all"))
    folder.cleanup()


if __name__ == "__main__":
    main()
