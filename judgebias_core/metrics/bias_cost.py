"""Bias Cost of rubric orderings from P(position | score) estimated on a probing run (METHODS.md section 1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.rubric import ScorePositionTable
from judgebias_core.protocols.orderings import Ordering, canonical


@dataclass(frozen=True)
class OrderingCost:
    """One candidate ordering and its Bias Cost; rank 1 = lowest cost (ties share the better rank)."""

    ordering: Ordering
    bias_cost: float
    rank: int
    canonical: bool


def bias_costs(table: ScorePositionTable, orderings: Sequence[Sequence[int]]) -> np.ndarray:
    """Cost(pi) = sum over p of |P(p | pi_p) - 1/k|; a score never chosen on the probe counts as P = 0."""
    shown = np.asarray(orderings, dtype=int)
    scores = np.asarray(table.scores)
    k = table.k
    if shown.ndim != 2 or shown.shape[1] != k:
        raise InvalidArgument(f"orderings must each list {k} scores, as the probe's rubric has")
    rows = np.searchsorted(scores, shown)
    if (rows >= k).any() or (scores[np.minimum(rows, k - 1)] != shown).any():
        raise InvalidArgument(f"an ordering shows a score outside the probe's options {list(scores)}")
    probabilities = np.nan_to_num(table.matrix(), nan=0.0)
    chosen_here = probabilities[rows, np.arange(k)]  # P(p | score shown at p), for every ordering and position
    return np.abs(chosen_here - 1.0 / k).sum(axis=1)


def rank_by_bias_cost(table: ScorePositionTable, candidates: Sequence[Sequence[int]]) -> list[OrderingCost]:
    """Candidates sorted from lowest to highest Bias Cost; the first one is the recommendation."""
    if not candidates:
        raise InvalidArgument("no candidate ordering to rank")
    costs = bias_costs(table, candidates)
    # Costs are sums of a few floats: round before ranking so equal costs computed in another order tie.
    rounded = np.round(costs, 12)
    ranks = 1 + (rounded[None, :] < rounded[:, None]).sum(axis=1)
    base = canonical(table.scores)
    ranked = [
        OrderingCost(tuple(int(s) for s in ordering), float(cost), int(rank), tuple(ordering) == base)
        for ordering, cost, rank in zip(candidates, costs, ranks, strict=True)
    ]
    return sorted(ranked, key=lambda item: (item.rank, item.ordering))
