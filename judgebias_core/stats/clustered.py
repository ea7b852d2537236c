"""Item-clustered interval for a rate from per-item (events, trials) counts.

Pairs that share an item are not independent, so a rate's decision interval resamples whole items (the cluster, or
"block", bootstrap: Davison & Hinkley 1997, sec. 3.8 and 5.2; Field & Welsh 2007; Miller 2024, "Adding Error Bars to
Evals", arXiv 2411.00640, sec. 2.2). The interval is the **studentized** (bootstrap-t) one with the cluster-robust
(CR1) standard error of the ratio estimator: each resample's deviation from the estimate is divided by that
resample's own standard error, which corrects the skew a percentile interval misses at the 20-50 items a paid study
affords (bench/bench_coverage.py: from 30 items it covers at least 0.90 in every cell of the grid, the percentile
interval down to 0.72). Where it cannot be read (no events, only events, fewer than 10 items, fewer than 5 items with
any event or without one) the bound is Clopper-Pearson on an effective size that assumes the pairs of an item fully
correlated (Kish's design effect at intra-item correlation 1), unless a design effect is supplied. The Wilson interval
on the pairs themselves stays available, labelled as assuming independence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from judgebias_core.stats.estimate import Estimate, small_sample_warning
from judgebias_core.stats.resampling import MC_BAND_Z, draw_counts, item_resample_sums
from judgebias_core.stats.settings import (
    CONFIDENCE,
    FEW_EVENT_ITEMS,
    MIN_BOOTSTRAP_ITEMS,
    MIN_STUDENTIZED_ITEMS,
    RESAMPLES,
    SEED,
)
from judgebias_core.stats.wilson import wilson_bounds

__all__ = ["CONFIDENCE", "MIN_BOOTSTRAP_ITEMS", "RESAMPLES", "SEED", "ClusteredRate", "IidInterval",
           "clustered_rate", "design_effect", "item_resample_sums", "studentized_rate_bounds", "wilson_iid"]


ClusteredMethod = Literal["studentized-item-bootstrap", "exact-effective-items", "exact-zero-events",
                          "exact-all-events", "no-pairs"]


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
    (no pairs, no or only events, one item) and ``degenerate_reason`` says why in words a page can show; a fallback
    that is not degenerate (few items, few items with an event) says why in ``fallback_reason``.
    ``design_effect`` is the ratio of the cluster-robust to the iid variance of the rate (NaN when it cannot be
    estimated); ``effective_n`` is pairs / design effect as the interval used it. ``high_band`` is the Monte Carlo
    band of ``high`` (the range it would take over 99% of seeds; zero-width for an exact bound), what the gate
    reads to say "too close to call". ``warning`` is set when fewer than 30 items or fewer than 5 items with any
    event (or without one) carry the interval.
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
    high_band: tuple[float, float] = (float("nan"), float("nan"))
    fallback_reason: str | None = None
    warning: str | None = None
    resamples: int = 0
    seed: int | None = None

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def reason(self) -> str | None:
        return self.degenerate_reason or self.fallback_reason

    def as_estimate(self) -> Estimate:
        """The shared :class:`Estimate` view of this rate (units: the pairs)."""
        return Estimate(self.rate, self.low, self.high, self.method, self.reason, self.design_effect, self.items,
                        self.pairs, self.confidence, self.degenerate, self.warning)


@dataclass(frozen=True)
class StudentizedBounds:
    """Bootstrap-t bounds of S rates at once (arrays of length S), with the Monte Carlo band of each upper bound."""

    rate: np.ndarray
    standard_error: np.ndarray
    low: np.ndarray
    high: np.ndarray
    high_band_low: np.ndarray
    high_band_high: np.ndarray


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


def studentized_rate_bounds(events: np.ndarray, trials: np.ndarray, counts: np.ndarray,
                            confidence: float = CONFIDENCE) -> StudentizedBounds:
    """Bootstrap-t interval of S ratio rates (``events``, ``trials``: S x G per-item counts) from item draws
    ``counts`` (B x G, how often each item is drawn in each resample; :mod:`judgebias_core.stats.resampling`).

    t*_b = (p*_b - p) / se*_b with se the CR1 standard error sqrt(G/(G-1) sum_i (e_i - p n_i)^2) / N of the ratio
    estimator and se*_b the same on resample b (Davison & Hinkley 1997, sec. 5.2.1); the interval is
    [p - t*_(1-a/2) se, p - t*_(a/2) se]. A resample whose items all have the same rate has se* = 0: its t* is
    +-infinity (0 when it equals p), so a bound that needs it comes out infinite and the caller falls back.
    Vectorised over S so the coverage benchmark runs the same code on thousands of simulated studies.
    """
    events = np.atleast_2d(np.asarray(events, dtype=np.float64))
    trials = np.atleast_2d(np.asarray(trials, dtype=np.float64))
    n_items = events.shape[1]
    total_events, total_trials = events.sum(axis=1), trials.sum(axis=1)
    rate = total_events / total_trials
    cr1 = n_items / (n_items - 1)
    standard_error = np.sqrt(cr1 * ((events - rate[:, None] * trials) ** 2).sum(axis=1)) / total_trials
    drawn_events, drawn_trials = counts @ events.T, counts @ trials.T  # resamples x S
    squared_events, cross, squared_trials = counts @ (events**2).T, counts @ (events * trials).T, counts @ (trials**2).T
    drawn_rate = drawn_events / drawn_trials
    residual = squared_events - 2 * drawn_rate * cross + drawn_rate**2 * squared_trials
    # The expanded sum cancels to rounding error when every drawn item has the drawn rate: treat that as zero.
    scale = squared_events + drawn_rate**2 * squared_trials
    flat = residual <= 1e-10 * np.maximum(scale, 1e-300)
    drawn_se = np.sqrt(cr1 * np.where(flat, 1.0, residual)) / drawn_trials
    deviation = drawn_rate - rate
    with np.errstate(divide="ignore", invalid="ignore"):
        pivots = np.where(flat, np.where(np.abs(deviation) <= 1e-12, 0.0, np.sign(deviation) * np.inf),
                          deviation / drawn_se)
    pivots.sort(axis=0)
    resamples = len(pivots)
    tail = (1 - confidence) / 2
    lower_pivot, upper_pivot = _order_statistic(pivots, 1 - tail), _order_statistic(pivots, tail)
    band_half = MC_BAND_Z * np.sqrt(resamples * tail * (1 - tail))
    position = tail * (resamples - 1)
    band_low_index = int(max(0, np.floor(position - band_half)))
    band_high_index = int(min(resamples - 1, np.ceil(position + band_half)))
    with np.errstate(invalid="ignore"):
        low = rate - lower_pivot * standard_error
        high = rate - upper_pivot * standard_error
        band_low = rate - pivots[band_high_index] * standard_error
        band_high = rate - pivots[band_low_index] * standard_error
    return StudentizedBounds(rate, standard_error, low, high, band_low, band_high)


def _order_statistic(sorted_values: np.ndarray, quantile: float) -> np.ndarray:
    """np.quantile's linear rule on already sorted columns, without turning inf - inf into a finite number."""
    position = quantile * (len(sorted_values) - 1)
    below = int(np.floor(position))
    above = min(below + 1, len(sorted_values) - 1)
    fraction = position - below
    lower, upper = sorted_values[below], sorted_values[above]
    with np.errstate(invalid="ignore"):
        return np.where(lower == upper, lower, lower + fraction * (upper - lower))


