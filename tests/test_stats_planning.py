"""Swap-study planning: known formulas and a simulation of the clustered interval it predicts."""

from __future__ import annotations

import numpy as np
import pytest

from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.planning import estimate_design, plan_from_earlier_run, plan_swap_study


def _simulated_widths(items: int, pairs: int, a: float, b: float, runs: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    widths = [clustered_rate(rng.binomial(pairs, rng.beta(a, b, size=items)), np.full(items, pairs),
                             resamples=500).width for _ in range(runs)]
    return float(np.mean(widths))


def test_expected_width_by_hand() -> None:
    plan = plan_swap_study(80, 30, 0.2, design_effect=2.0)
    assert plan.expected_width == pytest.approx(2 * 1.959964 * np.sqrt(0.2 * 0.8 * 2 / 2400), rel=1e-5)
    assert plan.effective_n == 1200 and plan.items_needed is None and plan.note is None
    assert plan_swap_study(80, 30, 0.2, icc=1 / 29).design_effect == pytest.approx(2.0)


def test_items_needed_reach_the_target_width() -> None:
    plan = plan_swap_study(80, 30, 0.2, icc=0.05, target_width=0.03)
    assert plan.items_needed is not None
    at_needed = plan_swap_study(plan.items_needed, 30, 0.2, icc=0.05)
    one_fewer = plan_swap_study(plan.items_needed - 1, 30, 0.2, icc=0.05)
    assert at_needed.expected_width <= 0.03 < one_fewer.expected_width


@pytest.mark.parametrize(("items", "a", "b"), [(80, 1.0, 4.0), (40, 3.65, 16.05)])
def test_planned_width_matches_a_simulation(items: int, a: float, b: float) -> None:
    plan = plan_swap_study(items, 30, a / (a + b), icc=1 / (a + b + 1))
    assert _simulated_widths(items, 30, a, b, runs=150, seed=items) == pytest.approx(plan.expected_width, rel=0.1)


def test_plan_from_an_earlier_run_rescales_to_new_pairs_per_item() -> None:
    rng = np.random.default_rng(5)
    a, b = 2.0, 8.0
    events = rng.binomial(30, rng.beta(a, b, size=4000))
    design = estimate_design(events, np.full(4000, 30))
    assert design.icc == pytest.approx(1 / (a + b + 1), rel=0.1)
    plan = plan_from_earlier_run(events, np.full(4000, 30), items=100, pairs_per_item=10)
    assert plan.design_effect == pytest.approx(1 + 9 / (a + b + 1), rel=0.05)
    assert _simulated_widths(100, 10, a, b, runs=150, seed=6) == pytest.approx(plan.expected_width, rel=0.1)


def test_bad_plans_are_errors_and_small_plans_are_noted() -> None:
    with pytest.raises(ValueError):
        plan_swap_study(80, 30, 0.2)
    with pytest.raises(ValueError):
        plan_swap_study(80, 30, 0.0, design_effect=1.0)
    assert plan_swap_study(8, 30, 0.2, design_effect=2.0).note is not None
