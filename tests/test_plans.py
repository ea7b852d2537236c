"""Run plans: combinatorics (hypothesis) and plans built from the bundled store."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgebias_core.demo import demo_spec
from judgebias_core.errors import InvalidArgument
from judgebias_core.protocols.orderings import balanced_orderings, canonical, is_balanced, latin_square_orderings
from judgebias_core.protocols.plans import build_plan, cyclic_slot_orders, rubric_trials, swap_orders
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.providers import all_providers
from judgebias_core.store.handle import Store

names = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=4), min_size=2, max_size=8, unique=True)


@given(st.integers(min_value=2, max_value=9))
def test_every_balanced_set_is_balanced(k: int) -> None:
    orderings = balanced_orderings(range(1, k + 1))
    assert len(orderings) == 2 * k
    assert len(set(orderings)) == (2 * k if k > 2 else 2)  # for k = 2 the reversed rotations repeat the forward ones
    assert is_balanced(orderings) and is_balanced(latin_square_orderings(range(1, k + 1)))


@given(names, st.booleans())
def test_every_swap_pair_has_its_mirror(candidates: list[str], against_baseline: bool) -> None:
    baseline = candidates[0] if against_baseline else None
    orders = swap_orders(candidates, baseline, "baseline" if against_baseline else "all")
    originals = {slots for slots, label in orders if label == "original"}
    swapped = {slots for slots, label in orders if label == "swapped"}
    assert {(b, a) for a, b in originals} == swapped
    assert len(originals) == len(orders) // 2 == len(set(orders)) // 2
    expected = len(candidates) - 1 if against_baseline else len(candidates) * (len(candidates) - 1) // 2
    assert len(originals) == expected
    if against_baseline:
        assert all(slots[0] == baseline for slots in originals)


@given(names)
def test_cyclic_orders_put_each_candidate_once_in_every_position(candidates: list[str]) -> None:
    orders = cyclic_slot_orders(candidates)
    for position in range(len(candidates)):
        assert Counter(order[position] for order in orders) == Counter(candidates)


def test_rubric_trials_permutation_and_repeat() -> None:
    orderings = balanced_orderings((1, 2, 3, 4, 5))
    assert [o for o, _ in rubric_trials("rubric-permutation", orderings, (1, 2, 3, 4, 5), None)] == orderings
    repeat = rubric_trials("rubric-repeat", orderings, (1, 2, 3, 4, 5), None)
    assert len(repeat) == 10 and {o for o, _ in repeat} == {canonical((1, 2, 3, 4, 5))}
    assert [r for _, r in repeat] == list(range(1, 11))


def test_mtbench_swap_plan_pairs_every_candidate_with_the_baseline(bundled_db_master: Path) -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="replay", model="gpt-4-0613",
                   limit_items=2)
    plan = Store(bundled_db_master).read(build_plan, spec, "plan-test")
    assert len(plan.calls) == 2 * 30 * 2 and len({c.call_id for c in plan.calls}) == len(plan.calls)
    originals = [c for c in plan.calls if c.order_label == "original"]
    assert {c.slots[0] for c in originals} == {"vicuna-13b-v1.3"}
    assert all(c.options == 3 and "[[C]]" in c.system for c in plan.calls)
    assert [c.item_id for c in plan.calls[:1]] == ["81"]


def test_demo_plans_have_the_stated_shape(bundled_db_master: Path) -> None:
    permutation = Store(bundled_db_master).read(build_plan, demo_spec("rubric-permutation"), "p")
    repeat = Store(bundled_db_master).read(build_plan, demo_spec("rubric-repeat"), "r")
    assert len(permutation.calls) == len(repeat.calls) == 400
    items = {c.item_id for c in permutation.calls}
    assert len(items) == 40 and {i.split(":")[-1] for i in items} == {"M8", "M9", "M10", "M11"}
    assert is_balanced(list(permutation.orderings)) and len(permutation.orderings) == 10
    assert all(c.human_score is not None and c.rubric_id == "summeval-coherence" for c in permutation.calls)
    assert {c.ordering for c in repeat.calls} == {(1, 2, 3, 4, 5)}


def test_devbench_defaults_to_two_options_and_repetition_repeats(bundled_db_master: Path) -> None:
    spec = RunSpec(dataset_id="devbench", protocol="repetition", provider="simulated", model="m", limit_items=1)
    plan = Store(bundled_db_master).read(build_plan, spec, "rep")
    assert {c.options for c in plan.calls} == {2}
    per_order = Counter((c.item_id, c.slots) for c in plan.calls)
    assert set(per_order.values()) == {3}


def test_listwise_plan_rotates_the_candidates(bundled_db_master: Path) -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="listwise", provider="simulated", model="m", limit_items=1,
                   listwise_size=4)
    plan = Store(bundled_db_master).read(build_plan, spec, "lw")
    assert len(plan.calls) == 4 and plan.calls[0].slots[0] == "vicuna-13b-v1.3"
    assert {c.slots for c in plan.calls} == set(cyclic_slot_orders(plan.calls[0].slots))


def test_logprobs_refusal_names_the_providers_that_declare_them(bundled_db_master: Path) -> None:
    declaring = {p.name for p in all_providers() if p.capabilities.logprobs}
    assert "simulated" in declaring and "anthropic" not in declaring
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="anthropic", model="m", limit_items=1,
                   logprobs=True)
    with pytest.raises(InvalidArgument) as refused:
        Store(bundled_db_master).read(build_plan, spec)
    named = str(refused.value).rsplit("providers ", 1)[1].split(", ")
    assert set(named) == declaring
