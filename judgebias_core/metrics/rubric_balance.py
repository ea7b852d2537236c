"""Balance of a rubric run on its parsed exposures, exposure-weighted position shares and their item-clustered tests.

A balanced set of orderings shows every score equally often at every position, but only the trials that parsed
carry a choice: parse failures concentrated in some orderings leave score and position confounded although the
design was balanced. Balance is therefore checked on the parsed exposures (how often each score was shown at each
position among parsed trials). When it fails but the orderings that kept parsed trials still form a balanced set,
every ordering is weighted to count equally, which restores balanced exposures; otherwise the shares stay
unweighted and the largest deviation of the exposures from balance says how far they are confounded.

The position tests are item-clustered (all calls of an item together): a cluster-robust t test of each position's
share against 1/k (the linearised ratio variance with the CR1 factor G/(G-1), t with G - 1 degrees of freedom;
Cameron & Miller 2015), corrected over the k positions by Holm (stats/multiple.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.stats import t as t_distribution

from judgebias_core.metrics.rubric import exposure_counts, parse_ordering_key, parsed_trials
from judgebias_core.protocols.orderings import is_balanced
from judgebias_core.stats.clustered import ClusteredRate, clustered_rate
from judgebias_core.stats.multiple import CorrectedTests, correct

Weighting = Literal["none", "orderings-equal", "not-possible"]


@dataclass(frozen=True)
class ExposureBalance:
    """How often each score (row, sorted) was shown at each position (column) among the parsed trials.

    ``max_deviation`` is the largest |exposure share - 1/k| over the cells, the exposure share being the fraction
    of parsed trials that showed score s at position p (a balanced run shows every score at every position in 1/k
    of them). ``weighting`` says what the position shares do about an imbalance.
    """

    scores: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]
    parsed: int
    design_balanced: bool
    balanced: bool
    max_deviation: float
    worst_score: int | None
    worst_position: int | None
    weighting: Weighting

    @property
    def worst_share(self) -> float | None:
        """The exposure share of the cell furthest from balance (None when balanced)."""
        if self.worst_score is None or self.worst_position is None or not self.parsed:
            return None
        return self.counts[self.scores.index(self.worst_score)][self.worst_position - 1] / self.parsed

    @property
    def k(self) -> int:
        return len(self.scores)


@dataclass(frozen=True)
class PositionTests:
    """Per position: the (weighted) share with its item-clustered interval, and the clustered test against 1/k."""

    k: int
    items: int
    shares: tuple[ClusteredRate, ...]
    t_statistics: tuple[float, ...]
    p_values: tuple[float, ...]
    corrected: CorrectedTests
    weighting: Weighting
    test_method: str = "cluster-robust t by item (CR1, G - 1 df)"

    def share(self, position: int) -> float:
        return self.shares[position - 1].rate


def exposure_balance(trials: pd.DataFrame, scores: tuple[int, ...]) -> ExposureBalance:
    """Balance of the run's orderings (the design) and of its parsed exposures, with the weighting that follows."""
    usable = parsed_trials(trials)
    all_keys = trials["ordering_key"].unique().tolist()
    design_balanced = is_balanced([parse_ordering_key(key) for key in all_keys])
    per_ordering = usable.groupby("ordering_key", sort=False).size()
    k = len(scores)
    if per_ordering.empty:
        empty = tuple(tuple(0 for _ in range(k)) for _ in range(k))
        return ExposureBalance(scores, empty, 0, design_balanced, False, float("nan"), None, None, "not-possible")
    kept = [parse_ordering_key(key) for key in per_ordering.index]
    counts = exposure_counts(kept, per_ordering.to_numpy(int))
    parsed = int(per_ordering.sum())
    deviation = np.abs(counts / parsed - 1.0 / k)
    worst = np.unravel_index(int(np.argmax(deviation)), deviation.shape)
    balanced = bool((counts == counts.flat[0]).all())
    weighting: Weighting = "none" if balanced else ("orderings-equal" if is_balanced(kept) else "not-possible")
    return ExposureBalance(
        scores=scores, counts=tuple(tuple(int(c) for c in row) for row in counts), parsed=parsed,
        design_balanced=design_balanced, balanced=balanced, max_deviation=float(deviation.max()),
        worst_score=int(scores[worst[0]]) if not balanced else None,
        worst_position=int(worst[1]) + 1 if not balanced else None, weighting=weighting,
    )


def trial_weights(trials: pd.DataFrame, weighting: Weighting) -> np.ndarray:
    """Weight of each parsed trial: 1, or (parsed / orderings) / parsed trials of its ordering so that every
    ordering counts equally; the weights sum to the number of parsed trials."""
    usable = parsed_trials(trials)
    if weighting != "orderings-equal":
        return np.ones(len(usable))
    per_ordering = usable.groupby("ordering_key", sort=False)["ordering_key"].transform("size").to_numpy(float)
    orderings = usable["ordering_key"].nunique()
    return (len(usable) / orderings) / per_ordering


def clustered_share_test(events: np.ndarray, trials: np.ndarray, null: float) -> tuple[float, float]:
    """Cluster-robust t statistic and two-sided p of sum(events) / sum(trials) = ``null`` over items.

    Variance: G/(G-1) * sum_i (e_i - p n_i)^2 / N^2, the same as statsmodels' WLS intercept with
    ``cov_type="cluster"``; t with G - 1 df. Zero variance: p = 1 when the share equals ``null``, else 0 (every
    item deviates alike). NaN with fewer than two items.
    """
    groups, total = len(trials), float(np.sum(trials))
    if groups < 2 or total <= 0:
        return float("nan"), float("nan")
    rate = float(np.sum(events)) / total
    variance = groups / (groups - 1) * float(np.sum((events - rate * trials) ** 2)) / total**2
    if variance <= 1e-24:
        return (0.0, 1.0) if abs(rate - null) < 1e-12 else (float("inf"), 0.0)
    statistic = (rate - null) / np.sqrt(variance)
    return float(statistic), float(2 * t_distribution.sf(abs(statistic), groups - 1))


def _position_interval(events: np.ndarray, trials: np.ndarray, resamples: int, seed: int) -> ClusteredRate:
    """``clustered_rate`` of one position's share; every position of a run draws the same items (one seed, one
    cached draw of the resampling engine), with all their calls."""
    return clustered_rate(events, trials, resamples=resamples, seed=seed, event_word="choices of this position")


def position_tests(trials: pd.DataFrame, k: int, weighting: Weighting, resamples: int, seed: int) -> PositionTests:
    """Per position, the share of (weighted) parsed choices, its item-clustered interval and its test vs 1/k."""
    usable = parsed_trials(trials)
    weights = trial_weights(trials, weighting)
    items, item_index = np.unique(usable["item_id"].to_numpy(), return_inverse=True)
    positions = usable["chosen_position"].to_numpy(dtype=int) - 1
    per_item = np.zeros((len(items), k))
    np.add.at(per_item, (item_index, positions), weights)
    item_trials = per_item.sum(axis=1)
    shares, statistics, p_values = [], [], []
    for position in range(k):
        shares.append(_position_interval(per_item[:, position], item_trials, resamples, seed))
        statistic, p = clustered_share_test(per_item[:, position], item_trials, 1.0 / k)
        statistics.append(statistic)
        p_values.append(p)
    labels = [f"position {p}" for p in range(1, k + 1)]
    return PositionTests(k=k, items=len(items), shares=tuple(shares), t_statistics=tuple(statistics),
                         p_values=tuple(p_values), corrected=correct(p_values, labels), weighting=weighting)