def clustered_rate(events: np.ndarray, trials: np.ndarray, confidence: float = CONFIDENCE,
                   resamples: int = RESAMPLES, seed: int = SEED, min_bootstrap_items: int = MIN_STUDENTIZED_ITEMS,
                   event_word: str = "flips", assumed_design_effect: float | None = None) -> ClusteredRate:
    """The decision interval of sum(events) / sum(trials) over items i with ``events[i]`` of ``trials[i]``.

    Rules, in order: no pairs -> NaN, degenerate; zero (all) events -> [0, exact upper] ([exact lower, 1]),
    degenerate; fewer than ``min_bootstrap_items`` items, or fewer than 5 items with any event (or without one) ->
    Clopper-Pearson on the effective size; otherwise the studentized item bootstrap (its bound falls back to the
    exact one where a resample without variation makes it infinite). The effective size is pairs / ``
    assumed_design_effect`` when given, else pairs / m~ with m~ = sum n_i^2 / sum n_i, Kish's design effect at
    intra-item correlation 1 (every item counts as one observation when items are equal): without enough events the
    correlation cannot be estimated, so the bound assumes the worst. ``event_word`` names the events in reasons.
    """
    events_arr = np.asarray(events, dtype=np.float64)
    trials_arr = np.asarray(trials, dtype=np.float64)
    keep = trials_arr > 0
    events_arr, trials_arr = events_arr[keep], trials_arr[keep]
    # Events may be fractional (a win rate counts a tie as half a win): the rate keeps the exact sum.
    total_events, total_trials = float(events_arr.sum()), float(trials_arr.sum())
    n_events, n_pairs, n_items = int(round(total_events)), int(round(total_trials)), int(len(trials_arr))
    iid = wilson_iid(total_events, total_trials, confidence)
    deff = design_effect(events_arr, trials_arr)
    event_items, non_event_items = int(np.sum(events_arr > 0)), int(np.sum(events_arr < trials_arr))
    warning = small_sample_warning(n_items, event_items, non_event_items, event_word)
    if assumed_design_effect is not None:
        exact_n, assumption = total_trials / max(assumed_design_effect, 1.0), (
            f"the design effect you supplied ({assumed_design_effect:g})")
    elif n_items:
        exact_n = total_trials**2 / float(np.sum(trials_arr**2))
        assumption = ("the pairs of an item assumed fully correlated (each item counts as one observation; "
                      "supply a design effect to assume less)")
    else:
        exact_n, assumption = 0.0, ""
    over = f"in {n_pairs} pairs over {n_items} item{'s' if n_items != 1 else ''}"
    rate = total_events / total_trials if total_trials else float("nan")

    def result(low: float, high: float, method: ClusteredMethod, degenerate_reason: str | None = None,
               fallback_reason: str | None = None, n_eff: float = exact_n,
               band: tuple[float, float] | None = None, drawn: int = 0) -> ClusteredRate:
        return ClusteredRate(rate, low, high, method, degenerate_reason is not None, degenerate_reason, n_events,
                             n_pairs, n_items, deff, n_eff, confidence, iid, band or (high, high), fallback_reason,
                             warning, drawn, seed if drawn else None)

    if n_pairs == 0 and total_trials == 0:
        return result(float("nan"), float("nan"), "no-pairs", "no pairs", n_eff=0.0)
    exact_words = f"Clopper-Pearson on an effective size of {exact_n:.1f}, {assumption}"
    if total_events == 0:
        return result(0.0, _exact_upper(0.0, exact_n, confidence), "exact-zero-events",
                      f"no {event_word} {over}; the upper bound is {exact_words}")
    if total_events == total_trials:
        return result(_exact_lower(exact_n, exact_n, confidence), 1.0, "exact-all-events",
                      f"only {event_word} {over}; the lower bound is {exact_words}")
    few = _few_reason(n_items, event_items, non_event_items, min_bootstrap_items, event_word)
    if few is None:
        counts = draw_counts(n_items, resamples, seed)
        bounds = studentized_rate_bounds(events_arr[None, :], trials_arr[None, :], counts, confidence)
        low, high = float(bounds.low[0]), float(bounds.high[0])
        if np.isfinite(low) and np.isfinite(high) and high > low:
            band = (float(np.clip(bounds.high_band_low[0], 0.0, 1.0)), float(np.clip(bounds.high_band_high[0], 0.0, 1.0)))
            n_eff = total_trials / max(deff, 1.0) if np.isfinite(deff) else exact_n
            return result(max(low, 0.0), min(high, 1.0), "studentized-item-bootstrap", n_eff=n_eff, band=band,
                          drawn=resamples)
        few = (f"more than {(1 - confidence) / 2:.1%} of item resamples had no variation between items, so the "
               "studentized bound is unbounded")
    exact_rate_n = rate * exact_n
    return result(_exact_lower(exact_rate_n, exact_n, confidence), _exact_upper(exact_rate_n, exact_n, confidence),
                  "exact-effective-items", "one item: no between-item variation can be estimated" if n_items == 1
                  else None, fallback_reason=f"{few}; the interval is {exact_words}")


