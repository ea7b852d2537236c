"""Benchmark: does the flip rate's decision interval, and the gate reading its upper bound, hold its level at the
study sizes people can afford? Side by side with Wilson (pairs assumed independent) and the earlier method (the
percentile item bootstrap from 20 items, Wilson on the effective n below, exact bounds at zero events assuming
independent pairs). Then prediction-powered inference at 10 and 140 human labels.

Simulated data (clearly not real). A study has G items with 5-30 pairs each (uniform); item i flips with its own
probability p_i ~ Beta with mean = the true rate and intra-item correlation rho = 1 / (a + b + 1), so pairs of an item
are correlated. Per cell of the grid (items x true rate x rho) it prints:
- coverage: the share of studies whose two-sided 95% interval contains the true rate;
- width / ideal: the mean width over the width of an oracle interval, 2 x 1.96 x the true standard error of the rate
  (known rho and sizes);
- gate pass at threshold: the share of studies whose upper bound is at most the true rate, i.e. how often the gate
  `--max-flip-rate <true rate>` would pass a judge exactly at its threshold (nominal: 2.5%, the one-sided level of
  the upper bound is 97.5%).
The decision interval is computed by the same kernel the package uses (`stats.clustered.studentized_rate_bounds`
vectorised over studies, with `stats.clustered.clustered_rate` itself for every study its rules send to an exact
fallback); a held-out simulation at the end checks the public entry points `clustered_rate(events, trials)` and
`flip_rate_bound_from_counts(...)` one study at a time, with fresh seeds.
Run: python bench/bench_coverage.py [--studies 400] [--resamples 2000] [--items 10 20 30 50 80 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import beta as beta_distribution

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.metrics.pairwise_intervals import flip_rate_bound_from_counts
from judgebias_core.stats.clustered import clustered_rate, studentized_rate_bounds
from judgebias_core.stats.ppi import prediction_powered_mean
from judgebias_core.stats.resampling import draw_counts
from judgebias_core.stats.settings import FEW_EVENT_ITEMS, MIN_STUDENTIZED_ITEMS

Z = 1.959963984540054
RATES = (0.02, 0.05, 0.10, 0.20, 0.30)
CORRELATIONS = (0.02, 0.10, 0.30)
METHODS = ("wilson", "before", "decision")
LABELS = {"wilson": "Wilson (pairs independent)", "before": "before: percentile bootstrap",
          "decision": "decision: studentized bootstrap"}


def simulate(items: int, rate: float, rho: float, studies: int, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """events, trials (studies x items) of simulated studies, and each study's ideal (oracle) interval width."""
    concentration = 1 / rho - 1
    flip_p = rng.beta(rate * concentration, (1 - rate) * concentration, size=(studies, items))
    trials = rng.integers(5, 31, size=(studies, items)).astype(np.float64)
    events = rng.binomial(trials.astype(np.int64), flip_p).astype(np.float64)
    variance = (trials * rate * (1 - rate) * (1 + (trials - 1) * rho)).sum(axis=1) / trials.sum(axis=1) ** 2
    return events, trials, 2 * Z * np.sqrt(variance)


