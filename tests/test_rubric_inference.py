"""Rubric inference (issues 13 and 14): balance on parsed exposures, clustered position tests with Holm, Bias Cost
at k = 2 and its bootstrap stability, the G-Eval expected score next to the parsed score, simulated logprobs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr

from judgebias_core.cli.rubric_commands import recommendation_text, report_payload
from judgebias_core.judges.simulated import rubric_score_logprobs, simulated_reply
from judgebias_core.metrics.bias_cost import bias_costs
from judgebias_core.metrics.bias_cost_bootstrap import bias_cost_ranking
from judgebias_core.metrics.rubric import (
    ScorePositionTable,
    exposure_counts,
    ordering_key,
    parse_ordering_key,
    parsed_trials,
    score_position_table,
)
from judgebias_core.metrics.rubric_balance import (
    clustered_share_test,
    exposure_balance,
    position_tests,
    trial_weights,
)
from judgebias_core.metrics.rubric_bootstrap import item_bootstrap_sums
from judgebias_core.metrics.rubric_geval import geval_summary
from judgebias_core.metrics.rubric_report import rubric_report_from_trials
from judgebias_core.models import RubricRunInfo
from judgebias_core.protocols.orderings import balanced_orderings
from judgebias_core.protocols.spec import SimulatedParams
from judgebias_core.report.rubric_section import bias_cost_sentence
from judgebias_core.run_types import PlannedCall

K3 = (1, 2, 3)


def trial(item: str, ordering: tuple[int, ...], score: int | None, expected: float | None = None) -> dict:
    return {"item_id": item, "ordering_key": ordering_key(ordering), "score": score,
            "chosen_position": None if score is None else ordering.index(score) + 1,
            "parse_status": "ok" if score is not None else "failed", "expected_score": expected}


def first_position_run(items: int, failing: tuple[int, ...], failures: int) -> pd.DataFrame:
    """A judge that picks the option at position 1 on a balanced k = 3 set; ``failing`` fails on ``failures`` items."""
    rows = [trial(f"i{i}", o, None if (o == failing and i < failures) else o[0])
            for i in range(items) for o in balanced_orderings(K3)]
    return pd.DataFrame(rows)


# --- 1. balance after parse failures -------------------------------------------------------------------------------

def test_many_failures_in_one_ordering_are_weighted_back_to_balance() -> None:
    trials = first_position_run(items=10, failing=(1, 2, 3), failures=8)
    balance = exposure_balance(trials, K3)
    assert balance.design_balanced and not balance.balanced and balance.weighting == "orderings-equal"
    # 52 parsed: (1,2,3) keeps 2, the other five orderings 10 each; score 1 sits at position 1 in (1,2,3) and
    # (1,3,2): 2 + 10 = 12 of 52, against 20 of 60 in the design.
    assert balance.parsed == 52 and balance.counts[0][0] == 12
    assert balance.max_deviation == pytest.approx(abs(12 / 52 - 1 / 3))
    weights = trial_weights(trials, balance.weighting)
    assert weights.sum() == pytest.approx(52)
    kept = parsed_trials(trials)
    weighted = sum(w * exposure_counts([parse_ordering_key(key)]) for w, key in zip(weights, kept["ordering_key"],
                                                                                   strict=True))
    assert np.allclose(weighted, weighted.flat[0])  # every score equally often at every position again
    tests = position_tests(trials, 3, balance.weighting, resamples=200, seed=0)
    assert tests.share(1) == pytest.approx(1.0) and tests.corrected.family_size == 3


def test_an_ordering_lost_entirely_is_confounded_and_says_by_how_much() -> None:
    trials = first_position_run(items=6, failing=(1, 2, 3), failures=6)
    balance = exposure_balance(trials, K3)
    assert balance.weighting == "not-possible" and not balance.balanced
    # 30 parsed trials over five orderings: score 1 at position 1 only in (1,3,2): 6 of 30.
    assert balance.counts[0][0] == 6 and balance.max_deviation == pytest.approx(abs(6 / 30 - 1 / 3))
    assert (balance.worst_score, balance.worst_position) == (1, 1)
    info = RubricRunInfo(run_id="hand", dataset_id="d", dataset_name="d", judge="j", protocol="rubric-permutation",
                         origin="upload", provider="upload", simulated=False, rubric_id="r", criterion=None,
                         trials=len(trials), k=3, orderings=6, items=6, params={})
    report = rubric_report_from_trials(info, trials, pd.DataFrame(columns=["item_id", "label_source", "label"]),
                                       resamples=100)
    assert report.balanced is False and report.exposure.design_balanced is True


def test_balanced_parsed_run_is_balanced_and_unweighted() -> None:
    trials = first_position_run(items=4, failing=(1, 2, 3), failures=0)
    balance = exposure_balance(trials, K3)
    assert balance.balanced and balance.weighting == "none" and balance.max_deviation == 0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6)), min_size=3, max_size=12), st.floats(0.05, 0.9))
def test_clustered_share_test_is_statsmodels_wls_with_item_clusters(cells: list[tuple[int, int]], null: float) -> None:
    events = np.array([min(e, n) for e, n in cells], dtype=float)
    trials = np.array([n for _, n in cells], dtype=float)
    statistic, p = clustered_share_test(events, trials, null)
    rate = events.sum() / trials.sum()
    y, groups = [], []
    for item, (e, n) in enumerate(zip(events, trials, strict=True)):
        y += [1.0] * int(e) + [0.0] * int(n - e)
        groups += [item] * int(n)
    fit = sm.WLS(np.array(y) - null, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": np.array(groups)},
                                                           use_t=True)
    if not np.isfinite(fit.bse[0]) or fit.bse[0] < 1e-10:
        return  # no between-item variation: the zero-variance rule, not statsmodels' 0/0
    assert rate - null == pytest.approx(fit.params[0])
    assert statistic == pytest.approx(fit.tvalues[0], rel=1e-6)
    assert p == pytest.approx(fit.pvalues[0], rel=1e-6, abs=1e-12)


# --- 2. Bias Cost: k = 2 and stability ------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=4, max_size=4))
def test_bias_cost_cannot_separate_the_two_orderings_at_k2(counts: list[int]) -> None:
    rows = [(1, 1)] * counts[0] + [(1, 2)] * counts[1] + [(2, 1)] * counts[2] + [(2, 2)] * counts[3]
    trials = pd.DataFrame([trial("i", (s, 3 - s) if p == 1 else (3 - s, s), s) for s, p in rows]
                          or [trial("i", (1, 2), None)])
    table = score_position_table(trials, (1, 2))
    costs = bias_costs(table, [(1, 2), (2, 1)])
    assert costs[0] == pytest.approx(costs[1])
    ranking = bias_cost_ranking(table, np.zeros((1, 2, 2), dtype=int), [(1, 2), (2, 1)], 50, 0)
    assert not ranking.defined and ranking.recommended is None and "k = 2" in (ranking.reason or "")
    assert ranking.intervals == ()


def clear_case_counts(items: int, calls: int, seed: int) -> np.ndarray:
    """Items x 3 x 3 choices drawn from P(. | 1) = [.6 .3 .1], P(. | 2) = [.2 .3 .5], P(. | 3) = [.2 .5 .3]."""
    probabilities = np.array([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5], [0.2, 0.5, 0.3]])
    rng = np.random.default_rng(seed)
    counts = np.zeros((items, 3, 3), dtype=int)
    for item in range(items):
        for score in rng.integers(0, 3, size=calls):
            counts[item, score, rng.choice(3, p=probabilities[score])] += 1
    return counts


def table_of(counts: np.ndarray) -> ScorePositionTable:
    """P(position | score) of the summed item counts (every score chosen at least once here)."""
    totals = counts.sum(axis=0)
    return ScorePositionTable(K3, tuple(tuple(int(c) for c in row) for row in totals),
                              tuple(tuple(float(c) / row.sum() for c in row) for row in totals))


def test_a_clear_recommendation_is_stable_and_separated() -> None:
    counts = clear_case_counts(items=200, calls=30, seed=1)
    ranking = bias_cost_ranking(table_of(counts), counts, list(itertools.permutations(K3)), 500, 0)
    assert ranking.defined and ranking.recommended is not None and ranking.recommended.ordering == (2, 1, 3)
    assert ranking.stability > 0.95 and ranking.intervals[0].lowest_share == ranking.stability
    assert sum(i.lowest_share for i in ranking.intervals) == pytest.approx(1.0)
    for interval in ranking.intervals[1:]:
        assert interval.difference_low > 0  # every other ordering costs more, and the interval says so
        assert interval.low <= interval.bias_cost + 0.05


def test_an_unclear_recommendation_is_unstable() -> None:
    # A judge blind to the order: every ordering's cost is noise around 0, the "lowest" changes between resamples.
    counts = np.random.default_rng(3).multinomial(10, [1 / 9] * 9, size=60).reshape(60, 3, 3)
    ranking = bias_cost_ranking(table_of(counts), counts, list(itertools.permutations(K3)), 500, 0)
    assert ranking.stability < 0.6


# --- 3. G-Eval expected score --------------------------------------------------------------------------------------

def geval_trials(items: int, pull: float, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    """All 3! orderings per item; expected score = content + pull * (score at position 1 - 2); parsed = rounded."""
    rng = np.random.default_rng(seed)
    content = rng.uniform(1.2, 2.8, size=items)
    rows = []
    for i in range(items):
        for ordering in itertools.permutations(K3):
            expected = content[i] + pull * (ordering[0] - 2) + rng.normal(0, 0.05)
            rows.append(trial(f"i{i}", ordering, int(np.clip(round(expected), 1, 3)), expected))
    labels = pd.Series(content + rng.normal(0, 0.2, size=items), index=[f"i{i}" for i in range(items)])
    return pd.DataFrame(rows), labels


def test_geval_pull_recovers_a_known_position_pull() -> None:
    trials, labels = geval_trials(items=40, pull=0.3, seed=0)
    summary = geval_summary(trials, labels, "human", resamples=300, seed=0)
    assert summary.available and summary.compared == 240 and summary.items == 40
    # y = c + a * x1 on all 3! orderings: slope a at position 1, -a / (k - 1) at the others.
    pulls = {p.position: p for p in summary.pulls}
    assert pulls[1].expected == pytest.approx(0.3, abs=0.02)
    assert pulls[2].expected == pytest.approx(-0.15, abs=0.02) and pulls[3].expected == pytest.approx(-0.15, abs=0.02)
    assert pulls[1].expected_ci[0] <= pulls[1].expected <= pulls[1].expected_ci[1]
    assert not pulls[1].expected_degenerate
    per_item = trials.groupby("item_id")[["expected_score", "score"]].mean().join(labels.rename("label"))
    assert summary.expected_vs_labels is not None and summary.parsed_vs_labels is not None
    assert summary.expected_vs_labels.pearson == pytest.approx(pearsonr(per_item["expected_score"],
                                                                        per_item["label"])[0])
    assert summary.parsed_vs_labels.pearson == pytest.approx(pearsonr(per_item["score"], per_item["label"])[0])
    assert summary.difference is not None and summary.difference.pearson == pytest.approx(
        summary.expected_vs_labels.pearson - summary.parsed_vs_labels.pearson)


def test_geval_without_logprobs_and_on_one_ordering() -> None:
    trials, labels = geval_trials(items=5, pull=0.0, seed=1)
    none = geval_summary(trials.assign(expected_score=None), labels, "human", 50, 0)
    assert not none.available and "log-probabilities" in (none.reason or "")
    canonical = trials[trials["ordering_key"] == "1,2,3"]
    one = geval_summary(canonical, labels, "human", 50, 0)
    assert one.available and one.pulls == () and "one ordering" in (one.pull_reason or "")


# --- 4. the simulated judge's log-probabilities ---------------------------------------------------------------------

def rubric_call(ordering: tuple[int, ...], human: float | None, call_id: str = "c1") -> PlannedCall:
    return PlannedCall(call_id=call_id, run_id="r", dataset_id="d", item_id="i", call_kind="rubric", repetition=1,
                       system="", user="", ordering=ordering, scores=tuple(sorted(ordering)), contents=("text",),
                       human_score=human)


@pytest.mark.parametrize("noise", [0.0, 0.6])
def test_simulated_logprobs_follow_the_stated_model(noise: float) -> None:
    params = SimulatedParams(position_prob=0.3, position_weights=(0.4, 0.2, 0.15, 0.15, 0.1), noise=noise, seed=0)
    call = rubric_call((2, 3, 4, 5, 1), human=3.0)
    probabilities = {int(s): math.exp(lp) for s, lp in rubric_score_logprobs(call, params).items()}
    assert sum(probabilities.values()) == pytest.approx(1.0)
    if noise == 0:  # content puts all of 1 - q on score 3; position weights go to the scores shown there
        assert probabilities[3] == pytest.approx(0.7 + 0.3 * 0.2)
        assert probabilities[2] == pytest.approx(0.3 * 0.4)
    # The reply text (the sampled score) does not depend on whether log-probabilities were asked for.
    assert simulated_reply(call, params) == simulated_reply(rubric_call((2, 3, 4, 5, 1), human=3.0), params)


def test_a_k2_run_recommends_nothing_on_the_report_and_in_json() -> None:
    rows = [trial(f"i{i}", o, o[0] if i % 2 else 2) for i in range(6) for o in ((1, 2), (2, 1))]
    trials = pd.DataFrame(rows)
    info = RubricRunInfo(run_id="k2", dataset_id="d", dataset_name="d", judge="j", protocol="rubric-permutation",
                         origin="upload", provider="upload", simulated=False, rubric_id="r", criterion=None,
                         trials=len(trials), k=2, orderings=2, items=6, params={})
    report = rubric_report_from_trials(info, trials, pd.DataFrame(columns=["item_id", "label_source", "label"]),
                                       resamples=100)
    assert report.recommended is None and not report.bias_cost.defined
    assert len({round(o.bias_cost, 12) for o in report.orderings}) == 1  # both orderings cost the same
    payload = report_payload(report)
    assert payload["recommended_ordering"] is None and payload["bias_cost"]["defined"] is False
    assert "k = 2" in payload["bias_cost"]["reason"] and "no recommended ordering" in recommendation_text(report)
    assert "recommends no ordering" in bias_cost_sentence(report)


def test_item_bootstrap_sums_resample_items() -> None:
    columns = np.random.default_rng(5).integers(0, 6, size=(40, 3)).astype(float)
    sums = item_bootstrap_sums(columns, 20000, 0)
    # n items drawn with replacement: E[sum] = n * mean, Var[sum] = n * population variance, per column.
    assert sums.mean(axis=0) == pytest.approx(columns.sum(axis=0), rel=0.01)
    assert sums.var(axis=0) == pytest.approx(len(columns) * columns.var(axis=0), rel=0.05)
    assert np.array_equal(item_bootstrap_sums(columns, 50, 3), item_bootstrap_sums(columns, 50, 3))