def _few_reason(n_items: int, event_items: int, non_event_items: int, min_items: int, event_word: str) -> str | None:
    if n_items < min_items:
        return f"{n_items} item{'s' if n_items != 1 else ''}, too few for an item bootstrap (fewer than {min_items})"
    if event_items < FEW_EVENT_ITEMS:
        return f"{event_words(event_items, event_word)} (fewer than {FEW_EVENT_ITEMS})"
    if non_event_items < FEW_EVENT_ITEMS:
        return (f"{non_event_items} item{'s' if non_event_items != 1 else ''} with a pair that is not one of the "
                f"{event_word} (fewer than {FEW_EVENT_ITEMS})")
    return None


def event_words(event_items: int, event_word: str) -> str:
    return f"{event_items} item{'s' if event_items != 1 else ''} with any {event_word}"


def _beta() -> Any:
    """scipy's beta distribution, imported only for the exact bounds (a CLI gate usually needs none)."""
    from scipy.stats import beta  # noqa: PLC0415 - on demand (start-up of a CLI gate)

    return beta


def _exact_upper(events: float, n: float, confidence: float) -> float:
    """Clopper-Pearson upper bound (one-sided 1 - alpha/2) of events of n, events and n possibly fractional."""
    if events >= n:
        return 1.0
    return float(_beta().ppf(1 - (1 - confidence) / 2, events + 1, n - events))


def _exact_lower(events: float, n: float, confidence: float) -> float:
    if events <= 0:
        return 0.0
    return float(_beta().ppf((1 - confidence) / 2, events, n - events + 1))
