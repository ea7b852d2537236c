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
        assert result.method != "item-bootstrap" and result.degenerate_reason
    assert result.iid.label == "pairs assumed independent"


@settings(max_examples=60, deadline=None)
@given(item_counts(min_items=2, max_items=30))
def test_width_shrinks_as_items_grow(counts: tuple[np.ndarray, np.ndarray]) -> None:
    events, trials = counts
    small = clustered_rate(events, trials, resamples=1000)
    large = clustered_rate(np.tile(events, 9), np.tile(trials, 9), resamples=1000)
    if small.method in {"exact-zero-events", "exact-all-events"}:
        assert large.method == small.method and large.high - large.low < small.high - small.low
    elif small.method != "wilson-effective-n" or small.degenerate_reason is None:
        assert large.width < small.width


def test_no_flips_are_reported_as_degenerate_with_the_exact_bound() -> None:
    result = clustered_rate(np.zeros(80, dtype=int), np.full(80, 30))
    assert result.method == "exact-zero-events" and result.degenerate
    assert result.degenerate_reason is not None and result.degenerate_reason.startswith("no flips in 2400 pairs over 80 items")
    assert result.low == 0 and result.high == pytest.approx(proportion_confint(0, 2400, alpha=0.05, method="beta")[1])
    everything = clustered_rate(np.full(3, 5), np.full(3, 5))
    assert everything.method == "exact-all-events" and everything.high == 1
    assert everything.low == pytest.approx(proportion_confint(15, 15, alpha=0.05, method="beta")[0])


def test_one_item_is_degenerate_and_counts_as_one_observation() -> None:
    result = clustered_rate(np.array([15]), np.array([30]))
    assert result.method == "single-item" and result.degenerate and result.effective_n == 1
    assert (result.low, result.high) == pytest.approx(proportion_confint(0.5, 1, alpha=0.05, method="wilson"))


def test_few_items_fall_back_to_wilson_on_the_effective_n() -> None:
    events, trials = np.array([1, 9, 2, 8, 0]), np.full(5, 10)
    result = clustered_rate(events, trials)
    deff = design_effect(events, trials)
    assert result.method == "wilson-effective-n" and not result.degenerate and deff > 1
    n_eff = 50 / deff
    assert result.effective_n == pytest.approx(n_eff)
    assert (result.low, result.high) == pytest.approx(proportion_confint(0.4 * n_eff, n_eff, alpha=0.05, method="wilson"))
    assert result.width > result.iid.high - result.iid.low


def test_equal_items_give_no_zero_width_bootstrap() -> None:
    result = clustered_rate(np.full(30, 3), np.full(30, 10))
    assert result.method == "wilson-effective-n" and result.degenerate and result.width > 0
    assert "same rate" in (result.degenerate_reason or "")


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


def test_interval_agrees_with_a_brute_force_item_bootstrap() -> None:
    rng = np.random.default_rng(11)
    trials = rng.integers(10, 30, size=25)
    events = rng.binomial(trials, rng.beta(1, 4, size=25))
    outcome, groups = _pair_level(events, trials)
    brute = []
    for _ in range(4000):
        drawn = rng.choice(25, size=25, replace=True)
        chosen = np.concatenate([outcome[groups == g] for g in drawn])
        brute.append(chosen.mean())
    low, high = np.quantile(brute, [0.025, 0.975])
    result = clustered_rate(events, trials, resamples=4000)
    assert result.method == "item-bootstrap" and not result.degenerate
    assert result.low == pytest.approx(low, abs=0.012) and result.high == pytest.approx(high, abs=0.012)


def test_bootstrap_is_seeded_and_blocked_draws_match_in_distribution() -> None:
    events, trials = np.arange(40) % 7, np.full(40, 10)
    assert clustered_rate(events, trials) == clustered_rate(events, trials)
    many = item_resample_sums(np.column_stack([np.arange(200_000) % 3, np.full(200_000, 2)]), resamples=30)
    assert many.shape == (30, 2) and np.all(many[:, 1] == 400_000)


def test_exact_bound_uses_an_assumed_design_effect_when_given() -> None:
    result = clustered_rate(np.zeros(10, dtype=int), np.full(10, 30), assumed_design_effect=3.0)
    assert result.effective_n == 100 and result.high == pytest.approx(beta.ppf(0.975, 1, 100))
