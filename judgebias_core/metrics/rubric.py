"""Rubric position bias on trial frames (METHODS.md section 1): position shares, P(position | score), spread.

A trial frame has one row per judge call: ``item_id``, ``ordering_key`` (the scores in position order as shown,
'2,3,4,5,1'), ``score``, ``chosen_position`` (1-based) and ``parse_status``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from judgebias_core.errors import InvalidArgument
from judgebias_core.protocols.orderings import Ordering
from judgebias_core.stats.settings import CONFIDENCE


@dataclass(frozen=True)
class PositionShare:
    """Share of parsed trials choosing each position 1..k, with Wilson intervals; the no-bias line is 1/k."""

    k: int
    n: int
    counts: tuple[int, ...]
    shares: tuple[float, ...]
    ci_low: tuple[float, ...]
    ci_high: tuple[float, ...]
    confidence: float = CONFIDENCE

    @property
    def uniform(self) -> float:
        return 1.0 / self.k


@dataclass(frozen=True)
class ScorePositionTable:
    """P(position | score): row = score, column = position; a row is None when that score was never chosen."""

    scores: tuple[int, ...]
    counts: tuple[tuple[int, ...], ...]
    rows: tuple[tuple[float, ...] | None, ...]

    @property
    def k(self) -> int:
        return len(self.scores)

    def matrix(self) -> np.ndarray:
        """The k x k probabilities, NaN in the row of a score never chosen."""
        return np.array([row if row is not None else [np.nan] * self.k for row in self.rows], dtype=float)


@dataclass(frozen=True)
class WithinItemSpread:
    """Mean over items of the population standard deviation (ddof = 0) of each item's parsed scores in one run.

    ``calls_per_item_min`` / ``_max`` give the parsed calls behind each item's SD; an item with one parsed call
    has SD 0 (``single_call_items`` counts them).
    """

    mean_sd: float
    items: int
    trials: int
    calls_per_item_min: int = 0
    calls_per_item_max: int = 0
    single_call_items: int = 0
    ddof: int = 0

    def calls_text(self) -> str:
        """'10 calls per item' or '9 to 10 calls per item'."""
        low, high = self.calls_per_item_min, self.calls_per_item_max
        calls = f"{low}" if low == high else f"{low} to {high}"
        return f"{calls} call{'' if high == 1 else 's'} per item"

    def description(self) -> str:
        """The definition in words, with its counts."""
        text = (f"population standard deviation (ddof = {self.ddof}) over {self.calls_text()}, averaged over "
                f"{self.items:,} item{'' if self.items == 1 else 's'} ({self.trials:,} parsed calls)")
        if self.single_call_items:
            text += f"; {self.single_call_items:,} item(s) with one parsed call count as 0"
        return text


def parse_ordering_key(key: str) -> Ordering:
    """'2,3,4,5,1' -> (2, 3, 4, 5, 1)."""
    return tuple(int(part) for part in key.split(","))


def ordering_key(ordering: Sequence[int]) -> str:
    return ",".join(str(int(score)) for score in ordering)


def parsed_trials(trials: pd.DataFrame) -> pd.DataFrame:
    """Trials with a readable score shown at a known position."""
    mask = (trials["parse_status"] == "ok") & trials["score"].notna() & trials["chosen_position"].notna()
    return trials if mask.all() else trials.loc[mask]


def run_orderings(trials: pd.DataFrame) -> pd.DataFrame:
    """Distinct orderings of a run with their trial counts (all trials) and parsed counts, in first-seen order."""
    usable = parsed_trials(trials)
    counts = trials.groupby("ordering_key", sort=False).size().rename("trials")
    parsed = usable.groupby("ordering_key", sort=False).size().rename("parsed")
    frame = pd.concat([counts, parsed], axis=1).fillna({"parsed": 0}).astype({"parsed": int})
    return frame.reset_index()


def rubric_scores(orderings: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The score options shown, sorted; every ordering must show the same set."""
    if not orderings:
        raise InvalidArgument("no ordering stored with these trials")
    first = sorted(orderings[0])
    if any(sorted(ordering) != first for ordering in orderings):
        raise InvalidArgument("the trials show different sets of score options; analyse one rubric size at a time")
    return tuple(first)


