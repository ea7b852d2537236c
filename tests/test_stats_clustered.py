"""The item-clustered decision interval: properties, known answers, and agreement with a brute-force bootstrap."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta, multinomial
from statsmodels.stats.proportion import proportion_confint

from judgebias_core.stats.clustered import clustered_rate, design_effect, item_resample_sums, wilson_iid


@st.composite
def item_counts(draw: st.DrawFn, min_items: int = 1, max_items: int = 40) -> tuple[np.ndarray, np.ndarray]:
    n_items = draw(st.integers(min_items, max_items))
    trials = np.array(draw(st.lists(st.integers(1, 30), min_size=n_items, max_size=n_items)))
    shares = np.array(draw(st.lists(st.floats(0, 1), min_size=n_items, max_size=n_items)))
    return np.floor(shares * trials).astype(int), trials


def _pair_level(events: np.ndarray, trials: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    outcome = np.concatenate([np.r_[np.ones(e), np.zeros(t - e)] for e, t in zip(events, trials)])
    groups = np.repeat(np.arange(len(trials)), trials)
    return outcome, groups


@settings(max_examples=150, deadline=None)
@given(item_counts())
def test_interval_contains_the_estimate_and_is_zero_width_only_when_degenerate(counts: tuple[np.ndarray, np.ndarray]) -> None:
    events, trials = counts
    result = clustered_rate(events, trials, resamples=400)
    assert result.pairs == trials.sum() and result.items == len(trials) and result.events == events.sum()
    assert 0.0 <= result.low <= result.rate <= result.high <= 1.0
    if result.width == 0:
        assert result.degenerate and result.degenerate_reason
    if result.degenerate:
        assert result.method != "studentized-item-bootstrap" and result.degenerate_reason
    band_low, band_high = result.high_band
    assert band_low <= result.high + 1e-12 and result.high <= band_high + 1e-12
    assert result.iid.label == "pairs assumed independent"


@settings(max_examples=60, deadline=None)
@given(item_counts(min_items=2, max_items=30))
def test_width_shrinks_as_items_grow(counts: tuple[np.ndarray, np.ndarray]) -> None:
    events, trials = counts
    small = clustered_rate(events, trials, resamples=1000)
    large = clustered_rate(np.tile(events, 9), np.tile(trials, 9), resamples=1000)
    if small.method in {"exact-zero-events", "exact-all-events"}:
        assert large.method == small.method and large.high - large.low < small.high - small.low
    elif not small.degenerate:
        assert large.width < small.width


def test_no_flips_get_the_exact_bound_on_the_items_as_effective_size() -> None:
    result = clustered_rate(np.zeros(80, dtype=int), np.full(80, 30))
    assert result.method == "exact-zero-events" and result.degenerate
    reason = result.degenerate_reason or ""
    assert reason.startswith("no flips in 2400 pairs over 80 items") and "fully correlated" in reason
    # 80 equal items: the effective size is 80 (intra-item correlation 1), not the 2,400 pairs
    assert result.effective_n == pytest.approx(80)
    assert result.low == 0 and result.high == pytest.approx(proportion_confint(0, 80, alpha=0.05, method="beta")[1])
    everything = clustered_rate(np.full(3, 5), np.full(3, 5))
    assert everything.method == "exact-all-events" and everything.high == 1
    assert everything.low == pytest.approx(proportion_confint(3, 3, alpha=0.05, method="beta")[0])


def test_unequal_items_use_kish_size_weighted_effective_size() -> None:
    trials = np.array([5, 10, 30, 30])
    result = clustered_rate(np.zeros(4, dtype=int), trials)
    assert result.effective_n == pytest.approx(trials.sum() ** 2 / np.sum(trials**2))


def test_one_item_is_degenerate_and_counts_as_one_observation() -> None:
    result = clustered_rate(np.array([15]), np.array([30]))
    assert result.method == "exact-effective-items" and result.degenerate and result.effective_n == 1
    assert (result.low, result.high) == pytest.approx((beta.ppf(0.025, 0.5, 1.5), beta.ppf(0.975, 1.5, 0.5)))


def test_few_items_fall_back_to_the_exact_bound_on_the_items() -> None:
    events, trials = np.array([1, 9, 2, 8, 0]), np.full(5, 10)
    result = clustered_rate(events, trials)
    assert result.method == "exact-effective-items" and not result.degenerate
    assert "too few for an item bootstrap" in (result.fallback_reason or "") and result.warning
    assert result.effective_n == pytest.approx(5)
    assert (result.low, result.high) == pytest.approx(proportion_confint(2, 5, alpha=0.05, method="beta"))
    assert result.width > result.iid.high - result.iid.low


def test_few_items_with_any_event_fall_back_and_warn() -> None:
    events = np.r_[np.array([3, 1, 2, 4]), np.zeros(36, dtype=int)]
    result = clustered_rate(events, np.full(40, 10))
    assert result.method == "exact-effective-items" and "4 items with any flips" in (result.fallback_reason or "")
    assert result.warning is not None and "4 items with any flips" in result.warning
    assert result.high > result.rate > result.low


def test_equal_items_give_no_zero_width_bootstrap() -> None:
    result = clustered_rate(np.full(30, 3), np.full(30, 10))
    assert result.method == "exact-effective-items" and result.width > 0
    assert "no variation" in (result.fallback_reason or "")


def test_enough_items_use_the_studentized_bootstrap_without_warning() -> None:
    rng = np.random.default_rng(4)
    trials = rng.integers(5, 30, size=40)
    result = clustered_rate(rng.binomial(trials, rng.beta(2, 8, size=40)), trials)
    assert result.method == "studentized-item-bootstrap" and result.warning is None and result.reason is None
    estimate = result.as_estimate()
    assert (estimate.estimate, estimate.low, estimate.high, estimate.items, estimate.units) == (
        result.rate, result.low, result.high, 40, result.pairs)
    assert estimate.one_sided_level == pytest.approx(0.975)


def test_wilson_iid_is_statsmodels_wilson() -> None:
    assert (wilson_iid(444, 2400).low, wilson_iid(444, 2400).high) == pytest.approx(
        proportion_confint(444, 2400, alpha=0.05, method="wilson"))
    assert math.isnan(wilson_iid(0, 0).low)


def test_design_effect_is_cluster_robust_over_iid_variance_as_statsmodels_computes_it() -> None:
    rng = np.random.default_rng(3)
    trials = rng.integers(5, 40, size=50)
    events = rng.binomial(trials, rng.beta(2, 6, size=50))
    outcome, groups = _pair_level(events, trials)
    fit = sm.OLS(outcome, np.ones_like(outcome)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    rate = outcome.mean()
    assert design_effect(events, trials) == pytest.approx(fit.bse[0] ** 2 / (rate * (1 - rate) / len(outcome)))


def test_design_effect_matches_kish_for_beta_binomial_items() -> None:
    rng = np.random.default_rng(1)
    a, b, m = 2.0, 8.0, 30
    icc = 1 / (a + b + 1)
    events = rng.binomial(m, rng.beta(a, b, size=20_000))
    assert design_effect(events, np.full(20_000, m)) == pytest.approx(1 + (m - 1) * icc, rel=0.05)
    independent = rng.binomial(m, 0.2, size=20_000)
    assert design_effect(independent, np.full(20_000, m)) == pytest.approx(1.0, abs=0.05)


def test_resample_distribution_matches_the_exact_bootstrap_distribution() -> None:
    events, trials = np.array([0, 3, 1, 4]), np.array([2, 5, 3, 4])
    n = len(trials)
    exact: dict[float, float] = {}
    for composition in itertools.product(range(n + 1), repeat=n):
        if sum(composition) != n:
            continue
        counts = np.array(composition)
        rate = round(float(counts @ events / (counts @ trials)), 12)
        exact[rate] = exact.get(rate, 0.0) + float(multinomial.pmf(counts, n, np.full(n, 1 / n)))
    drawn = item_resample_sums(np.column_stack([events, trials]), resamples=40_000, seed=5)
    rates = np.round(drawn[:, 0] / drawn[:, 1], 12)
    support = np.array(sorted(exact))
    exact_cdf = np.cumsum([exact[r] for r in support])
    sampled_cdf = np.searchsorted(np.sort(rates), support, side="right") / len(rates)
    assert np.max(np.abs(exact_cdf - sampled_cdf)) < 0.01


def test_interval_agrees_with_a_brute_force_studentized_item_bootstrap() -> None:
    rng = np.random.default_rng(11)
    trials = rng.integers(10, 30, size=25)
    events = rng.binomial(trials, rng.beta(1, 4, size=25))
    outcome, groups = _pair_level(events, trials)

    def rate_and_cr1(chosen_items: np.ndarray) -> tuple[float, float]:
        # pair level: the drawn items' pairs, each drawn item its own cluster (statsmodels' CR1 of a mean)
        values = [outcome[groups == g] for g in chosen_items]
        pooled = np.concatenate(values)
        rate = pooled.mean()
        sums = np.array([v.sum() - rate * len(v) for v in values])
        g = len(values)
        return rate, float(np.sqrt(g / (g - 1) * np.sum(sums**2)) / len(pooled))

    rate, se = rate_and_cr1(np.arange(25))
    fit = sm.OLS(outcome, np.ones_like(outcome)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert se == pytest.approx(fit.bse[0])
    pivots = []
    for _ in range(3000):
        drawn_rate, drawn_se = rate_and_cr1(rng.choice(25, size=25, replace=True))
        pivots.append((drawn_rate - rate) / drawn_se)
    low, high = rate - np.quantile(pivots, 0.975) * se, rate - np.quantile(pivots, 0.025) * se
    result = clustered_rate(events, trials, resamples=4000)
    assert result.method == "studentized-item-bootstrap" and not result.degenerate
    assert result.low == pytest.approx(low, abs=0.012) and result.high == pytest.approx(high, abs=0.012)


def test_monte_carlo_band_narrows_with_more_resamples() -> None:
    rng = np.random.default_rng(8)
    trials = rng.integers(5, 30, size=60)
    events = rng.binomial(trials, rng.beta(2, 8, size=60))
    few, many = clustered_rate(events, trials, resamples=1000), clustered_rate(events, trials, resamples=16000)
    assert few.high_band[0] <= few.high <= few.high_band[1] and many.high_band[0] <= many.high <= many.high_band[1]
    assert many.high_band[1] - many.high_band[0] < (few.high_band[1] - few.high_band[0]) / 2
    others = [clustered_rate(events, trials, resamples=16000, seed=seed).high for seed in range(1, 6)]
    assert all(many.high_band[0] - 1e-3 <= other <= many.high_band[1] + 1e-3 for other in others)


def test_bootstrap_is_seeded_and_blocked_draws_match_in_distribution() -> None:
    events, trials = np.arange(40) % 7, np.full(40, 10)
    assert clustered_rate(events, trials) == clustered_rate(events, trials)
    many = item_resample_sums(np.column_stack([np.arange(200_000) % 3, np.full(200_000, 2)]), resamples=30)
    assert many.shape == (30, 2) and np.all(many[:, 1] == 400_000)


def test_exact_bound_uses_an_assumed_design_effect_when_given() -> None:
    result = clustered_rate(np.zeros(10, dtype=int), np.full(10, 30), assumed_design_effect=3.0)
    assert result.effective_n == 100 and result.high == pytest.approx(beta.ppf(0.975, 1, 100))
