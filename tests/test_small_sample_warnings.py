"""Issue 23: every interval resting on fewer than 30 items, or on fewer than 5 items with any event, carries the one
warning of ``stats.estimate.small_sample_warning`` (paired differences, kappa, correlations, the position test,
scorecard rates, the leaderboard), and none from 30 items with events spread over items."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.analyses.scorecard import judge_scorecard, scorecard_json
from judgebias_core.metrics.calibration import agreement_table
from judgebias_core.metrics.leaderboard import leaderboard_from_outcomes
from judgebias_core.metrics.rubric_correlation import correlation_difference, correlation_estimate
from judgebias_core.metrics.scorecard import scorecard_rows
from judgebias_core.stats.agreement import cohens_kappa
from judgebias_core.stats.estimate import small_sample_warning
from judgebias_core.stats.paired import ItemCounts, rate_difference
from judgebias_core.stats.position_test import position_test_from_item_sums
from judgebias_core.stats.settings import FEW_EVENT_ITEMS, FEW_ITEMS
from judgebias_core.store.handle import Store
from tests.test_leaderboard import _outcome
from tests.test_scorecard_metrics import _pairs


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 80), st.integers(0, 80))
def test_the_helper_warns_exactly_below_30_items_or_5_event_items(items: int, event_items: int) -> None:
    event_items = min(event_items, items)
    warning = small_sample_warning(items, event_items)
    assert (warning is not None) == (items < FEW_ITEMS or event_items < FEW_EVENT_ITEMS)
    if items < FEW_ITEMS:
        assert warning is not None and f"only {items} item" in warning


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 60), st.integers(0, 1_000))
def test_paired_differences_carry_the_warning(items: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ids = [f"i{i}" for i in range(items)]
    trials = np.full(items, 10)
    a = ItemCounts.of(ids, rng.binomial(10, 0.3, items), trials)
    b = ItemCounts.of(ids, rng.binomial(10, 0.2, items), trials)
    event_items = int(np.sum((np.array(a.events) > 0) | (np.array(b.events) > 0)))
    assert rate_difference(a, b).warning == small_sample_warning(items, event_items, event_word="event")


def _labels(items: int, per_item: int, seed: int) -> tuple[list[int], list[int], list[str]]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, items * per_item)
    b = np.where(rng.random(items * per_item) < 0.7, a, rng.integers(0, 3, items * per_item))
    return a.tolist(), b.tolist(), [f"i{i // per_item}" for i in range(items * per_item)]


def test_kappa_and_agreement_tables_warn_below_30_items() -> None:
    few = cohens_kappa(*_labels(20, 5, 1), resamples=200)
    enough = cohens_kappa(*_labels(40, 5, 1), resamples=200)
    assert few.warning is not None and "only 20 items" in few.warning and enough.warning is None
    a, b, ids = _labels(12, 3, 2)
    table = agreement_table(pd.Series(a), pd.Series(b), [0, 1, 2], pd.Series(ids))
    assert table.interval_warning is not None and "only 12 items" in table.interval_warning


def test_correlations_warn_below_30_items() -> None:
    rng = np.random.default_rng(3)
    labels = rng.normal(size=25)
    scores, other = labels + rng.normal(size=25), labels + rng.normal(size=25)
    assert "only 25 items" in (correlation_estimate(scores, labels, resamples=200).warning or "")
    assert "only 25 items" in (correlation_difference(scores, other, labels, resamples=200).warning or "")
    big = rng.normal(size=40)
    assert correlation_estimate(big + rng.normal(size=40), big, resamples=200).warning is None


def test_the_position_test_counts_items_with_a_position_dependent_verdict() -> None:
    sizes = np.full(40, 4.0)
    squares = np.zeros(40)
    squares[:3] = 1.0  # only three items have any position-dependent verdict
    sums = np.where(squares > 0, 1.0, 0.0)
    result = position_test_from_item_sums(sums, squares, sizes, resamples=200)
    assert result.warning is not None and "3 items with any position-dependent verdict" in result.warning


def test_scorecard_rates_and_the_leaderboard_warn_on_few_items() -> None:
    picks = [("x", "x"), ("y", "x"), ("y", "y"), ("x", "y")] * 5  # 20 items
    row = scorecard_rows(_pairs("a", "s", picks, ["x"] * 20), resamples=200)[0]
    assert row.accuracy is not None and "only 20 items" in (row.accuracy.warning or "")
    assert row.accuracy.as_estimate().warning == row.accuracy.warning
    assert row.accuracy.as_estimate().units == row.accuracy.pairs == 20
    rows = [_outcome(f"i{k}", "c1", "base", "consistent", "c1" if k < 14 else "base") for k in range(20)]
    rows += [_outcome(f"i{k}", "c2", "base", "primacy" if k < 6 else "consistent", None if k < 6 else "c2")
             for k in range(20)]
    outcomes = pd.DataFrame(rows)
    board = leaderboard_from_outcomes(outcomes, "d", ["s"], "judge", resamples=200)
    assert board.items == 20 and "only 20 items" in (board.interval_warning or "")


def test_scorecard_json_nests_the_accuracy_estimate(bundled_db_master: Path) -> None:
    with Store(bundled_db_master).reader() as reader:
        payload = scorecard_json(judge_scorecard(reader, "llmbar-natural", resamples=300))
    labelled = [row for row in payload["rows"] if row["accuracy"] is not None]
    assert labelled
    for row in labelled:
        nested, flat = row["accuracy_estimate"], row["accuracy"]
        assert (nested["estimate"], nested["low"], nested["high"], nested["method"]) == (
            flat["estimate"], flat["low"], flat["high"], flat["method"])
        assert (nested["items"], nested["units"], nested["warning"]) == (flat["items"], flat["pairs"], flat["warning"])
