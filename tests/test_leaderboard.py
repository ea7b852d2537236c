"""Leaderboard: win rates, Bradley-Terry strengths, bootstrap intervals over items and ranking-safety flags."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from judgebias_core.analyses.judges import leaderboard, load_outcomes
from judgebias_core.cli import main
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.leaderboard import (
    _bt_fit,
    _bt_fit_resamples,
    flip_rate_bound,
    item_score_counts_from_outcomes,
    leaderboard_from_outcomes,
    pair_scores,
)
from judgebias_core.metrics.pairwise_intervals import item_bootstrap_rate
from judgebias_core.stats.clustered import ClusteredRate, clustered_rate
from judgebias_core.store.agreement_queries import item_score_counts
from tests.store_helpers import read


def _outcome(item: str, candidate: str, opponent: str, classification: str, winner: str | None) -> dict:
    return {"item_id": item, "candidate": candidate, "opponent": opponent, "classification": classification,
            "winner": winner}


def star_case(inconsistent: bool = True) -> pd.DataFrame:
    """c1 and c2 each against the baseline on four items."""
    c1_last = ("primacy", None) if inconsistent else ("consistent", "c1")
    c2 = [("consistent", "c2"), ("consistent", "base"), ("consistent", "base"), ("consistent", "tie")]
    if not inconsistent:
        c2 = [("consistent", "base")] * 4
    rows = [_outcome(f"i{k}", "c1", "base", "consistent", "c1") for k in range(3)]
    rows.append(_outcome("i3", "c1", "base", *c1_last))
    rows += [_outcome(f"i{k}", "c2", "base", cls, winner) for k, (cls, winner) in enumerate(c2)]
    rows.append(_outcome("i0", "c3", "base", "failed", None))
    return pd.DataFrame(rows)


def test_star_design_strength_is_the_log_odds_against_the_baseline() -> None:
    board = leaderboard_from_outcomes(star_case(), "toy", ["s"], "toy-judge", resamples=300)
    rows = {row.candidate: row for row in board.rows}
    assert board.reference == "base" and board.baseline_design
    assert (board.pairs, board.failed_pairs, board.items) == (8, 1, 4)
    assert rows["c1"].win_rate == pytest.approx(3.5 / 4)  # the inconsistent pair counts as a tie
    assert rows["c2"].win_rate == pytest.approx(1.5 / 4)
    assert rows["c1"].strength == pytest.approx(np.log(7), abs=1e-5)
    assert rows["c2"].strength == pytest.approx(np.log(0.375 / 0.625), abs=1e-5)
    assert (rows["c1"].wins, rows["c1"].ties, rows["c1"].losses) == (3, 1, 0)
    assert [row.candidate for row in board.rows] == ["c1", "base", "c2"]
    assert rows["base"].is_reference and rows["base"].win_rate == 0.5 and rows["base"].strength == 0
    for row in board.rows:
        assert row.win_rate_ci_low <= row.win_rate <= row.win_rate_ci_high


def _clustered_flip_bound(outcomes: pd.DataFrame) -> ClusteredRate:
    kept = outcomes[outcomes["classification"] != "failed"]
    per_item = kept.assign(flip=kept["classification"] != "consistent").groupby("item_id")["flip"].agg(["sum", "size"])
    return clustered_rate(per_item["sum"].to_numpy(), per_item["size"].to_numpy())


def test_ranking_safety_flags_follow_the_flip_rate_bound() -> None:
    flipping = leaderboard_from_outcomes(star_case(), "toy", ["s"], "toy-judge", resamples=100)
    flips, bound = flip_rate_bound(star_case())
    assert flips == pytest.approx(1 / 8)
    expected = _clustered_flip_bound(star_case())
    # the decision bound is the item-clustered one, at least as wide as Wilson on the pairs here
    assert bound == pytest.approx(expected.high) and bound >= proportion_confint(1, 8, method="wilson")[1] - 1e-12
    assert all(row.position_artefact for row in flipping.rows)  # gaps 0.375 and 0.125 are under ~0.5
    steady = leaderboard_from_outcomes(star_case(inconsistent=False), "toy", ["s"], "toy-judge", resamples=100)
    zero = _clustered_flip_bound(star_case(inconsistent=False))
    assert zero.method == "exact-zero-events" and zero.degenerate
    assert steady.flip_rate == 0 and steady.flip_rate_ci_high == pytest.approx(zero.high)
    assert not any(row.position_artefact for row in steady.rows)  # gaps of 0.5 exceed the exact bound ~0.37


def test_round_robin_strengths_solve_the_bradley_terry_equations() -> None:
    rng = np.random.default_rng(3)
    truth = {"a": 1.0, "b": 0.0, "c": -0.7}
    rows = []
    for k in range(60):
        for x, y in (("a", "b"), ("b", "c"), ("a", "c")):
            won = rng.random() < 1 / (1 + np.exp(truth[y] - truth[x]))
            rows.append(_outcome(f"i{k}", x, y, "consistent", x if won else y))
    outcomes = pd.DataFrame(rows)
    board = leaderboard_from_outcomes(outcomes, "toy", ["s"], "toy-judge", resamples=200)
    assert not board.baseline_design
    strength = {row.candidate: row.strength for row in board.rows}
    strength[board.reference] = 0.0
    # At the maximum likelihood each player's observed wins equal its expected wins.
    for player in truth:
        mine = outcomes[(outcomes["candidate"] == player) | (outcomes["opponent"] == player)]
        other = np.where(mine["candidate"] == player, mine["opponent"], mine["candidate"])
        expected = sum(1 / (1 + np.exp(strength[o] - strength[player])) for o in other)
        assert (mine["winner"] == player).sum() == pytest.approx(expected, abs=1e-4)
    for row in board.rows:
        if not row.is_reference:
            assert row.strength_ci_low <= row.strength <= row.strength_ci_high


def baseline_case(items: int = 40, seed: int = 4) -> pd.DataFrame:
    """c1 and c2 against the baseline on every item, winners drawn at random (some ties and flips)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(items):
        for candidate in ("c1", "c2"):
            kind = rng.choice(["win", "loss", "tie", "primacy"], p=[0.45, 0.3, 0.1, 0.15])
            winner = {"win": candidate, "loss": "base", "tie": "tie", "primacy": None}[kind]
            rows.append(_outcome(f"i{k:02d}", candidate, "base", "primacy" if kind == "primacy" else "consistent",
                                 winner))
    return pd.DataFrame(rows)


