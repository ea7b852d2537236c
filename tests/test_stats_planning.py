"""Swap-study planning: known formulas and a simulation of the clustered interval it predicts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.plan_assurance import (
    SIMULATED_MAX_ITEMS,
    analytic_assured_width,
    assured_width,
    decision_widths,
    icc_from_design_effect,
    simulate_studies,
)
from judgebias_core.stats.planning import (
    WidthMode,
    estimate_design,
    plan_from_earlier_run,
    plan_swap_study,
    width_mode_words,
)


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


@settings(max_examples=60, deadline=None)
@given(st.floats(0.01, 0.6), st.floats(0.0, 0.5), st.integers(1, 40), st.integers(SIMULATED_MAX_ITEMS, 100_000))
@example(0.5, 2.220446049250313e-16, 3, SIMULATED_MAX_ITEMS)  # a near-zero correlation broke scipy's beta-binomial
def test_the_analytic_assured_width_exceeds_the_expected_width(rate: float, rho: float, pairs: int,
                                                               items: int) -> None:
    """Where the planner uses the approximation (beyond the simulated sizes) it promises more than the mean."""
    icc = icc_from_design_effect(1 + (pairs - 1) * rho, pairs)
    expected = plan_swap_study(items, pairs, rate, icc=icc).expected_width
    assert analytic_assured_width(items, pairs, rate, icc) > expected


def test_assurance_mode_plans_more_items_and_says_so() -> None:
    expected = plan_swap_study(40, 10, 0.1, icc=0.1, target_width=0.06)
    assured = plan_swap_study(40, 10, 0.1, icc=0.1, target_width=0.06, width_mode="assurance")
    assert (expected.width_mode, assured.width_mode) == ("expected", "assurance")
    assert expected.planned_width == expected.expected_width and assured.planned_width == assured.assured_width
    assert assured.assured_width > assured.expected_width == expected.expected_width
    assert expected.items_needed is not None and assured.items_needed is not None
    assert assured.items_needed > expected.items_needed
    assert assured_width(assured.items_needed, 10, 0.1, 0.1) <= 0.06
    assert width_mode_words("assurance") == "width met with 80% assurance"


@pytest.mark.parametrize(("mode", "low", "high"), [("expected", 0.25, 0.62), ("assurance", 0.72, 0.88)])
def test_planned_studies_meet_the_promised_width(mode: WidthMode, low: float, high: float) -> None:
    """Fresh studies (seeds unlike the planner's) of the items planned: about half meet the expected width, about
    80% the assured one (bench/bench_planner.py runs the grid)."""
    rate, rho, pairs, target = 0.1, 0.1, 10, 0.07
    plan = plan_swap_study(10, pairs, rate, icc=rho, target_width=target, width_mode=mode)
    assert plan.items_needed is not None
    events, trials = simulate_studies(plan.items_needed, pairs, rate, rho, 500, np.random.default_rng(99))
    met = float(np.mean(decision_widths(events, trials, resamples=500, seed=3) <= target))
    assert low <= met <= high
