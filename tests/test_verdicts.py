"""Verdict blocks: known answers on the bundled data, the thresholds behind each word, the report and the pages
printing the same objects."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgebias_core.analyses.pairwise import pairwise_metrics
from judgebias_core.analyses.pairwise_view import REPORT_FAMILY
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics
from judgebias_core.metrics.pairwise_family import page_family_scope, pairwise_family
from judgebias_core.report import ReportRequest, build_report, render_html
from judgebias_core.report.render import verdict_html
from judgebias_core.wording.verdict import (
    FLIP_USABLE_AS_IS,
    FLIP_USABLE_WITH_AVERAGING,
    pairwise_verdict,
    pairwise_verdicts,
)
from tests.store_helpers import read


@pytest.fixture(scope="module")
def mtbench_full(bundled_db_master: Path) -> list[PairwiseJudgeMetrics]:
    return read(pairwise_metrics, bundled_db_master, "mtbench", None, "full")


def test_gpt4_on_mtbench_in_plain_words(mtbench_full: list[PairwiseJudgeMetrics]) -> None:
    gpt4 = next(r for r in mtbench_full if r.judge == "gpt-4-0613")
    does, sure, todo = pairwise_verdict(gpt4).lines
    # The binomial test on the pairs (p = 0.029) said "leans to the second slot"; the item-clustered position test
    # does not (p = 0.283, design effect 3.9), so no lean is called.
    assert does.text == ("gpt-4-0613 flips about 1 pair in 5 when the two answers swap places (18.5%) and shows no "
                         "clear lean to either slot.")
    assert "(198 flips to the first slot, 245 to the second; p = 0.283 before correction, corrected p = 0.283)" in (
        does.rule)
    assert "Holm correction over 1 test shown together" in does.rule
    # Gemini-pro's lean survives the correction over the three judges of the study.
    gemini = next(v for v in pairwise_verdicts(mtbench_full) if v.subject == "gemini-pro")
    assert "leans to the second slot" in gemini.lines[0].text and "over 3 tests" in gemini.lines[0].rule
    assert gemini.figures["position_p_corrected"] < 0.05
    # Plain words first; the interval's method is in the rule, folded under "How this was decided".
    assert sure.text == (f"Quite sure: the flip rate lies between {gpt4.bootstrap_ci_low:.1%} and "
                         f"{gpt4.bootstrap_ci_high:.1%} (95% interval), from 2,400 of 2,400 pairs on 80 questions.")
    assert sure.rule.startswith("Interval: 95% studentized item-bootstrap interval (2,000 resamples of the 80 items")
    assert todo.text.startswith("Usable with swap-averaging")


def test_figures_are_fractions_and_json_ready(mtbench_full: list[PairwiseJudgeMetrics]) -> None:
    verdicts = pairwise_verdicts(mtbench_full)
    assert [v.subject for v in verdicts] == ["gpt-4-0613", "gpt-3.5-turbo-1106", "gemini-pro"]  # steadiest first
    payload = json.loads(json.dumps([v.as_dict() for v in verdicts]))
    first = payload[0]["figures"]
    assert first["flip_rate"] == pytest.approx(443 / 2400) and first["interval_kind"] == "studentized item bootstrap"
    assert 0 < first["interval_low"] < first["flip_rate"] < first["interval_high"] < 1


@given(high=st.floats(min_value=0.0, max_value=1.0))
def test_advice_follows_the_stated_thresholds(high: float) -> None:
    base = PairwiseJudgeMetrics(
        dataset="d", study="s", judge="j", repetition=1, pairs=100, failed_pairs=0, consistent=90, primacy=5,
        recency=5, position_consistency=0.9, flip_rate=min(high, 0.1), flip_rate_ci_low=0.0, flip_rate_ci_high=high,
        first_slot_share=0.5, binomial_p=1.0, preference_fairness=0.0, classified_pairs=100, units=1, items=10,
        bootstrap_ci_low=0.0, bootstrap_ci_high=high, bootstrap_resamples=100, bootstrap_seed=0,
        mcnemar_statistic=0.0, mcnemar_p=1.0, wins_first_slot_only=0, wins_second_slot_only=0,
        flip_rate_decision_low=0.0, flip_rate_decision_high=high, flip_rate_decision_method="studentized-item-bootstrap",
        flip_rate_degenerate=False, flip_rate_degenerate_reason=None, design_effect=2.0,
        position_consistency_decision_low=1 - high, position_consistency_decision_high=1.0,
        first_slot_share_decision_low=0.4, first_slot_share_decision_high=0.6,
        first_slot_share_decision_method="item-bootstrap", first_slot_share_degenerate_reason=None,
        first_slot_share_design_effect=1.5, preference_fairness_scaled=0.0, units_without_classified_pair=0,
        position_p=1.0, position_statistic=0.0, position_method="cluster-robust-t", position_pick_share=0.5,
        position_pick_share_low=0.45, position_pick_share_high=0.55, position_interval_method="cluster-robust-t",
        position_degenerate_reason=None, position_design_effect=1.2, position_tie_rule="a tie counts as half")
    advice = pairwise_verdict(base).lines[2].text
    expected = ("Usable as is" if high < FLIP_USABLE_AS_IS else "Usable with swap-averaging"
                if high < FLIP_USABLE_WITH_AVERAGING else "Not for close rankings")
    assert advice.startswith(expected)
    # With few items the fallback is named, never called a bootstrap.
    few = pairwise_verdict(replace(base, flip_rate_decision_method="exact-effective-items")).lines[1].rule
    assert "item-clustered interval (exact-effective-items, 10 items)" in few


def test_report_summary_prints_the_page_verdicts(bundled_db_master: Path,
                                                 mtbench_full: list[PairwiseJudgeMetrics]) -> None:
    report = read(build_report, bundled_db_master, ReportRequest("mtbench"))
    pairwise = next(s for s in report.sections if s.key == "pairwise")
    # The report corrects every test it shows (both studies), so its verdicts read that family.
    assert list(pairwise.verdicts) == pairwise_verdicts(
        mtbench_full, family=pairwise_family(read(pairwise_metrics, bundled_db_master, "mtbench")),
        scope=REPORT_FAMILY)
    # The page corrects a smaller family than the report: each says which family and how many tests.
    in_report = next(v for v in pairwise.verdicts if v.subject == "gpt-3.5-turbo-1106")
    on_page = next(v for v in pairwise_verdicts(mtbench_full, family=pairwise_family(mtbench_full),
                                                scope=page_family_scope("full"))
                   if v.subject == "gpt-3.5-turbo-1106")
    assert "over 57 tests shown together (every study and repetition in this report" in in_report.lines[0].rule
    assert "over 3 tests shown together (the rows shown on this page, study full" in on_page.lines[0].rule
    assert "the report corrects every study and repetition of the dataset together" in on_page.lines[0].rule
    assert any("The Pairwise bias page corrects only the rows it shows" in note for note in pairwise.notes)
    summary = render_html(report).split('<section id="pairwise">', 1)[0]
    for verdict in pairwise.verdicts:
        assert verdict_html(verdict) in summary
    agreement = next(s for s in report.sections if s.key == "agreement")
    assert agreement.verdicts[0].subject == "3 judges, study full"


def test_calibration_and_rubric_verdicts_name_their_interval(bundled_db_master: Path) -> None:
    report = read(build_report, bundled_db_master, ReportRequest("autoj"))
    (verdict,) = next(s for s in report.sections if s.key == "calibration").verdicts
    assert verdict.lines[1].text == "Quite sure: the score lies between 0.38 and 0.45 (95% interval), from 1,392 pairs."
    assert verdict.lines[1].rule.startswith("95% item-bootstrap interval")
    assert "whole items" in verdict.lines[1].rule and verdict.figures["interval_kind"] == "item-bootstrap"


def test_rubric_verdict_on_the_hand_made_store(fresh_db: Path) -> None:
    from tests.rubric_toy_store import write_toy_store

    write_toy_store(fresh_db)
    report = read(build_report, fresh_db, ReportRequest("toy-rubric", runs=("toy-perm", "toy-repeat")))
    (verdict,) = next(s for s in report.sections if s.key == "rubric").verdicts
    does, sure, todo = verdict.lines
    # Exposure-weighted (every ordering counts equally after the one failed reply): 69.4%, not the raw 16 of 23.
    assert does.text.startswith("toy-judge (a simulated judge) chose the option at place 1 in 69.4% of 23 readable "
                                "scores, where a judge blind to the order would choose each place 33.3%")
    assert "from 23 readable scores" in sure.text and sure.rule.startswith("95% item-clustered interval")
    # Four items: the item-clustered interval (Wilson on the effective n) includes 1/3 and the Holm-corrected
    # clustered test does not reject, so no place preference is called (the Wilson interval on calls would have).
    assert "the lean to that place could be chance." in sure.text
    assert "could be chance after Holm correction over 3 tests" in sure.rule
    assert "Wilson interval treating calls as independent" in sure.rule
    assert todo.text.startswith("No clear place preference")
    assert verdict.figures["interval_low"] < 1 / 3 and verdict.figures["tests"] == 3
