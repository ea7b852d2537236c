"""New run, pairwise swap runs: the expected width of the item-clustered interval and the items a target width needs,
next to the cost estimate (``judgebias_core.analyses.plan``)."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.plan import (
    WIDTH_MODES,
    DatasetDesign,
    PlanAssumptions,
    StudyPlan,
    WidthMode,
    dataset_design,
    default_assumptions,
    plan_cost,
    plan_study,
    typed_assumptions,
    width_mode_words,
)
from judgebias_core.errors import JudgebiasError
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider
from ui.state import cached, show_error
from ui.text import counted, escape_markdown

DEFAULT_TARGET_WIDTH = 0.05


@st.cache_data(show_spinner="Simulating studies of this design...", max_entries=64)
def _plan(design: DatasetDesign, assumptions: PlanAssumptions, items: int, target: float,
          mode: WidthMode) -> StudyPlan:
    """The plan, kept per inputs: the assured width simulates studies (up to a few seconds in assurance mode)."""
    return plan_study(design, assumptions, items, target, mode)


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def _inputs(assumptions: PlanAssumptions, key: str) -> tuple[float, float, float]:
    cols = st.columns(3)
    flip_rate = cols[0].number_input("Expected flip rate", 0.001, 0.999, round(assumptions.flip_rate, 3), 0.01,
                                     format="%.3f", key=f"plan_flip_{key}",
                                     help="Share of pairs whose verdict changes when the two answers swap slots.")
    design_effect = cols[1].number_input(
        "Design effect", 1.0, 100.0, round(assumptions.design_effect, 2), 0.1, format="%.2f", key=f"plan_deff_{key}",
        help="Variance of the flip rate with pairs clustered by item over the variance if pairs were independent, "
        "at this run's pairs per item (1 + (m - 1) x intra-item correlation).")
    target = cols[2].number_input("Target width", 0.001, 0.999, DEFAULT_TARGET_WIDTH, 0.01, format="%.3f",
                                  key=f"plan_target_{key}", help="Full width of the 95% interval wanted.")
    return float(flip_rate), float(design_effect), float(target)


def show_swap_study_plan(spec: RunSpec, settings: RunSettings) -> None:
    """For a pairwise-swap spec: inputs for the expected flip rate and design effect (defaults from an earlier run
    of the same judge on the dataset when one exists), the expected interval width and the items for a target."""
    if spec.protocol != "pairwise-swap":
        return
    st.markdown("**Interval width before the run**")
    try:
        design = cached(dataset_design, spec.dataset_id, spec.pairs)
        defaults = cached(default_assumptions, design, list(dict.fromkeys([spec.judge_name(), spec.model])))
        flip_rate, design_effect, target = _inputs(defaults, f"{spec.dataset_id}_{spec.pairs}_{spec.model}")
        unchanged = (flip_rate, design_effect) == (round(defaults.flip_rate, 3), round(defaults.design_effect, 2))
        assumptions = defaults if unchanged else typed_assumptions(flip_rate, design_effect)
        mode = st.radio("Plan the items for the target width as", WIDTH_MODES, horizontal=True,
                        format_func=width_mode_words, key=f"plan_mode_{spec.dataset_id}_{spec.pairs}",
                        help="The expected width is met by about half of the studies planned with it; the width met "
                        "with 80% assurance by 80% of them (simulated studies of this design; more items).")
        plan = _plan(design, assumptions, max(1, design.items_within(spec.limit_items)), target, mode)
        needed = plan.items_needed or plan.items
        cost = cached(plan_cost, design, spec.model_copy(update={"limit_items": None}), needed, settings)
    except JudgebiasError as error:
        show_error(error)
        return
    st.caption(escape_markdown(_sentence(defaults.description if unchanged else assumptions.description)))
    cols = st.columns(4)
    cols[0].metric("Expected interval width", f"{plan.expected_width:.3f}",
                   help=f"Item-clustered {plan.confidence:.0%} interval ({plan.interval_method}) of the flip rate "
                   f"over {counted(plan.items, 'item')} x {plan.pairs_per_item} pairs: +/- "
                   f"{plan.expected_width / 2:.3f} around {plan.flip_rate:.3f} (normal approximation with the "
                   "design effect; METHODS.md). About half of such studies come out wider.")
    cols[1].metric(f"Width met with {plan.assurance:.0%} assurance", f"{plan.assured_width:.3f}",
                   help=f"{plan.assurance:.0%} of simulated studies of this design get an interval at most this "
                   "wide (METHODS.md).")
    cols[2].metric("Items for a target width", f"{needed:,}", help=f"Items of {plan.pairs_per_item} pairs for a "
                   f"width of {target:.3f} at the same flip rate and design effect, planned as the "
                   f"{width_mode_words(plan.width_mode, plan.assurance)}.")
    free = not get_provider(spec.provider).paid
    price = "$0.00" if free else "unknown" if cost.cost_usd is None else f"${cost.cost_usd:,.2f}"
    cols[3].metric("Cost for that many items (estimate)", price, help=f"{cost.calls:,} judge calls with "
                   f"{spec.model}, through the same estimate as the plan above.")
    for note in (plan.note, cost.note):
        if note:
            st.caption(escape_markdown(_sentence(note)))
