"""Benchmark: the judge-comparison metrics on the bundled real data (a benchmark, not a test).

Builds a first-launch store in a temporary folder (or uses --db) and prints how long agreement, calibration,
verbosity, self-preference and the leaderboard (2,000 bootstrap resamples) take, with the headline figures.
Run: python bench/bench_judges.py [--db PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.analyses.calibration import calibration
from judgebias_core.analyses.judges import agreement_report, leaderboard
from judgebias_core.analyses.other_biases import self_preference, verbosity
from judgebias_core.bootstrap import ensure_store_ready
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.store.handle import Store


def timed(label: str, fn: Callable[..., Any], db: Path, *args: Any) -> Any:
    """``fn(reader, *args)`` on one reader of the store ``db``, timed (opening the reader included)."""
    start = time.perf_counter()
    with Store(db).reader() as reader:
        result = fn(reader, *args)
    print(f"{label:<58} {time.perf_counter() - start:7.3f} s")
    return result


def run(db: Path) -> None:
    full = timed("agreement, mtbench full (3 judges, 4,800 calls)", agreement_report, db, "mtbench", ["full"])
    timed("agreement, devbench repetition (9 judges, 3,888 calls)", agreement_report, db, "devbench", ["repetition"])
    autoj = timed("calibration, autoj (1,392 pairs)", calibration, db, "autoj", "auto-j-13b", "full")
    timed("verbosity, mtbench full (3 judges + ensemble)", verbosity, db, "mtbench", ["full"],
          [*full.judges, ENSEMBLE_JUDGE])
    timed("self-preference, mtbench full", self_preference, db, "mtbench", ["full"], full.judges)
    board = timed("leaderboard, mtbench full gpt-4-0613 (2,000 resamples)", leaderboard, db, "mtbench", ["full"],
                  "gpt-4-0613")
    timed("leaderboard, mtbench full majority vote (2,000 resamples)", leaderboard, db, "mtbench", ["full"],
          ENSEMBLE_JUDGE)
    davidson_bootstrap()
    print(f"Auto-J: correct in both orders {autoj.both_orders_correct} of {autoj.pairs} "
          f"({autoj.both_orders_correct_rate:.4f}); position consistency {autoj.position_consistency:.4f}; "
          f"swap-aggregated kappa {autoj.swap_aggregated.kappa:.3f}")
    print(f"gpt-4-0613 leaderboard: top {board.rows[0].candidate} ({board.rows[0].win_rate:.3f}); "
          f"{board.flagged_pairs} of {board.neighbour_pairs} neighbour orders unsure "
          f"({board.pairs_changing_with_presentation} change with presentation, {board.pairs_not_separated} hold in "
          f"< 95% of resamples); item-clustered flip-rate upper bound {board.flip_rate_clustered_high:.3f}")


def davidson_bootstrap() -> None:
    """The Davidson (ties) Bradley-Terry fit at MTBench size: 31 candidates, 4,000 comparisons, 100 item resamples."""
    import numpy as np

    from judgebias_core.stats.bradley_terry import bradley_terry

    rng = np.random.default_rng(5)
    strengths = np.linspace(-2, 2, 31)
    first_index, second_index = rng.integers(0, 31, 4000), rng.integers(0, 31, 4000)
    keep = first_index != second_index
    first_index, second_index = first_index[keep], second_index[keep]
    p_first = 1 / (1 + np.exp(strengths[second_index] - strengths[first_index]))
    draw = rng.random(first_index.size)
    outcome = np.where(draw < 0.15, "tie", np.where(draw < 0.15 + 0.85 * p_first, "first", "second"))
    first, second = [f"c{k}" for k in first_index], [f"c{k}" for k in second_index]
    items = [f"q{n % 80}" for n in range(first_index.size)]
    start = time.perf_counter()
    fit = bradley_terry(first, second, list(outcome), item_ids=items, resamples=100)
    print(f"{'Davidson Bradley-Terry, 31 candidates (100 item resamples)':<58} "
          f"{time.perf_counter() - start:7.3f} s (converged: {fit.converged})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="an existing store (default: build one in a temporary folder)")
    args = parser.parse_args()
    if args.db:
        run(args.db)
        return
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.duckdb"
        timed("first-launch store (bundled data and demo runs)", ensure_store_ready, db)
        run(db)


if __name__ == "__main__":
    main()
