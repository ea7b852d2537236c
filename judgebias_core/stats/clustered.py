"""Item-clustered interval for a rate from per-item (events, trials) counts.

Pairs that share an item are not independent, so a rate's decision interval resamples whole items (the cluster, or
"block", bootstrap: Davison & Hinkley 1997, sec. 3.8; Field & Welsh 2007; Miller 2024, "Adding Error Bars to Evals",
arXiv 2411.00640, sec. 2.2). Where items are too few for a bootstrap the interval falls back to Wilson on the
design-effect-adjusted effective sample size (Kish 1965, sec. 8.2), and with no events (or only events) to the exact
Clopper-Pearson bound. The Wilson interval on the pairs themselves stays available, labelled as assuming independence.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np

from judgebias_core.stats.wilson import wilson_bounds

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 0
# Below this many items the percentile bootstrap under-covers (Cameron, Gelbach & Miller 2008 find cluster-robust
# inference unreliable below roughly 20-50 clusters), so the interval falls back to Wilson on the effective n.
MIN_BOOTSTRAP_ITEMS = 20
# Resamples x items above which the draw is made in blocks, to bound memory.
_MAX_BLOCK_CELLS = 4_000_000

ClusteredMethod = Literal["item-bootstrap", "wilson-effective-n", "exact-zero-events", "exact-all-events",
                          "single-item", "no-pairs"]


@dataclass(frozen=True)
class IidInterval:
    """Wilson score interval on the pairs, treating them as independent (the figure shown beside the decision one)."""

    low: float
    high: float
    method: str = "wilson-iid"
    label: str = "pairs assumed independent"


@dataclass(frozen=True)
class ClusteredRate:
    """A rate events / pairs with its item-clustered interval and how that interval was obtained.

    ``method`` names the interval; ``degenerate`` is True when no proper two-sided interval could be estimated
    (no pairs, no or only events, one item) and ``degenerate_reason`` says why in words a page can show.
    ``design_effect`` is the ratio of the cluster-robust to the iid variance of the rate (NaN when it cannot be
    estimated); ``effective_n`` = pairs / max(design_effect, 1) is what the fallback intervals use.
    """

    rate: float
    low: float
    high: float
    method: ClusteredMethod
    degenerate: bool
    degenerate_reason: str | None
    events: int
    pairs: int
    items: int
    design_effect: float
    effective_n: float
    confidence: float
    iid: IidInterval

    @property
    def width(self) -> float:
        return self.high - self.low


def item_resample_sums(columns: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Per bootstrap resample, the column sums over items drawn with replacement (resamples x columns).

    ``columns`` is items x k (e.g. events and trials per item). Each resample draws as many items as there are;
    the draw is a multinomial count per item, so the sums are exact for integer counts.
    """
    columns = np.asarray(columns, dtype=np.float64)
    if columns.ndim == 1:
        columns = columns[:, None]
    n_items = len(columns)
    if n_items * resamples <= _MAX_BLOCK_CELLS:
        return _resample_counts(n_items, resamples, seed) @ columns
    return np.concatenate([counts @ columns for counts in _count_blocks(n_items, resamples, seed)])


