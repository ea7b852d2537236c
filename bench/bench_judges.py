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
    print(f"Auto-J: correct in both orders {autoj.both_orders_correct} of {autoj.pairs} "
          f"({autoj.both_orders_correct_rate:.4f}); position consistency {autoj.position_consistency:.4f}; "
          f"swap-aggregated kappa {autoj.swap_aggregated.kappa:.3f}")
    print(f"gpt-4-0613 leaderboard: top {board.rows[0].candidate} ({board.rows[0].win_rate:.3f}); "
          f"{board.flagged_pairs} of {board.neighbour_pairs} neighbour orders unsure "
          f"({board.pairs_changing_with_presentation} change with presentation, {board.pairs_not_separated} hold in "
          f"< 95% of resamples); item-clustered flip-rate upper bound {board.flip_rate_clustered_high:.3f}")


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