def wilson(events: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised Wilson score interval (the formula of stats.wilson.wilson_bounds)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        q = events / n
        denominator = 1 + Z**2 / n
        centre = (q + Z**2 / (2 * n)) / denominator
        half = Z * np.sqrt(q * (1 - q) / n + Z**2 / (4 * n**2)) / denominator
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def before_method(events: np.ndarray, trials: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The earlier decision interval: percentile item bootstrap from 20 items, Wilson on pairs / design effect
    below, Clopper-Pearson on the pairs (design effect 1) at zero or all events."""
    items = events.shape[1]
    total, n = events.sum(axis=1), trials.sum(axis=1)
    rate = total / n
    with np.errstate(invalid="ignore", divide="ignore"):
        robust = items / (items - 1) * ((events - rate[:, None] * trials) ** 2).sum(axis=1) / n**2
        deff = np.where(rate * (1 - rate) > 0, robust / (rate * (1 - rate) / n), 1.0)
    if items >= 20:
        drawn = (counts @ events.T) / (counts @ trials.T)
        low, high = np.quantile(drawn, [0.025, 0.975], axis=0)
    else:
        effective = n / np.maximum(deff, 1)
        low, high = wilson(rate * effective, effective)
    zero, every = total == 0, total == n
    low, high = np.where(zero, 0.0, low), np.where(zero, beta_distribution.ppf(0.975, 1, n), high)
    low, high = np.where(every, beta_distribution.ppf(0.025, n, 1), low), np.where(every, 1.0, high)
    return low, high


def decision_method(events: np.ndarray, trials: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The package's decision interval for every study: the vectorised studentized kernel where clustered_rate's
    rules use it, clustered_rate itself for the studies its rules send to an exact bound."""
    bounds = studentized_rate_bounds(events, trials, counts)
    low, high = np.clip(bounds.low, 0, 1), np.clip(bounds.high, 0, 1)
    event_items, non_event_items = (events > 0).sum(axis=1), (events < trials).sum(axis=1)
    usable = ((event_items >= FEW_EVENT_ITEMS) & (non_event_items >= FEW_EVENT_ITEMS)
              & np.isfinite(bounds.low) & np.isfinite(bounds.high) & (bounds.high > bounds.low))
    if events.shape[1] < MIN_STUDENTIZED_ITEMS:
        usable[:] = False
    for study in np.flatnonzero(~usable):
        exact = clustered_rate(events[study], trials[study])
        low[study], high[study] = exact.low, exact.high
    return low, high


def coverage_grid(item_counts: list[int], studies: int, resamples: int, seed: int) -> dict[str, np.ndarray]:
    """Per cell (items, rate, rho) and method: coverage, width / ideal, gate pass at threshold."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list[tuple[float, ...]]] = {method: [] for method in METHODS}
    header = (f"{'items':>5} {'rate':>5} {'rho':>5} | " + " | ".join(f"{LABELS[m][:30]:>30}" for m in METHODS))
    print(header)
    print(f"{'':>17} | " + " | ".join(f"{'cover  width/ideal  gate-pass':>30}" for _ in METHODS))
    for items in item_counts:
        counts = draw_counts(items, resamples, 0)  # the package's own draw (seed 0), shared by the studies
        for rate in RATES:
            for rho in CORRELATIONS:
                events, trials, ideal = simulate(items, rate, rho, studies, rng)
                intervals = {"wilson": wilson(events.sum(axis=1), trials.sum(axis=1)),
                             "before": before_method(events, trials, counts),
                             "decision": decision_method(events, trials, counts)}
                cells = []
                for method, (low, high) in intervals.items():
                    figures = (np.mean((low <= rate) & (rate <= high)), np.mean(high - low) / np.mean(ideal),
                               np.mean(high <= rate))
                    rows[method].append((items, rate, rho, *figures))
                    cells.append(f"{figures[0]:>6.3f} {figures[1]:>9.2f} {figures[2]:>10.1%}")
                print(f"{items:>5} {rate:>5.2f} {rho:>5.2f} | " + " | ".join(f"{c:>30}" for c in cells), flush=True)
    return {method: np.array(values) for method, values in rows.items()}


def summarise(table: dict[str, np.ndarray]) -> None:
    print("\nSummary per number of items (coverage mean / worst cell; gate pass at threshold, worst cell; "
          "width / ideal, worst cell with rate >= 0.1)")
    for method, values in table.items():
        print(f"  {LABELS[method]}: mean coverage over the grid {values[:, 3].mean():.3f}")
        for items in np.unique(values[:, 0]):
            cells = values[values[:, 0] == items]
            wide = cells[cells[:, 1] >= 0.1]
            print(f"    {int(items):>4} items: coverage {cells[:, 3].mean():.3f} / {cells[:, 3].min():.3f}, "
                  f"gate pass <= {cells[:, 5].max():.1%}, width <= {wide[:, 4].max():.2f} x ideal")
    decision = table["decision"]
    from_20 = decision[decision[:, 0] >= 20]
    checks = [
        ("coverage >= 0.90 in every cell from 30 items", bool(np.all(decision[decision[:, 0] >= 30][:, 3] >= 0.90))),
        ("coverage >= 0.85 in every cell at 20 items", bool(np.all(decision[decision[:, 0] == 20][:, 3] >= 0.85))),
        ("mean coverage >= 0.935 over the grid from 20 items", bool(from_20[:, 3].mean() >= 0.935)),
        ("gate passes <= 5% at threshold in every cell from 20 items", bool(np.all(from_20[:, 5] <= 0.05))),
        ("width <= 2 x ideal where rate >= 0.1, from 20 items", bool(np.all(from_20[from_20[:, 1] >= 0.1][:, 4] <= 2))),
    ]
    print("  Targets (decision interval):")
    for text, met in checks:
        print(f"    {'met' if met else 'NOT MET'}: {text}")


def held_out(studies: int, seed: int) -> None:
    """The public entry points, one study at a time, on fresh draws (seed differs from the grid's)."""
    rng = np.random.default_rng(seed)
    print(f"\nHeld-out check of the entry points ({studies} studies a cell, one call each):")
    for items, rate, rho in ((20, 0.1, 0.3), (30, 0.05, 0.1), (50, 0.2, 0.3), (80, 0.02, 0.1)):
        events, trials, _ = simulate(items, rate, rho, studies, rng)
        covered = passed = bound_passed = 0
        for study in range(studies):
            result = clustered_rate(events[study], trials[study])
            covered += result.low <= rate <= result.high
            passed += result.high <= rate
            bound_passed += flip_rate_bound_from_counts(events[study], trials[study]).upper <= rate
        print(f"  {items} items, rate {rate}, rho {rho}: clustered_rate covers {covered / studies:.3f}, upper <= "
              f"truth {passed / studies:.1%}; flip_rate_bound_from_counts upper <= truth {bound_passed / studies:.1%}")


def ppi_coverage(total: int, labelled: int, simulations: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    hits = {"ppi": 0, "ppi++": 0, "human-only": 0, "judge-only": 0}
    widths: dict[str, list[float]] = {name: [] for name in hits}
    truth = 0.5  # P(quality + noise > 0) with symmetric noise
    for _ in range(simulations):
        quality = rng.normal(0, 1, size=total)
        human = (quality + rng.normal(0, 1, size=total) > 0).astype(float)
        judge = (quality + 0.4 + rng.normal(0, 0.8, size=total) > 0).astype(float)  # leans to the candidate
        chosen = np.zeros(total, dtype=bool)
        chosen[rng.choice(total, size=labelled, replace=False)] = True
        for method in ("ppi", "ppi++"):
            result = prediction_powered_mean(human[chosen], judge[chosen], judge[~chosen], method=method)
            hits[method] += result.ppi.low <= truth <= result.ppi.high
            widths[method].append(result.ppi.high - result.ppi.low)
        for name, interval in (("human-only", result.human_only), ("judge-only", result.judge_only)):
            hits[name] += interval.low <= truth <= interval.high
            widths[name].append(interval.high - interval.low)
    print(f"\nPPI: {total} items, {labelled} human labels, a judge that leans to the candidate, {simulations} "
          "simulations")
    for name, count in hits.items():
        print(f"  {name:>10}: coverage {count / simulations:.1%}, mean width {np.mean(widths[name]):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--studies", type=int, default=400, help="simulated studies per cell (default 400)")
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    parser.add_argument("--items", type=int, nargs="+", default=[10, 20, 30, 50, 80, 200])
    parser.add_argument("--held-out", type=int, default=200, help="studies per held-out cell (0: skip)")
    parser.add_argument("--ppi-simulations", type=int, default=1000)
    args = parser.parse_args()
    start = time.perf_counter()
    table = coverage_grid(args.items, args.studies, args.resamples, seed=1)
    summarise(table)
    print(f"  grid: {time.perf_counter() - start:.1f} s for {args.studies} studies a cell")
    if args.held_out:
        held_out(args.held_out, seed=7)
    ppi_coverage(1400, 10, args.ppi_simulations, seed=4)
    ppi_coverage(1400, 140, args.ppi_simulations, seed=5)
    print(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