def _count_blocks(n_items: int, resamples: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    uniform = np.full(n_items, 1.0 / n_items)
    block = max(1, _MAX_BLOCK_CELLS // max(n_items, 1))
    return [rng.multinomial(n_items, uniform, size=min(block, resamples - start)).astype(np.float64)
            for start in range(0, resamples, block)]


@lru_cache(maxsize=2)
def _resample_counts(n_items: int, resamples: int, seed: int) -> np.ndarray:
    """The draw counts (resamples x items) of one seed: the flip rate, the first-slot share, the position test and
    the excess of one row resample the same items, so the draw is made once (read-only, at most two kept)."""
    (counts,) = _count_blocks(n_items, resamples, seed)
    counts.flags.writeable = False
    return counts


def wilson_iid(events: float, pairs: float, confidence: float = CONFIDENCE) -> IidInterval:
    """Wilson score interval of events / pairs (statsmodels ``proportion_confint(method="wilson")``)."""
    if pairs <= 0:
        return IidInterval(float("nan"), float("nan"))
    low, high = wilson_bounds(events, pairs, alpha=1 - confidence)
    return IidInterval(low, high)


def design_effect(events: np.ndarray, trials: np.ndarray) -> float:
    """Cluster-robust over iid variance of the ratio estimator sum(events) / sum(trials).

    The cluster-robust variance is the linearised (Taylor) variance of a ratio estimator, G/(G-1) *
    sum_i (e_i - p n_i)^2 / N^2 (Cochran 1977, sec. 6.3; the CR1 small-sample factor of Cameron & Miller 2015);
    the iid variance is p(1-p)/N. Equals Kish's 1 + (m - 1) ICC in expectation for equal cluster sizes m.
    NaN when it is undefined (fewer than two items, or p in {0, 1}).
    """
    events = np.asarray(events, dtype=np.float64)
    trials = np.asarray(trials, dtype=np.float64)
    n_items, total = len(trials), float(trials.sum())
    if n_items < 2 or total <= 0:
        return float("nan")
    rate = float(events.sum()) / total
    iid_variance = rate * (1 - rate) / total
    if iid_variance <= 0:
        return float("nan")
    robust_variance = n_items / (n_items - 1) * float(np.sum((events - rate * trials) ** 2)) / total**2
    return robust_variance / iid_variance


def clustered_rate(events: np.ndarray, trials: np.ndarray, confidence: float = CONFIDENCE,
                   resamples: int = RESAMPLES, seed: int = SEED, min_bootstrap_items: int = MIN_BOOTSTRAP_ITEMS,
                   event_word: str = "flips", assumed_design_effect: float = 1.0) -> ClusteredRate:
    """The decision interval of sum(events) / sum(trials) over items i with ``events[i]`` of ``trials[i]``.

    Rules, in order: no pairs -> NaN, degenerate; zero (all) events -> [0, exact upper] ([exact lower, 1]),
    Clopper-Pearson at one-sided level 1 - alpha/2 on pairs / ``assumed_design_effect`` (no design effect can be
    estimated without variation), degenerate; one item -> Wilson on an effective n of 1 (intra-item correlation
    assumed 1), degenerate; fewer than ``min_bootstrap_items`` items -> Wilson on the effective n; otherwise the
    item bootstrap percentile interval. A bootstrap that comes out zero-width (every item has the same rate and
    size) falls back to Wilson on the effective n and says so. ``event_word`` names the events in reasons.
    """
    events_arr = np.asarray(events, dtype=np.float64)
    trials_arr = np.asarray(trials, dtype=np.float64)
    keep = trials_arr > 0
    events_arr, trials_arr = events_arr[keep], trials_arr[keep]
    # Events may be fractional (a win rate counts a tie as half a win): the rate keeps the exact sum.
    total_events = float(events_arr.sum())
    n_events, n_pairs, n_items = int(round(total_events)), int(round(trials_arr.sum())), int(len(trials_arr))
    iid = wilson_iid(total_events, n_pairs, confidence)
    deff = design_effect(events_arr, trials_arr)
    effective_n = n_pairs / max(deff, 1.0) if np.isfinite(deff) else n_pairs / max(assumed_design_effect, 1.0)

    def result(low: float, high: float, method: ClusteredMethod, reason: str | None,
               n_eff: float = effective_n) -> ClusteredRate:
        rate = total_events / n_pairs if n_pairs else float("nan")
        return ClusteredRate(rate, low, high, method, reason is not None, reason, n_events, n_pairs, n_items,
                             deff, n_eff, confidence, iid)

    over = f"in {n_pairs} pairs over {n_items} item{'s' if n_items != 1 else ''}"
    if n_pairs == 0:
        return result(float("nan"), float("nan"), "no-pairs", "no pairs", 0.0)
    alpha_tail = (1 - confidence) / 2
    if total_events == 0:
        return result(0.0, float(_beta().ppf(1 - alpha_tail, 1, effective_n)), "exact-zero-events",
                      f"no {event_word} {over}; the upper bound is the exact (Clopper-Pearson) bound")
    if total_events == n_pairs:
        return result(float(_beta().ppf(alpha_tail, effective_n, 1)), 1.0, "exact-all-events",
                      f"only {event_word} {over}; the lower bound is the exact (Clopper-Pearson) bound")
    if n_items == 1:
        low, high = _wilson_on_effective_n(total_events / n_pairs, 1.0, confidence)
        return result(low, high, "single-item",
                      f"one item: no between-item variation can be estimated, so its {n_pairs} pairs count as "
                      "one independent observation", 1.0)
    if n_items < min_bootstrap_items:
        low, high = _wilson_on_effective_n(total_events / n_pairs, effective_n, confidence)
        return result(low, high, "wilson-effective-n", None)
    drawn = item_resample_sums(np.column_stack([events_arr, trials_arr]), resamples, seed)
    low, high = np.quantile(drawn[:, 0] / drawn[:, 1], [alpha_tail, 1 - alpha_tail])
    if high <= low:
        low, high = _wilson_on_effective_n(total_events / n_pairs, effective_n, confidence)
        return result(low, high, "wilson-effective-n",
                      f"every item resample gave the same rate ({n_items} items with equal rates and sizes)")
    return result(float(low), float(high), "item-bootstrap", None)


def _beta() -> Any:
    """scipy's beta distribution, imported only for the exact bounds (a CLI gate usually needs none)."""
    from scipy.stats import beta  # noqa: PLC0415 - on demand (start-up of a CLI gate)

    return beta


def _wilson_on_effective_n(rate: float, effective_n: float, confidence: float) -> tuple[float, float]:
    return wilson_bounds(rate * effective_n, effective_n, alpha=1 - confidence)
