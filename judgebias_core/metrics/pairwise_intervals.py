"""Intervals and tests behind the pairwise metrics: Wilson, item-clustered bootstrap, binomial, McNemar."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.resampling import item_resample_sums
from judgebias_core.stats.settings import CONFIDENCE, RESAMPLES, SEED, one_sided_level, percent
from judgebias_core.stats.wilson import wilson_bounds

BOOTSTRAP_RESAMPLES = RESAMPLES  # kept names: the defaults live in stats.settings
BOOTSTRAP_SEED = SEED


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def wilson_interval(successes: int, trials: int, confidence: float = CONFIDENCE) -> Interval:
    """Wilson score interval of successes / trials (NaN bounds when there are no trials)."""
    if trials <= 0:
        return Interval(float("nan"), float("nan"))
    low, high = wilson_bounds(successes, trials, alpha=1 - confidence)
    return Interval(low, high)


BoundRule = Literal["clustered", "wilson"]


@dataclass(frozen=True)
class FlipRateBound:
    """A flip rate with the upper bound a decision uses (the CI gate and the ranking-safety flag).

    ``rule`` "clustered" (the default) takes the item-clustered decision interval of
    :func:`judgebias_core.stats.clustered.clustered_rate`; "wilson" the Wilson interval on the pairs, which assumes
    them independent. Both upper bounds are kept; ``upper`` is the one the rule picks, ``method`` names it.
    """

    flips: int
    classified: int  # pairs not failed
    items: int  # items with a classified pair
    rate: float  # NaN when no pair is classified
    upper: float
    method: str  # "item-bootstrap", "wilson-effective-n", ... or "wilson-iid"
    rule: BoundRule
    clustered_upper: float
    wilson_upper: float  # pairs assumed independent
    design_effect: float
    degenerate_reason: str | None
    # The range ``upper`` would take over 99% of bootstrap seeds (zero-width for an exact or Wilson bound): a
    # threshold inside it is too close to call with this many resamples.
    upper_band: tuple[float, float] = (float("nan"), float("nan"))
    confidence: float = CONFIDENCE
    resamples: int = 0
    seed: int | None = None
    warning: str | None = None

    @property
    def one_sided_level(self) -> float:
        """The upper bound is the top of a two-sided ``confidence`` interval: one-sided 97.5% for 95%."""
        return one_sided_level(self.confidence)

    @property
    def level_words(self) -> str:
        return (f"one-sided {percent(self.one_sided_level)} upper bound (the top of the two-sided "
                f"{percent(self.confidence)} interval)")

    def decision(self, threshold: float) -> GateDecision:
        """pass when the whole Monte Carlo band of the bound is at most ``threshold``, fail when it is all above,
        otherwise too close to call (another seed could decide the other way)."""
        low, high = self.upper_band if all(np.isfinite(self.upper_band)) else (self.upper, self.upper)
        if high <= threshold:
            return "pass"
        if low > threshold:
            return "fail"
        return "too close to call"


GateDecision = Literal["pass", "fail", "too close to call"]


def flip_rate_bound_from_counts(flips_per_item: np.ndarray, classified_per_item: np.ndarray,
                                rule: BoundRule = "clustered", resamples: int = RESAMPLES,
                                seed: int = SEED) -> FlipRateBound:
    """Flips over classified pairs (per item: flips, classified pairs) and the upper bound ``rule`` picks (the top of
    the two-sided 95% interval, one-sided 97.5%)."""
    clustered = clustered_rate(np.asarray(flips_per_item), np.asarray(classified_per_item), resamples=resamples,
                               seed=seed)
    method: str
    if rule == "clustered":
        upper, method, band = clustered.high, clustered.method, clustered.high_band
    else:
        upper, method, band = clustered.iid.high, clustered.iid.method, (clustered.iid.high, clustered.iid.high)
    return FlipRateBound(flips=clustered.events, classified=clustered.pairs, items=clustered.items,
                         rate=clustered.rate, upper=float(upper), method=method, rule=rule,
                         clustered_upper=clustered.high, wilson_upper=clustered.iid.high,
                         design_effect=clustered.design_effect, degenerate_reason=clustered.degenerate_reason,
                         upper_band=(float(band[0]), float(band[1])), confidence=clustered.confidence,
                         resamples=clustered.resamples if rule == "clustered" else 0,
                         seed=clustered.seed if rule == "clustered" else None, warning=clustered.warning)


def item_bootstrap_rate(successes: np.ndarray, trials: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                        seed: int = BOOTSTRAP_SEED, confidence: float = CONFIDENCE) -> Interval:
    """Percentile interval of sum(successes) / sum(trials) when whole items (clusters) are resampled.

    ``successes[i]`` and ``trials[i]`` are the counts of item i; every resample draws as many items as there are.
    """
    successes = np.asarray(successes, dtype=np.float64)
    trials = np.asarray(trials, dtype=np.float64)
    if len(trials) == 0 or trials.sum() == 0:
        return Interval(float("nan"), float("nan"))
    drawn_successes, drawn_trials = item_resample_sums(np.column_stack([successes, trials]), resamples, seed).T
    return _percentile_rate(drawn_successes, drawn_trials, confidence)


def _percentile_rate(successes: np.ndarray, trials: np.ndarray, confidence: float) -> Interval:
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = successes / trials
    tail = (1 - confidence) / 2 * 100
    low, high = np.nanpercentile(rates, [tail, 100 - tail])
    return Interval(float(low), float(high))


def first_slot_test(primacy: int, recency: int, expected: float = 0.5) -> tuple[float, float]:
    """Share of inconsistent pairs that favour the first slot, and the exact binomial p-value against ``expected``."""
    n = primacy + recency
    if n == 0:
        return float("nan"), float("nan")
    from scipy.stats import binomtest  # noqa: PLC0415 - on demand: a CLI gate never tests the first slot

    return primacy / n, float(binomtest(primacy, n, expected).pvalue)


@dataclass(frozen=True)
class McNemarResult:
    statistic: float
    p_value: float
    wins_first_slot_only: int
    wins_second_slot_only: int


def mcnemar_slots(wins_both: int, wins_first_only: int, wins_second_only: int, wins_neither: int) -> McNemarResult:
    """Exact McNemar test: does a candidate win more often in the first slot than in the second?"""
    if wins_first_only + wins_second_only == 0:
        return McNemarResult(float("nan"), 1.0, wins_first_only, wins_second_only)
    from statsmodels.stats.contingency_tables import mcnemar  # noqa: PLC0415 - on demand: a gate needs none

    result = mcnemar([[wins_both, wins_first_only], [wins_second_only, wins_neither]], exact=True)
    return McNemarResult(float(result.statistic), float(result.pvalue), wins_first_only, wins_second_only)
