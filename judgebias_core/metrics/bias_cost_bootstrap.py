"""Bias Cost with its uncertainty: when it is defined, item-bootstrap intervals, and how stable the choice is.

At k = 2 the two rows of P(p | s) each sum to 1, so both orderings get the same cost whatever the judge does:
Bias Cost cannot separate them and nothing is recommended. For k >= 3 the probe's items are resampled with all
their calls (the item, or cluster, bootstrap: Davison & Hinkley 1997, sec. 3.8); in each resample P(p | s) and every
candidate's cost are recomputed. Reported: a percentile interval on each cost and on its difference from the
recommended ordering, and the recommendation's stability, the share of resamples in which the recommended ordering
has the lowest cost (a tie for lowest among m orderings counts 1/m to each).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judgebias_core.metrics.bias_cost import OrderingCost, rank_by_bias_cost
from judgebias_core.metrics.rubric import ScorePositionTable
from judgebias_core.metrics.rubric_bootstrap import item_bootstrap_sums
from judgebias_core.stats.clustered import MIN_BOOTSTRAP_ITEMS
from judgebias_core.stats.settings import CONFIDENCE

INTERVAL_KIND = "item bootstrap (percentile; all calls of an item resampled together)"
_TIE = 1e-12
# The recommendation's own rule: an ordering is recommended only when it has the lowest cost in at least this share
# of the resamples; below it, another ordering is about as likely to be the best, and none is called better.
STABLE_SHARE = 0.5


@dataclass(frozen=True)
class CostInterval:
    """One candidate's cost and its difference from the recommended ordering, each with a bootstrap interval;
    ``lowest_share``: the share of resamples in which this ordering has the lowest cost."""

    ordering: tuple[int, ...]
    bias_cost: float
    low: float
    high: float
    difference: float
    difference_low: float
    difference_high: float
    lowest_share: float

    @property
    def contains_estimate(self) -> bool:
        """Whether the percentile interval holds the measured cost. A cost sums absolute gaps, which resampling
        inflates (every resample's noise adds to them), so a small cost can lie below all its resampled costs:
        the interval is then degenerate as bounds on the cost, and is named so wherever it is shown."""
        return self.low - _TIE <= self.bias_cost <= self.high + _TIE


@dataclass(frozen=True)
class BiasCostRanking:
    """Candidates ranked by Bias Cost under one probe, with the recommendation (None when undefined)."""

    k: int
    defined: bool
    reason: str | None
    ranking: tuple[OrderingCost, ...]
    intervals: tuple[CostInterval, ...]
    stability: float
    tied_lowest: int
    items: int
    resamples: int
    seed: int
    confidence: float = CONFIDENCE
    interval_kind: str = INTERVAL_KIND

    @property
    def recommended(self) -> OrderingCost | None:
        return self.ranking[0] if self.defined and self.ranking else None

    @property
    def stable(self) -> bool:
        """The lowest-cost ordering is lowest in at least ``STABLE_SHARE`` of the resamples: only then is it
        recommended (``recommended`` names the lowest-cost ordering whatever its stability)."""
        return self.recommended is not None and self.stability >= STABLE_SHARE

    @property
    def few_items(self) -> bool:
        """Fewer items than the clustered intervals' bootstrap threshold: the percentile interval may be narrow."""
        return self.items < MIN_BOOTSTRAP_ITEMS

    def interval_of(self, ordering: Sequence[int]) -> CostInterval | None:
        wanted = tuple(ordering)
        return next((i for i in self.intervals if i.ordering == wanted), None)


def _costs(probabilities: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """Costs (resamples x candidates) from P(p | s) per resample (resamples x k x k) and the candidates' score rows."""
    chosen_here = probabilities[:, rows, np.arange(k)]  # resamples x candidates x positions
    return np.abs(chosen_here - 1.0 / k).sum(axis=2)


def _lowest_shares(costs: np.ndarray) -> np.ndarray:
    """Per candidate, the share of resamples in which it has the lowest cost (ties split equally)."""
    lowest = costs <= costs.min(axis=1, keepdims=True) + _TIE
    return (lowest / lowest.sum(axis=1, keepdims=True)).mean(axis=0)


def bias_cost_ranking(table: ScorePositionTable, item_counts: np.ndarray, candidates: Sequence[Sequence[int]],
                      resamples: int, seed: int, confidence: float = CONFIDENCE) -> BiasCostRanking:
    """Rank ``candidates`` under the probe's P(p | s) (``table``), with the bootstrap over the probe's items.

    ``item_counts`` is items x k x k: each item's parsed choices of score s (row) at position p (column).
    """
    k, items = table.k, int(len(item_counts))
    parsed = items > 0 and int(item_counts.sum()) > 0
    # with nothing parsed there is no cost to list: every ordering would show 1.0 from nothing
    ranking = tuple(rank_by_bias_cost(table, candidates)) if parsed else ()
    tied = sum(1 for c in ranking if c.rank == 1)
    if k < 3:
        reason = (f"at k = {k} both rows of P(position | score) sum to 1, so every ordering has the same Bias Cost: "
                  "it cannot separate the orderings, and no ordering is recommended")
        return BiasCostRanking(k, False, reason, ranking, (), float("nan"), tied, items, resamples, seed, confidence)
    if not parsed:
        return BiasCostRanking(k, False, "the probe run has no parsed trial", (), (), float("nan"), 0, items,
                               resamples, seed, confidence)
    if (item_counts.reshape(items, k, k).sum(axis=2) > 0).sum(axis=1).max() <= 1:
        reason = ("the judge gave each item the same score whatever the ordering, so its scores show no position "
                  "effect for Bias Cost to correct, and no ordering is recommended")
        return BiasCostRanking(k, False, reason, ranking, (), float("nan"), tied, items, resamples, seed, confidence)
    drawn = item_bootstrap_sums(item_counts.reshape(items, k * k), resamples, seed).reshape(-1, k, k)
    totals = drawn.sum(axis=2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        probabilities = np.where(totals > 0, drawn / np.where(totals > 0, totals, 1), 0.0)
    rows = np.searchsorted(np.asarray(table.scores), np.asarray([c.ordering for c in ranking], dtype=int))
    costs = _costs(probabilities, rows, k)
    differences = costs - costs[:, :1]  # the recommended ordering is the first of the ranking
    tail = (1 - confidence) / 2
    cost_bounds = np.quantile(costs, [tail, 1 - tail], axis=0)
    difference_bounds = np.quantile(differences, [tail, 1 - tail], axis=0)
    shares = _lowest_shares(costs)
    best = ranking[0].bias_cost
    intervals = tuple(
        CostInterval(c.ordering, c.bias_cost, float(cost_bounds[0, i]), float(cost_bounds[1, i]), c.bias_cost - best,
                     float(difference_bounds[0, i]), float(difference_bounds[1, i]), float(shares[i]))
        for i, c in enumerate(ranking))
    tie_reason = (f"{tied} orderings share the lowest Bias Cost, so none is recommended (naming one would be a "
                  "tie-break, not a finding)") if tied > 1 else None
    return BiasCostRanking(k, tied == 1, tie_reason, ranking, intervals, float(shares[0]), tied, items, resamples, seed,
                           confidence)
