"""The symmetric, clustered position-effect test: symmetry, known reductions to McNemar, degenerate cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import mcnemar

from judgebias_core.stats.position_test import position_scores, position_test

verdicts = st.sampled_from(["A", "B", "C"])


def test_scores_by_hand() -> None:
    first = ["A", "A", "C", "B", "B", "C", "A", "B", "C"]
    second = ["A", "C", "A", "B", "C", "B", "B", "A", "C"]
    assert position_scores(first, second).tolist() == [1, 0.5, 0.5, -1, -0.5, -0.5, 0, 0, 0]
    assert np.isnan(position_scores([None], ["A"])[0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 25), verdicts, verdicts), min_size=2, max_size=120))
def test_symmetric_in_the_two_candidates(pairs: list[tuple[int, str, str]]) -> None:
    items = [f"q{i}" for i, _, _ in pairs]
    one = position_test(items, [v for _, v, _ in pairs], [v for _, _, v in pairs], resamples=200)
    # Calling the other candidate "x" exchanges which order is the first one.
    other = position_test(items, [v for _, _, v in pairs], [v for _, v, _ in pairs], resamples=200)
    assert repr(one) == repr(other)  # repr: NaN fields compare equal
    if not one.degenerate:
        assert one.low <= one.first_slot_share <= one.high and 0 <= one.p_value <= 1


def test_one_pair_per_item_without_ties_matches_mcnemar() -> None:
    rng = np.random.default_rng(4)
    n = 3000
    first = rng.choice(["A", "B"], size=n, p=[0.6, 0.4])
    second = rng.choice(["A", "B"], size=n, p=[0.55, 0.45])
    result = position_test([str(i) for i in range(n)], first.tolist(), second.tolist())
    primacy = int(np.sum((first == "A") & (second == "A")))
    recency = int(np.sum((first == "B") & (second == "B")))
    # McNemar on (x wins when first, x wins when second): its discordant cells are primacy and recency.
    table = [[int(np.sum((first == "A") & (second == "B"))), primacy],
             [recency, int(np.sum((first == "B") & (second == "A")))]]
    chi_square = mcnemar(table, exact=False, correction=False).statistic
    discordant, lean = primacy + recency, primacy - recency
    assert chi_square == pytest.approx(lean**2 / discordant)
    # The stated identity: t^2 = (N-1)/N (P-R)^2 / (P+R - (P-R)^2/N), McNemar's up to terms of order 1/N.
    assert result.statistic**2 == pytest.approx((n - 1) / n * lean**2 / (discordant - lean**2 / n))
    assert result.statistic**2 == pytest.approx(chi_square, rel=0.05)
    assert result.first_slot_share == pytest.approx(0.5 + (primacy - recency) / n / 2)
    assert result.design_effect == pytest.approx(1.0, abs=0.05)


def test_clustered_pairs_widen_the_test() -> None:
    rng = np.random.default_rng(5)
    items, first, second = [], [], []
    for item in range(60):
        lean = rng.normal(0, 0.25)
        p_first = np.clip(0.5 + lean, 0.05, 0.95)
        for _ in range(30):
            items.append(f"q{item}")
            first.append("A" if rng.random() < p_first else "B")
            second.append("A" if rng.random() < p_first else "B")
    clustered = position_test(items, first, second)
    unclustered = position_test([str(i) for i in range(len(items))], first, second)
    assert clustered.design_effect > 1.5 and clustered.interval_method == "item-bootstrap"
    assert clustered.high - clustered.low > unclustered.high - unclustered.low
    assert clustered.p_value > unclustered.p_value


def test_no_flips_is_degenerate_and_said() -> None:
    result = position_test(["q1", "q2", "q2"], ["A", "B", "C"], ["B", "A", "C"])
    assert result.degenerate and result.p_value == 1 and result.first_slot_share == 0.5
    assert result.degenerate_reason == "no position-dependent verdicts in 3 pairs over 2 items"


def test_unparsed_pairs_are_counted_apart_and_few_items_use_the_t_interval() -> None:
    result = position_test(["q1", "q1", "q2", "q3", "q3"], ["A", None, "A", "B", "A"], ["A", "B", "C", "B", "B"])
    assert result.unparsed == 1 and result.pairs == 4 and result.items == 3
    assert result.interval_method == "cluster-robust-t" and result.low < result.first_slot_share < result.high


def test_every_pair_primacy_is_degenerate_with_an_item_sign_test() -> None:
    result = position_test([f"q{i}" for i in range(6)] * 2, ["A"] * 12, ["A"] * 12)
    assert result.degenerate and result.first_slot_share == 1 and np.isnan(result.low)
    assert result.p_value == pytest.approx(2 * 0.5**6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), verdicts, verdicts), min_size=3, max_size=150))
def test_matches_statsmodels_cluster_robust_ols(pairs: list[tuple[int, str, str]]) -> None:
    import statsmodels.api as sm

    items = [f"q{i}" for i, _, _ in pairs]
    result = position_test(items, [v for _, v, _ in pairs], [v for _, _, v in pairs], resamples=200)
    scores = position_scores([v for _, v, _ in pairs], [v for _, _, v in pairs])
    _, groups = np.unique(items, return_inverse=True)
    if result.degenerate or len(set(groups)) < 2:
        return
    fit = sm.OLS(scores, np.ones(len(scores))).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    assert result.p_value == pytest.approx(float(fit.pvalues[0]), rel=1e-9, abs=1e-12)
    assert result.statistic == pytest.approx(float(fit.tvalues[0]), rel=1e-9)
    assert result.first_slot_share == pytest.approx(0.5 + float(fit.params[0]) / 2)


def test_from_item_sums_equals_per_pair_call() -> None:
    from judgebias_core.stats.position_test import position_test_from_item_sums

    items = ["a", "a", "b", "b", "c", "c", "c"]
    first, second = ["A", "C", "B", "A", "A", "B", "A"], ["A", "B", "B", "B", "A", "C", "C"]
    scores = position_scores(first, second)
    sums = [scores[:2].sum(), scores[2:4].sum(), scores[4:].sum()]
    squares = [(scores[:2] ** 2).sum(), (scores[2:4] ** 2).sum(), (scores[4:] ** 2).sum()]
    assert repr(position_test_from_item_sums(np.array(sums), np.array(squares), np.array([2.0, 2, 3]))) == repr(
        position_test(items, first, second))


def test_items_that_balance_their_picks_exactly_show_no_lean() -> None:
    """20 items each with one (A, A) and one (B, B): every item's mean is 0, the share 1/2; the earlier sign test
    gave p = 2 x 0.5^20 = 1.9e-6 and the family sentence said "leans to the second slot"."""
    items = [f"q{i}" for i in range(20) for _ in range(2)]
    first, second = ["A", "B"] * 20, ["A", "B"] * 20
    result = position_test(items, first, second)
    assert result.first_slot_share == 0.5 and result.p_value == 1.0 and result.statistic == 0.0
    assert result.degenerate and "no lean" in (result.degenerate_reason or "")
    # Every item leaning the same way by the same amount keeps the exact sign test over items.
    leaning = position_test(items, ["A", "A"] * 20, ["A", "C"] * 20)
    assert leaning.first_slot_share > 0.5 and leaning.p_value == pytest.approx(2 * 0.5**20)


def test_the_family_sentence_never_calls_a_lean_at_one_half() -> None:
    from dataclasses import replace

    from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics
    from judgebias_core.metrics.pairwise_family import leans, pairwise_family

    row = PairwiseJudgeMetrics(
        dataset="d", study="s", judge="j", repetition=1, pairs=40, failed_pairs=0, consistent=0, primacy=20,
        recency=20, position_consistency=0.0, flip_rate=1.0, flip_rate_ci_low=0.9, flip_rate_ci_high=1.0,
        first_slot_share=0.5, binomial_p=1.0, preference_fairness=0.0, classified_pairs=40, units=1, items=20,
        bootstrap_ci_low=0.9, bootstrap_ci_high=1.0, bootstrap_resamples=100, bootstrap_seed=0,
        mcnemar_statistic=0.0, mcnemar_p=1.0, wins_first_slot_only=0, wins_second_slot_only=0,
        flip_rate_decision_low=0.9, flip_rate_decision_high=1.0, flip_rate_decision_method="exact-all-events",
        flip_rate_degenerate=True, flip_rate_degenerate_reason="only flips", design_effect=1.0,
        position_consistency_decision_low=0.0, position_consistency_decision_high=0.1,
        first_slot_share_decision_low=0.3, first_slot_share_decision_high=0.7,
        first_slot_share_decision_method="studentized-item-bootstrap", first_slot_share_degenerate_reason=None,
        first_slot_share_design_effect=1.0, preference_fairness_scaled=0.0, units_without_classified_pair=0,
        position_p=1e-6, position_statistic=float("nan"), position_method="cluster-robust-t",
        position_pick_share=0.5, position_pick_share_low=float("nan"), position_pick_share_high=float("nan"),
        position_interval_method="none", position_degenerate_reason="every item ...", position_design_effect=1.0,
        position_tie_rule="a tie counts as half")
    assert leans(row, pairwise_family([row])) is None  # a rejected test at share 1/2 names no side
    second = replace(row, position_pick_share=0.4)
    assert leans(second, pairwise_family([second])) == "second"