def test_bootstrap_is_reproducible_by_seed() -> None:
    first = leaderboard_from_outcomes(baseline_case(), "toy", ["s"], "j", resamples=200, seed=0)
    again = leaderboard_from_outcomes(baseline_case(), "toy", ["s"], "j", resamples=200, seed=0)
    other = leaderboard_from_outcomes(baseline_case(), "toy", ["s"], "j", resamples=200, seed=1)
    pd.testing.assert_frame_equal(first.frame(), again.frame())
    assert [r.win_rate for r in first.rows] == [r.win_rate for r in other.rows]
    intervals = ["win_rate_ci_low", "win_rate_ci_high", "strength_ci_low", "strength_ci_high"]
    assert not first.frame()[intervals].equals(other.frame()[intervals])


def test_mtbench_gpt4_leaderboard(bundled_db_master: Path) -> None:
    board = read(leaderboard, bundled_db_master, "mtbench", ["full"], "gpt-4-0613", resamples=500)
    from judgebias_core.analyses.pairwise import pairwise_metrics  # noqa: PLC0415 - cross-check only

    [reference] = read(pairwise_metrics, bundled_db_master, "mtbench", ["gpt-4-0613"], "full")
    # the ranking-safety bound is the item-clustered decision bound the pairwise metrics and the gate use
    assert board.flip_rate_ci_high == pytest.approx(reference.flip_rate_decision_high)
    assert reference.flip_rate_decision_method == "item-bootstrap"
    assert reference.flip_rate_ci_high < board.flip_rate_ci_high  # Wilson on the pairs is narrower
    assert (board.pairs, len(board.rows), board.reference) == (2400, 31, "vicuna-13b-v1.3")
    assert board.rows[0].candidate == "gpt-4"
    ranks = [row.rank_win_rate for row in board.rows]
    assert ranks == list(range(1, 32))
    for upper, lower in zip(board.rows, board.rows[1:], strict=False):
        assert upper.win_rate >= lower.win_rate
        assert upper.gap_to_next == pytest.approx(upper.win_rate - lower.win_rate)
        if upper.gap_to_next < board.flip_rate_ci_high:
            assert upper.position_artefact and lower.position_artefact


