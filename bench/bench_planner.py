"""Benchmark: how many of the studies a plan promises a width to actually meet it, under each width mode.

Simulated data (clearly not real). For each scenario (flip rate, intra-item correlation rho, pairs per item m,
target width W) the planner (``stats.planning.plan_swap_study``) gives the items needed under "expected" (the
expected width, a normal approximation) and under "assurance" (the width met with 80% assurance, simulated).
Then fresh studies of that many items (item i flips with p_i ~ Beta, mean the flip rate, intra-item correlation
rho; m pairs each; seeds distinct from the planner's) are drawn and the package's decision interval computed on each
(``stats.plan_assurance.decision_widths``: the studentized item bootstrap, exact fallbacks where its rules say).
It prints the items planned, the share of studies whose interval is at most W wide ("met") and the mean width; the
assurance mode should meet the width in about 80% of studies, the expected-width mode in about half.
Run: python bench/bench_planner.py [--studies 1000] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.stats.plan_assurance import decision_widths, simulate_studies
from judgebias_core.stats.planning import WIDTH_MODES, plan_swap_study

# (flip rate, rho, pairs per item, target width): from a handful of items to a few hundred.
SCENARIOS = (
    (0.20, 0.10, 30, 0.10), (0.20, 0.10, 30, 0.06), (0.20, 0.30, 10, 0.15), (0.10, 0.02, 10, 0.06),
    (0.10, 0.10, 4, 0.08), (0.05, 0.10, 10, 0.05), (0.05, 0.30, 4, 0.08), (0.30, 0.02, 4, 0.12),
    (0.20, 0.05, 30, 0.03), (0.02, 0.10, 30, 0.03),
)


def realised(items: int, pairs: int, rate: float, rho: float, width: float, studies: int, resamples: int,
             seed: int) -> tuple[float, float]:
    """Share of fresh simulated studies of the design whose decision interval is at most ``width``; mean width."""
    rng = np.random.default_rng([seed, 7919, items])
    events, trials = simulate_studies(items, pairs, rate, rho, studies, rng)
    widths = decision_widths(events, trials, resamples=resamples, seed=seed + 1)
    return float(np.mean(widths <= width)), float(np.mean(widths))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20231)
    args = parser.parse_args()
    started = time.time()
    met: dict[str, list[float]] = {mode: [] for mode in WIDTH_MODES}
    print(f"{'rate':>5} {'rho':>5} {'m':>3} {'target':>6} | " + " | ".join(
        f"{mode + ': items  met  mean width':>34}" for mode in WIDTH_MODES))
    for rate, rho, pairs, width in SCENARIOS:
        cells = []
        for mode in WIDTH_MODES:
            plan = plan_swap_study(10, pairs, rate, icc=rho, target_width=width, width_mode=mode)
            assert plan.items_needed is not None
            share, mean_width = realised(plan.items_needed, pairs, rate, rho, width, args.studies, args.resamples,
                                            args.seed)
            met[mode].append(share)
            cells.append(f"{plan.items_needed:>11,} {share:>5.1%} {mean_width:>11.4f}")
        print(f"{rate:>5.2f} {rho:>5.2f} {pairs:>3} {width:>6.3f} | " + " | ".join(f"{c:>34}" for c in cells),
              flush=True)
    for mode in WIDTH_MODES:
        shares = np.array(met[mode])
        print(f"{mode:>9}: planned studies meeting the promised width: mean {shares.mean():.1%}, "
              f"range {shares.min():.1%}-{shares.max():.1%}")
    print(f"({args.studies} studies per cell, {args.resamples} resamples, {time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
