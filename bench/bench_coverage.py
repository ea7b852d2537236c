"""Benchmark: coverage of the decision interval (item-clustered) against Wilson on clustered pairs, and of PPI.

Simulated data (clearly not real): items x pairs per item, each item with its own flip probability drawn from a Beta,
so pairs of an item are correlated. Counts how often each 95% interval covers the true rate (the Beta's mean).
Then prediction-powered inference on simulated human labels and a biased judge. Prints figures; asserts nothing.
Run: python bench/bench_coverage.py [--simulations 1000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.ppi import prediction_powered_mean


def flip_coverage(items: int, pairs: int, a: float, b: float, simulations: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = a / (a + b)
    decision = wilson = 0
    methods: dict[str, int] = {}
    widths: list[tuple[float, float]] = []
    deffs = []
    start = time.perf_counter()
    for _ in range(simulations):
        trials = np.full(items, pairs)
        events = rng.binomial(trials, rng.beta(a, b, size=items))
        result = clustered_rate(events, trials)
        decision += result.low <= truth <= result.high
        wilson += result.iid.low <= truth <= result.iid.high
        methods[result.method] = methods.get(result.method, 0) + 1
        widths.append((result.width, result.iid.high - result.iid.low))
        deffs.append(result.design_effect)
    elapsed = time.perf_counter() - start
    mean_width = np.mean(widths, axis=0)
    print(f"{items} items x {pairs} pairs, item flip p ~ Beta({a:g}, {b:g}) (mean {truth:.3f}, "
          f"Kish design effect {1 + (pairs - 1) / (a + b + 1):.2f}, estimated {np.nanmean(deffs):.2f}), "
          f"{simulations} simulations, {elapsed:.1f} s")
    print(f"  decision interval ({', '.join(f'{m} {c}' for m, c in methods.items())}): "
          f"coverage {decision / simulations:.1%}, mean width {mean_width[0]:.4f}")
    print(f"  Wilson, pairs assumed independent:          coverage {wilson / simulations:.1%}, "
          f"mean width {mean_width[1]:.4f}")


def ppi_coverage(total: int, labelled: int, simulations: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    hits = {"ppi": 0, "ppi++": 0, "human-only": 0, "judge-only": 0}
    widths: dict[str, list[float]] = {name: [] for name in hits}
    truth = 0.0
    for _ in range(simulations):
        quality = rng.normal(0, 1, size=total)
        human = (quality + rng.normal(0, 1, size=total) > 0).astype(float)
        judge = (quality + 0.4 + rng.normal(0, 0.8, size=total) > 0).astype(float)  # leans to the candidate
        truth = 0.5  # P(quality + noise > 0) with symmetric noise
        chosen = np.zeros(total, dtype=bool)
        chosen[rng.choice(total, size=labelled, replace=False)] = True
        for method in ("ppi", "ppi++"):
            result = prediction_powered_mean(human[chosen], judge[chosen], judge[~chosen], method=method)
            hits[method] += result.ppi.low <= truth <= result.ppi.high
            widths[method].append(result.ppi.high - result.ppi.low)
        for name, interval in (("human-only", result.human_only), ("judge-only", result.judge_only)):
            hits[name] += interval.low <= truth <= interval.high
            widths[name].append(interval.high - interval.low)
    print(f"PPI: {total} items, {labelled} human labels, a judge that leans to the candidate, {simulations} simulations")
    for name, count in hits.items():
        print(f"  {name:>10}: coverage {count / simulations:.1%}, mean width {np.mean(widths[name]):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--simulations", type=int, default=1000)
    args = parser.parse_args()
    flip_coverage(80, 30, 1.0, 4.0, args.simulations, seed=1)
    flip_coverage(80, 30, 3.65, 16.05, args.simulations, seed=2)
    flip_coverage(12, 30, 1.0, 4.0, args.simulations, seed=3)
    ppi_coverage(1400, 140, args.simulations, seed=4)


if __name__ == "__main__":
    main()
