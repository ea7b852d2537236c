"""`metrics pairwise` (corrected position tests, both PF forms) and `metrics pairwise-compare` on the bundled data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.cli import main
from judgebias_core.metrics.pairwise_compare import compare_from_shared
from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.paired import ItemCounts, rate_difference
from judgebias_core.store.handle import Store
from judgebias_core.store.pairwise_queries import shared_flips
from tests.test_metrics_agreement import run_cli


def test_metrics_pairwise_corrects_the_rows_printed(bundled_db_master: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_cli(capsys, bundled_db_master, "metrics", "pairwise", "--dataset", "mtbench", "--study", "full")
    assert {r["family_size"] for r in rows} == {3} and {r["correction"] for r in rows} == {"holm"}
    gpt4 = next(r for r in rows if r["judge"] == "gpt-4-0613")
    assert gpt4["position_p_corrected"] == pytest.approx(gpt4["position_p"])  # the largest of 3: Holm keeps it
    assert "pairs assumed independent" in gpt4["iid_tests_note"]
    assert gpt4["preference_fairness"] == gpt4["preference_fairness_scaled"] and gpt4["units"] == 240
    bh = run_cli(capsys, bundled_db_master, "metrics", "pairwise", "--dataset", "mtbench", "--study", "full",
                 "--correction", "bh")
    assert {r["correction"] for r in bh} == {"fdr_bh"}
    capsys.readouterr()
    assert main(["--db", str(bundled_db_master), "metrics", "pairwise", "--dataset", "mtbench", "--study",
                 "full"]) == 0
    text = capsys.readouterr().out
    assert "binomial_p" not in text.split("\n")[0] and "Holm correction over 3 tests" in text


def test_unscoped_family_is_stated_beside_each_datasets_own(bundled_db_master: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 22: with no --dataset the Holm family spans every dataset (466 tests with LLMBar's studies); each row
    says so, and also gives the family and corrected p of its own dataset, as the Pairwise bias page corrects."""
    rows = run_cli(capsys, bundled_db_master, "metrics", "pairwise")
    assert len({r["family_size"] for r in rows}) == 1 and rows[0]["family_size"] > 400
    mtbench = [r for r in rows if r["dataset"] == "mtbench"]
    assert {r["dataset_family_size"] for r in mtbench} == {57}  # the page's default view: 30 rows, 27 floors
    scoped = run_cli(capsys, bundled_db_master, "metrics", "pairwise", "--dataset", "mtbench")
    by_row = {(r["study"], r["judge"], r["repetition"]): r for r in scoped}
    for row in mtbench:
        same = by_row[(row["study"], row["judge"], row["repetition"])]
        assert row["position_p_corrected_in_dataset"] == pytest.approx(same["position_p_corrected"], nan_ok=True)
        assert row["position_p_corrected_in_dataset"] <= row["position_p_corrected"] + 1e-12
    assert main(["--db", str(bundled_db_master), "metrics", "pairwise"]) == 0
    text = capsys.readouterr().out
    assert f"Holm correction over {rows[0]['family_size']} tests" in text and "mtbench 57" in text


def test_pairwise_compare_is_the_paired_difference_on_shared_pairs(bundled_db_master: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    result = run_cli(capsys, bundled_db_master, "metrics", "pairwise-compare", "--dataset", "mtbench",
                     "--judge-a", "gpt-4-0613", "--judge-b", "gemini-pro")
    assert (result["shared_pairs"], result["items"], result["flips_a"]) == (2387, 80, 442)
    assert result["method"] == "cluster-robust-t" and result["low"] < result["difference"] < result["high"]
    with Store(bundled_db_master).reader() as reader:
        shared = shared_flips(reader, "mtbench", "full", "gpt-4-0613", "gemini-pro")
    items = shared["item_id"].tolist()
    direct = rate_difference(ItemCounts.of(items, shared["flips_a"], shared["shared"]),
                             ItemCounts.of(items, shared["flips_b"], shared["shared"]))
    assert (result["low"], result["high"], result["p_value"]) == pytest.approx((direct.low, direct.high,
                                                                                direct.p_value))
    assert main(["--db", str(bundled_db_master), "metrics", "pairwise-compare", "--dataset", "mtbench",
                 "--judge-a", "gpt-4-0613", "--judge-b", "gpt-4-0613"]) == 2


def test_judges_without_shared_pairs_are_said_so() -> None:
    import pandas as pd

    empty = pd.DataFrame(columns=["item_id", "shared", "flips_a", "flips_b"])
    comparison = compare_from_shared(empty, "d", "s", "a", "b")
    assert comparison.degenerate and comparison.shared_pairs == 0 and "nothing to compare" in comparison.sentence


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(1, 6)), min_size=1, max_size=40))
def test_half_wins_keep_their_exact_rate(items: list[tuple[int, int, int]]) -> None:
    """Win rates count a tie as half a win: the clustered rate keeps the fractional sum and contains it."""
    wins = np.array([min(w, n) + min(t, n - min(w, n)) / 2 for w, t, n in items])
    trials = np.array([n for _, _, n in items], dtype=float)
    rate = clustered_rate(wins, trials, resamples=200)
    assert rate.rate == pytest.approx(wins.sum() / trials.sum())
    if not rate.degenerate:
        assert rate.low <= rate.rate <= rate.high and rate.high > rate.low


def test_pairwise_rows_nest_the_flip_rate_estimate(bundled_db_master: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 23: the decision interval as a nested Estimate beside the flat fields, which keep their meaning; the
    repetition study (24 items) carries the small-sample warning in both."""
    rows = run_cli(capsys, bundled_db_master, "metrics", "pairwise", "--dataset", "mtbench")
    for row in rows:
        nested = row["flip_rate_estimate"]
        assert (nested["estimate"], nested["low"], nested["high"], nested["method"]) == (
            row["flip_rate"], row["flip_rate_decision_low"], row["flip_rate_decision_high"],
            row["flip_rate_decision_method"])
        assert (nested["items"], nested["units"], nested["confidence"]) == (row["items"], row["classified_pairs"], 0.95)
        assert nested["warning"] == row["flip_rate_decision_warning"]
        assert (row["items"] < 30) == (row["flip_rate_decision_warning"] is not None) == (
            row["position_warning"] is not None and "only" in row["position_warning"])
    assert any(row["items"] < 30 for row in rows) and any(row["items"] >= 30 for row in rows)