def exposure_counts(orderings: Sequence[Sequence[int]], weights: Sequence[int] | None = None) -> np.ndarray:
    """How often each score (row, sorted) is shown at each position (column), weighting orderings by trials."""
    shown = np.asarray(orderings, dtype=int)
    scores = np.asarray(rubric_scores([tuple(o) for o in shown]))
    weight = np.ones(len(shown), dtype=int) if weights is None else np.asarray(weights, dtype=int)
    k = len(scores)
    rows = np.searchsorted(scores, shown)  # score index at every (ordering, position)
    cols = np.broadcast_to(np.arange(k), shown.shape)
    counts = np.zeros((k, k), dtype=int)
    np.add.at(counts, (rows.ravel(), cols.ravel()), np.repeat(weight, k))
    return counts


def position_share(trials: pd.DataFrame, k: int) -> PositionShare:
    """Share of parsed trials whose chosen position is p, p = 1..k, with Wilson intervals."""
    positions = parsed_trials(trials)["chosen_position"].to_numpy(dtype=int)
    counts = np.bincount(positions - 1, minlength=k)[:k]
    n = int(counts.sum())
    if n == 0:
        nan = tuple(float("nan") for _ in range(k))
        return PositionShare(k, 0, tuple(int(c) for c in counts), nan, nan, nan)
    low, high = proportion_confint(counts, n, alpha=1 - CONFIDENCE, method="wilson")
    return PositionShare(
        k=k, n=n, counts=tuple(int(c) for c in counts), shares=tuple(float(c) / n for c in counts),
        ci_low=tuple(float(v) for v in np.atleast_1d(low)), ci_high=tuple(float(v) for v in np.atleast_1d(high)),
    )


def score_position_table(trials: pd.DataFrame, scores: Sequence[int]) -> ScorePositionTable:
    """Among parsed trials where score s was chosen, the share chosen at each position."""
    options = sorted(int(s) for s in scores)
    k = len(options)
    counts = item_score_position_counts(trials, options).sum(axis=0, dtype=int).reshape(k, k)
    totals = counts.sum(axis=1)
    rows = tuple(
        tuple(float(c / total) for c in count_row) if total else None
        for count_row, total in zip(counts, totals, strict=True)
    )
    return ScorePositionTable(
        scores=tuple(options), counts=tuple(tuple(int(c) for c in r) for r in counts), rows=rows
    )


def item_score_position_counts(trials: pd.DataFrame, scores: Sequence[int]) -> np.ndarray:
    """Per item (sorted ids), the k x k counts of parsed trials choosing score s (row) at position p (column)."""
    usable = parsed_trials(trials)
    options = np.asarray(sorted(scores), dtype=int)
    k = len(options)
    chosen = usable["score"].to_numpy(dtype=int)
    row = np.searchsorted(options, chosen)
    known = (row < k) & (options[np.minimum(row, k - 1)] == chosen)
    _, item_index = np.unique(usable["item_id"].to_numpy(), return_inverse=True)
    counts = np.zeros((int(item_index.max()) + 1 if len(item_index) else 0, k, k), dtype=int)
    positions = usable["chosen_position"].to_numpy(dtype=int) - 1
    np.add.at(counts, (item_index[known], row[known], positions[known]), 1)
    return counts


def within_item_spread(trials: pd.DataFrame) -> WithinItemSpread:
    """Per item, the standard deviation of its parsed scores; the mean over items."""
    usable = parsed_trials(trials)
    grouped = usable.groupby("item_id")["score"]
    per_item = grouped.std(ddof=0)
    calls = grouped.size()
    return WithinItemSpread(
        mean_sd=float(per_item.mean()) if len(per_item) else float("nan"), items=int(len(per_item)),
        trials=int(len(usable)), calls_per_item_min=int(calls.min()) if len(calls) else 0,
        calls_per_item_max=int(calls.max()) if len(calls) else 0, single_call_items=int((calls == 1).sum()),
    )


def item_mean_scores(trials: pd.DataFrame) -> pd.Series:
    """Per item, the mean of its parsed scores."""
    return parsed_trials(trials).groupby("item_id")["score"].mean().astype(float)


def ordering_item_scores(trials: pd.DataFrame) -> pd.DataFrame:
    """Item x ordering table of mean parsed scores (one trial per cell in a permutation run)."""
    usable = parsed_trials(trials)
    return usable.groupby(["item_id", "ordering_key"], sort=False)["score"].mean().unstack("ordering_key")
