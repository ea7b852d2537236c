"""Paired item-clustered difference of two rates, against statsmodels' cluster-robust regression."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from judgebias_core.stats.paired import ItemCounts, excess_over_floor, rate_difference


def _two_judges(n_items: int, seed: int) -> tuple[ItemCounts, ItemCounts, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    trials = rng.integers(5, 30, size=n_items)
    groups = np.repeat(np.arange(n_items), trials)
    hardness = rng.beta(1, 4, size=n_items)[groups]
    flips_a = rng.random(len(groups)) < hardness
    flips_b = rng.random(len(groups)) < np.clip(hardness * 0.7, 0, 1)
    ids = [f"q{i}" for i in range(n_items)]
    a = ItemCounts.of(ids, np.bincount(groups, flips_a), trials)
    b = ItemCounts.of(ids, np.bincount(groups, flips_b), trials)
    return a, b, (flips_a.astype(float) - flips_b.astype(float)), groups


@pytest.mark.parametrize("n_items", [8, 60])
def test_test_is_statsmodels_cluster_robust_t_on_the_pair_differences(n_items: int) -> None:
    a, b, differences, groups = _two_judges(n_items, seed=n_items)
    fit = sm.OLS(differences, np.ones_like(differences)).fit(cov_type="cluster", cov_kwds={"groups": groups},
                                                             use_t=True)
    result = rate_difference(a, b)
    assert result.difference == pytest.approx(fit.params[0])
    assert result.p_value == pytest.approx(fit.pvalues[0])
    assert result.items == n_items and not result.degenerate
    assert result.low < result.difference < result.high
    # the cluster-robust t interval at every size (issue 23: the paired percentile bootstrap under-covered)
    assert result.method == "cluster-robust-t"
    assert (result.low, result.high) == pytest.approx(tuple(fit.conf_int()[0]))


def test_pairing_removes_what_the_judges_share() -> None:
    a, b, _, _ = _two_judges(80, seed=2)
    paired = rate_difference(a, b)
    shuffled = ItemCounts.of(b.item_ids[1:] + b.item_ids[:1], b.events, b.trials)
    unpaired = rate_difference(a, shuffled)
    assert paired.high - paired.low < unpaired.high - unpaired.low


def test_identical_judges_are_degenerate_not_a_zero_width_interval() -> None:
    a, _, _, _ = _two_judges(30, seed=3)
    result = rate_difference(a, a)
    assert result.difference == 0 and result.degenerate and result.degenerate_reason
    assert np.isnan(result.p_value)


def test_excess_over_floor_on_different_items() -> None:
    flips = ItemCounts.of([f"q{i}" for i in range(40)], [6] * 20 + [2] * 20, [20] * 40)
    floor = ItemCounts.of([f"r{i}" for i in range(25)], [1] * 10 + [0] * 15, [6] * 25)
    result = excess_over_floor(flips, floor)
    assert result.rate_a == pytest.approx(160 / 800) and result.rate_b == pytest.approx(10 / 150)
    assert result.items == 65 and result.method == "cluster-robust-t"
    assert result.low < result.difference < result.high and result.p_value < 0.05


def test_item_counts_reject_duplicates() -> None:
    with pytest.raises(ValueError):
        ItemCounts.of(["q1", "q1"], [1, 2], [3, 4])