def test_ensemble_leaderboard_and_cli(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = read(leaderboard, bundled_db_master, "devbench", ["full"], ENSEMBLE_JUDGE, resamples=200)
    assert board.judge == ENSEMBLE_JUDGE and board.pairs > 0
    capsys.readouterr()
    assert main(["--db", str(bundled_db_master), "metrics", "leaderboard", "--dataset", "autoj", "--judge",
                 "auto-j-13b", "--resamples", "200", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["pairs"] == 1392 and payload["resamples"] == 200
    assert {row["candidate"] for row in payload["rows"]} == {"response_1", "response_2"}


outcome_kind = st.sampled_from(["win", "loss", "tie", "primacy", "recency", "failed"])


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["c1", "c2", "c3"]), outcome_kind), min_size=3, max_size=40))
def test_baseline_design_properties(draws: list[tuple[str, str]]) -> None:
    winner = {"win": lambda c: c, "loss": lambda c: "base", "tie": lambda c: "tie"}
    rows = [_outcome(f"i{k}", candidate, "base", "consistent" if kind in winner else kind,
                     winner[kind](candidate) if kind in winner else None)
            for k, (candidate, kind) in enumerate(draws)]
    outcomes = pd.DataFrame(rows)
    if (outcomes["classification"] == "failed").all():
        return
    board = leaderboard_from_outcomes(outcomes, "toy", ["s"], "j", resamples=20)
    strengths = [row.strength for row in board.rows]
    for row in board.rows:
        assert 0 <= row.win_rate <= 1 and row.wins + row.ties + row.losses == row.pairs
    # win rate and Bradley-Terry strength order the candidates the same way (log-odds is monotone)
    assert strengths == sorted(strengths, reverse=True)
    assert 0 <= board.flip_rate <= board.flip_rate_ci_high <= 1


def test_batched_bootstrap_fit_matches_statsmodels() -> None:
    rng = np.random.default_rng(5)
    design = np.array([[1, 0], [0, 1], [1, -1], [1, 0], [0, -1]], dtype=float)
    totals = rng.integers(5, 40, size=5).astype(float)
    wins = np.floor(totals * rng.uniform(0.2, 0.8, size=5)) + 0.5
    reference = _bt_fit(design, wins, totals)
    batched = _bt_fit_resamples(design, np.vstack([wins, wins]), np.vstack([totals, totals]), np.zeros(2))
    np.testing.assert_allclose(batched, np.vstack([reference, reference]), atol=1e-6)


def test_win_rate_interval_uses_the_shared_item_picks() -> None:
    """A baseline-design win-rate interval is the flip-rate bootstrap's interval of the same per-item sums."""
    outcomes = baseline_case()
    board = leaderboard_from_outcomes(outcomes, "toy", ["s"], "j", resamples=500, seed=0)
    scores = pair_scores(outcomes)
    items = sorted(scores["item_id"].unique())
    for candidate in ("c1", "c2"):
        mine = scores[scores["candidate"] == candidate].groupby("item_id")["score"].agg(["sum", "size"])
        mine = mine.reindex(items, fill_value=0)
        expected = item_bootstrap_rate(mine["sum"].to_numpy(), mine["size"].to_numpy(), resamples=500, seed=0)
        [row] = [row for row in board.rows if row.candidate == candidate]
        assert (row.win_rate_ci_low, row.win_rate_ci_high) == pytest.approx((expected.low, expected.high))


@pytest.mark.parametrize(("dataset", "judge"), [("mtbench", "gemini-pro"), ("devbench", "gpt-3.5-turbo-1106"),
                                                ("autoj", "auto-j-13b")])
def test_store_counts_match_the_outcome_rows(bundled_db_master: Path, dataset: str, judge: str) -> None:
    """The per-item counts the store aggregates give the leaderboard the classified pairs give."""
    outcomes = read(load_outcomes, bundled_db_master, dataset, ["full"], judge)
    stored = read(item_score_counts, bundled_db_master, dataset, ["full"], judge)
    pd.testing.assert_frame_equal(stored, item_score_counts_from_outcomes(outcomes), check_dtype=False)
    from_store = read(leaderboard, bundled_db_master, dataset, ["full"], judge, resamples=300)
    from_rows = leaderboard_from_outcomes(outcomes, dataset, ["full"], judge, resamples=300)
    pd.testing.assert_frame_equal(from_store.frame(), from_rows.frame())
    assert (from_store.failed_pairs, from_store.items) == (from_rows.failed_pairs, from_rows.items)
    assert from_store.failed_pairs == int((outcomes["classification"] == "failed").sum())
