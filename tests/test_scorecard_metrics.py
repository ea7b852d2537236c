"""The scorecard's metrics on hand-built pairs: counts, swap-averaged credit, cost bases, paired differences with
Holm, and the recommendation's rules; and its flip rate against the Pairwise bias page's on MTBench."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.analyses.pairwise import pairwise_metrics
from judgebias_core.analyses.scorecard import judge_scorecard
from judgebias_core.metrics.scorecard import item_credits, scorecard_rows, swap_averaged_pick
from judgebias_core.metrics.scorecard_compare import paired_differences, recommend
from judgebias_core.store.handle import Store

CLASS = {("x", "x"): "consistent", ("y", "y"): "consistent", ("y", "x"): "primacy", ("x", "y"): "recency"}


def _pairs(judge: str, study: str, picks: list[tuple[str | None, str | None]], labels: list[str | None],
           cost: float | None = None, model: str | None = None) -> pd.DataFrame:
    """One pair per item: candidate 'x' (second in the original order) against opponent 'y'."""
    rows = []
    for index, ((first, second), label) in enumerate(zip(picks, labels, strict=True)):
        classification = "failed" if first is None or second is None else CLASS[(first, second)]
        rows.append({
            "dataset_id": "d", "study": study, "judge": judge, "repetition": 1, "item_id": f"i{index:03d}",
            "candidate": "x", "opponent": "y", "classification": classification, "protocol": "pairwise-swap",
            "provider": "recorded", "model": model or judge, "simulated": False, "first_pick": first,
            "second_pick": second, "first_failure": None if first else "failed",
            "second_failure": None if second else "failed", "label": label, "label_source": "human",
            "label_group": "gold", "candidate_chars": 200, "opponent_chars": 100,
            "cost_usd": 2 * cost if cost is not None else 0.0, "cost_calls": 2 if cost is not None else 0,
            "input_tokens": 0, "output_tokens": 0, "token_calls": 0, "latency_ms": 0.0, "latency_calls": 0,
            "input_chars": 4000, "output_chars": 400,
        })
    return pd.DataFrame(rows)


def test_swap_averaged_pick_is_the_agreed_verdict_else_a_tie() -> None:
    first = pd.Series(["x", "x", None, None, "y"])
    second = pd.Series(["x", "y", "x", None, "y"])
    assert swap_averaged_pick(first, second).tolist() == ["x", "tie", "tie", "tie", "y"]


def test_counts_credit_and_cost_bases() -> None:
    picks = [("x", "x"), ("x", "y"), ("y", "x"), (None, None), ("y", "y")]
    labels = ["x", "x", "x", "x", None]
    rows = scorecard_rows(pd.concat([_pairs("a", "s", picks, labels, cost=0.01),
                                     _pairs("gpt-4-0613", "s", picks, labels),
                                     _pairs("b", "s", picks, labels)]),
                          {"gpt-4-0613": (30.0, 60.0)}, resamples=100)
    a, b, gpt = rows
    assert (a.correct_first_order, a.correct_swapped_order, a.correct_both_orders) == (2, 2, 1)
    assert a.consistent == 3 and a.both_orders_failed == 1  # a pair with no verdict in either order counts, as LLMBar's
    assert a.labelled_pairs == 4 and a.accuracy is not None
    assert a.accuracy.events == 1 + 0.5 + 0.5 + 0.5  # agreed right; flips and the failed pair are ties
    assert a.flip_rate.events == 2 and a.flip_rate.pairs == 4 and a.first_slot_share.events == 1
    assert a.longer_answer_share.events == 1 and a.longer_answer_share.pairs == 2  # consistent decisive pairs
    assert a.parse_failures == 2
    assert a.cost_per_1000.basis == "recorded" and round(a.cost_per_1000.value or 0, 6) == 10.0
    assert gpt.cost_per_1000.basis == "estimated" and "characters / 4" in gpt.cost_per_1000.note
    # per pair: 4,000 characters read and 400 written over its two calls, 4 characters a token
    assert round(gpt.cost_per_1000.value or 0, 4) == round((4000 / 4 * 30 + 400 / 4 * 60) / 1e6 / 2 * 1000, 4)
    assert b.cost_per_1000.value is None and "no price for b" in b.cost_per_1000.note


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([("x", "x"), ("y", "y"), ("x", "y"), ("y", "x"), (None, "x"), (None, None)]),
                min_size=1, max_size=30),
       st.lists(st.sampled_from(["x", "y", None]), min_size=30, max_size=30))
def test_counts_match_the_authors_definitions(picks: list, labels: list) -> None:
    labels = labels[:len(picks)]
    (row,) = scorecard_rows(_pairs("a", "s", picks, labels), resamples=20)
    right = [(f == lab, s == lab) for (f, s), lab in zip(picks, labels, strict=True) if lab is not None]
    assert row.correct_first_order == sum(f for f, _ in right)
    assert row.correct_swapped_order == sum(s for _, s in right)
    assert row.correct_both_orders == sum(f and s for f, s in right)
    assert row.consistent == sum(f == s for f, s in picks)
    if row.accuracy is not None:
        assert row.accuracy.low <= row.accuracy.estimate + 1e-12 and row.accuracy.estimate <= row.accuracy.high + 1e-12


def _card(frames: list[pd.DataFrame], prices: dict | None = None):
    pairs = pd.concat(frames, ignore_index=True)
    rows = scorecard_rows(pairs, prices, resamples=300)
    keys = [(r.judge, r.study, r.protocol) for r in rows]
    differences = paired_differences(rows, item_credits(pairs, keys), resamples=300)
    return rows, differences, recommend(rows, differences, ["elsewhere"])


def test_a_clearly_worse_row_is_flagged_and_the_cheapest_good_row_named() -> None:
    labels = ["x"] * 60
    good = [("x", "x")] * 57 + [("y", "y")] * 3
    bad = [("y", "y")] * 40 + [("x", "x")] * 20
    rows, differences, rec = _card([_pairs("best", "s", good, labels, cost=0.02),
                                    _pairs("cheap", "s", good, labels, cost=0.001),
                                    _pairs("poor", "s", bad, labels, cost=0.0001)])
    assert differences[("poor", "s", "pairwise-swap")].clearly_worse
    assert not differences[("cheap", "s", "pairwise-swap")].clearly_worse
    assert differences[("poor", "s", "pairwise-swap")].shared_pairs == 60
    assert rec.judge == "cheap" and "Why cheap [s]" in rec.sentence and "1 of the 2" in rec.sentence


def test_nothing_clearly_better_names_no_winner() -> None:
    labels = ["x"] * 30
    rows, differences, rec = _card([_pairs("a", "s", [("x", "x")] * 20 + [("y", "y")] * 10, labels),
                                    _pairs("b", "s", [("x", "x")] * 19 + [("y", "y")] * 11, labels)])
    assert rec.judge is None and "no configuration is clearly more accurate" in rec.sentence


def test_no_labels_says_so_and_points_elsewhere() -> None:
    rows, differences, rec = _card([_pairs("a", "s", [("x", "x")] * 5, [None] * 5)])
    assert rows[0].accuracy is None and differences == {}
    assert rec.judge is None and "carry no labels" in rec.sentence and "elsewhere" in rec.sentence


def test_flip_rate_is_the_pairwise_pages(bundled_db_master: Path) -> None:
    with Store(bundled_db_master).reader() as reader:
        card = judge_scorecard(reader, "mtbench", resamples=2000)
        page = {(m.study, m.judge): m for m in pairwise_metrics(reader, "mtbench", study="full")}
    for row in card.rows:
        if row.study != "full":
            continue
        m = page[("full", row.judge)]
        assert (row.flip_rate.events, row.flip_rate.pairs, row.flip_rate.items) == (
            m.primacy + m.recency, m.classified_pairs, m.items)
        assert np.allclose([row.flip_rate.estimate, row.flip_rate.low, row.flip_rate.high],
                           [m.flip_rate, m.flip_rate_decision_low, m.flip_rate_decision_high])
        assert row.flip_rate.method == m.flip_rate_decision_method
        assert np.allclose([row.first_slot_share.low, row.first_slot_share.high],
                           [m.first_slot_share_decision_low, m.first_slot_share_decision_high])


def test_one_configuration_is_not_called_a_winner() -> None:
    rows, differences, rec = _card([_pairs("a", "s", [("x", "x")] * 25 + [("x", "y")] * 5, ["x"] * 30)])
    assert differences == {} and rec.judge is None
    assert "Only one judge configuration" in rec.sentence and "Swap-average it" in rec.sentence


def test_paired_differences_honour_resamples_and_seed() -> None:
    labels = ["x"] * 60
    pairs = pd.concat([_pairs("best", "s", [("x", "x")] * 50 + [("y", "y")] * 5 + [("x", "y")] * 5, labels),
                       _pairs("other", "s", [("x", "x")] * 40 + [("y", "y")] * 12 + [("y", "x")] * 8, labels)],
                      ignore_index=True)
    rows = scorecard_rows(pairs, resamples=50)
    credits = item_credits(pairs, [(r.judge, r.study, r.protocol) for r in rows])
    key = ("other", "s", "pairwise-swap")

    def interval(resamples: int, seed: int) -> tuple[float, float, float]:
        diff = paired_differences(rows, credits, resamples=resamples, seed=seed)[key]
        assert diff.method == "paired-item-bootstrap-t" and diff.degenerate_reason is None
        return diff.low, diff.high, diff.p_value

    assert interval(400, 0) == interval(400, 0)  # one seed, one answer
    assert interval(400, 0) != interval(400, 1) and interval(400, 0) != interval(800, 0)
    low, high, _ = interval(400, 0)
    assert low < paired_differences(rows, credits, resamples=400)[key].difference < high
