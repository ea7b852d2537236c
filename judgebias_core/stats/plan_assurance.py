"""The width a planned swap study meets with a stated assurance (80% by default), not only on average.

An expected width is met by roughly half of the studies that plan with it (``bench/bench_planner.py`` measures
it): the realised interval's width varies from study to study with the items drawn, and more so with few items,
a low flip rate and a high intra-item correlation. The assured width is the ``assurance`` quantile of the realised
width of the package's own decision interval (``stats.clustered``: the studentized item bootstrap, its exact
fallbacks where its rules send a study) over simulated studies of the planned design: G items of m pairs, item i
flipping with its own probability p_i ~ Beta with mean p and intra-item correlation rho = 1 / (a + b + 1)
(rho = (deff - 1) / (m - 1) from the design effect; the beta-binomial model of Kish's design effect). Seeded, so a
plan does not move between calls. Above ``SIMULATED_MAX_ITEMS`` items the quantile is analytic: the squared
standard error is a scaled chi-square with Satterthwaite's degrees of freedom nu = 2 sigma^4 / Var(S^2) (the
item means' fourth central moment from the beta-binomial), times Student's t with G - 1 degrees of freedom;
there the simulation and the approximation agree (the bench prints both).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import betabinom, binom, chi2
from scipy.stats import t as student_t

from judgebias_core.stats.clustered import clustered_rate, studentized_rate_bounds
from judgebias_core.stats.resampling import draw_counts
from judgebias_core.stats.settings import CONFIDENCE, FEW_EVENT_ITEMS, MIN_STUDENTIZED_ITEMS, SEED

ASSURANCE = 0.8  # "width met with 80% assurance"
SIMULATED_STUDIES = 600
SIMULATED_RESAMPLES = 400
SIMULATED_MAX_ITEMS = 600
MAX_PLANNED_ITEMS = 10_000_000


def icc_from_design_effect(design_effect: float, pairs_per_item: int) -> float:
    """rho = (deff - 1) / (m - 1), clipped to [0, 0.99]; 0 with one pair per item (nothing to correlate)."""
    if pairs_per_item < 2:
        return 0.0
    return float(min(max((design_effect - 1) / (pairs_per_item - 1), 0.0), 0.99))


def simulate_studies(items: int, pairs_per_item: int, flip_rate: float, icc: float, studies: int,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per-item flips and pairs (studies x items) of simulated studies of the planned design."""
    if icc > 0:
        concentration = 1 / icc - 1
        item_p = rng.beta(flip_rate * concentration, (1 - flip_rate) * concentration, size=(studies, items))
    else:
        item_p = np.full((studies, items), flip_rate)
    trials = np.full((studies, items), float(pairs_per_item))
    return rng.binomial(pairs_per_item, item_p).astype(np.float64), trials


def decision_widths(events: np.ndarray, trials: np.ndarray, resamples: int = SIMULATED_RESAMPLES,
                    seed: int = SEED, confidence: float = CONFIDENCE) -> np.ndarray:
    """The width of the decision interval of each study (rows), as ``clustered_rate`` would give it: the
    vectorised studentized kernel where its rules use it, ``clustered_rate`` itself for the exact fallbacks."""
    n_items = events.shape[1]
    bounds = studentized_rate_bounds(events, trials, draw_counts(n_items, resamples, seed), confidence)
    low, high = np.clip(bounds.low, 0, 1), np.clip(bounds.high, 0, 1)
    event_items, non_event_items = (events > 0).sum(axis=1), (events < trials).sum(axis=1)
    usable = ((event_items >= FEW_EVENT_ITEMS) & (non_event_items >= FEW_EVENT_ITEMS) & np.isfinite(bounds.low)
              & np.isfinite(bounds.high) & (bounds.high > bounds.low) & (n_items >= MIN_STUDENTIZED_ITEMS))
    for study in np.flatnonzero(~usable):
        exact = clustered_rate(events[study], trials[study], confidence, resamples=resamples, seed=seed)
        low[study], high[study] = exact.low, exact.high
    return np.asarray(high - low)


BINOMIAL_BELOW_ICC = 1e-6


def _item_mean_moments(pairs_per_item: int, flip_rate: float, icc: float) -> tuple[float, float]:
    """Second and fourth central moments of an item's flip share x / m under the beta-binomial."""
    x = np.arange(pairs_per_item + 1)
    # scipy's beta-binomial loses precision as the concentration grows (1e-10: pmf errors of 1e-5; 2.2e-16 gave a
    # variance of 8e-15 instead of 0.083); below 1e-6 it equals the binomial to about 1e-6, so use the binomial.
    if icc > BINOMIAL_BELOW_ICC:
        concentration = 1 / icc - 1
        pmf = betabinom.pmf(x, pairs_per_item, flip_rate * concentration, (1 - flip_rate) * concentration)
    else:
        pmf = binom.pmf(x, pairs_per_item, flip_rate)
    deviation = x / pairs_per_item - flip_rate
    return float(np.sum(pmf * deviation**2)), float(np.sum(pmf * deviation**4))


def analytic_assured_width(items: int, pairs_per_item: int, flip_rate: float, icc: float,
                           assurance: float = ASSURANCE, confidence: float = CONFIDENCE) -> float:
    """The ``assurance`` quantile of 2 t_(G-1) SE-hat with SE-hat^2 a Satterthwaite-scaled chi-square."""
    if items < 2:
        return 1.0
    mu2, mu4 = _item_mean_moments(pairs_per_item, flip_rate, icc)
    variance_of_s2 = mu4 / items - mu2**2 * (items - 3) / (items * (items - 1))
    nu = 2 * mu2**2 / variance_of_s2 if variance_of_s2 > 0 else float(items - 1)
    quantile = float(chi2.ppf(assurance, nu)) / nu
    t = float(student_t.ppf(0.5 + confidence / 2, items - 1))
    return 2 * t * math.sqrt(mu2 * quantile / items)


def assured_width(items: int, pairs_per_item: int, flip_rate: float, icc: float, assurance: float = ASSURANCE,
                  confidence: float = CONFIDENCE, studies: int = SIMULATED_STUDIES, seed: int = SEED) -> float:
    """The width the decision interval of a study of this design stays within with probability ``assurance``."""
    if items > SIMULATED_MAX_ITEMS:
        return analytic_assured_width(items, pairs_per_item, flip_rate, icc, assurance, confidence)
    rng = np.random.default_rng([seed, pairs_per_item])  # the same stream at every G: a smoother search
    events, trials = simulate_studies(items, pairs_per_item, flip_rate, icc, studies, rng)
    return float(np.quantile(decision_widths(events, trials, seed=seed, confidence=confidence), assurance))


def items_for_assured_width(target_width: float, pairs_per_item: int, flip_rate: float, icc: float,
                            start: int, assurance: float = ASSURANCE, confidence: float = CONFIDENCE,
                            seed: int = SEED) -> int | None:
    """The fewest items whose assured width is at most ``target_width`` (bisection from ``start``, the expected-width
    answer: more items are never needed to meet a width on average than to meet it with assurance); None beyond
    ``MAX_PLANNED_ITEMS``."""

    def meets(items: int) -> bool:
        return assured_width(items, pairs_per_item, flip_rate, icc, assurance, confidence, seed=seed) <= target_width

    low, high = max(1, start - 1), max(2, start)
    while not meets(high):
        low, high = high, high * 2
        if high > MAX_PLANNED_ITEMS:
            return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if meets(middle) else (middle, high)
    return high
