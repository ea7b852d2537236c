"""Leaderboard: win rates, Bradley-Terry strengths, bootstrap intervals over items and ranking-safety flags."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize
from statsmodels.stats.proportion import proportion_confint

from judgebias_core.analyses.judges import leaderboard, load_outcomes
from judgebias_core.cli import main
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.leaderboard import (
    flip_rate_bound,
    item_score_counts_from_outcomes,
    leaderboard_from_counts,
    leaderboard_from_outcomes,
    pair_scores,
)
from judgebias_core.metrics.leaderboard_fit import _bt_design, _bt_fit, _bt_fit_resamples, _HessianCells
from judgebias_core.metrics.pairwise_intervals import item_bootstrap_rate
from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.store.agreement_queries import item_score_counts
from tests.store_helpers import read


def _outcome(item: str, candidate: str, opponent: str, classification: str, winner: str | None) -> dict:
    """A pair as the store keeps it; the original call shows the opponent first, the swapped call the candidate."""
    original, swapped = {"primacy": ("A", "A"), "recency": ("B", "B"), "failed": (None, None)}.get(
        classification, {candidate: ("B", "A"), opponent: ("A", "B")}.get(winner or "", ("C", "C")))
    return {"item_id": item, "candidate": candidate, "opponent": opponent, "classification": classification,
            "winner": winner, "verdict_original": original, "verdict_swapped": swapped}


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
    # In a star design the penalised likelihood splits per candidate: w - n logistic(b) - 2 ridge b = 0, a root
    # between 0 and the unpenalised log-odds (the penalty pulls towards 0).
    for candidate, share in (("c1", 3.5 / 4), ("c2", 1.5 / 4)):
        log_odds = np.log(share / (1 - share))
        root = brentq(lambda b, w=4 * share: w - 4 / (1 + np.exp(-b)) - 2 * board.ridge * b, 0, log_odds)
        assert rows[candidate].strength == pytest.approx(root, abs=1e-8)
        assert 0 < abs(rows[candidate].strength) < abs(log_odds)
    assert (rows["c1"].wins, rows["c1"].ties, rows["c1"].losses) == (3, 1, 0)
    assert [row.candidate for row in board.rows] == ["c1", "base", "c2"]
    assert rows["base"].is_reference and rows["base"].win_rate == 0.5 and rows["base"].strength == 0
    for row in board.rows:
        assert row.win_rate_ci_low <= row.win_rate <= row.win_rate_ci_high


def test_ranking_safety_flags_pairs_whose_order_changes_with_presentation() -> None:
    """Known answer: c1 wins only when shown first, so alone each slot reorders it against both neighbours."""
    rows = [_outcome(f"i{k}", "c1", "base", "primacy", None) for k in range(9)]
    rows += [_outcome("i9", "c1", "base", "consistent", "c1")]
    rows += [_outcome(f"i{k}", "c2", "base", "consistent", "c2" if k < 6 else "base") for k in range(10)]
    board = leaderboard_from_outcomes(pd.DataFrame(rows), "toy", ["s"], "j", resamples=200)
    by = {row.candidate: row for row in board.rows}
    assert [row.candidate for row in board.rows] == ["c2", "c1", "base"]
    assert (by["c1"].win_rate_first_slot, by["c1"].win_rate_second_slot) == (1.0, 0.1)
    assert (by["c2"].win_rate_first_slot, by["c2"].win_rate_second_slot) == (0.6, 0.6)
    assert (by["c1"].rank_first_slot, by["c1"].rank_second_slot) == (1, 3)
    assert by["c2"].order_changes_with_presentation and by["c1"].order_changes_with_presentation
    # a flag belongs to the pair with the next one down: the last row has none
    assert [row.position_artefact for row in board.rows] == [True, True, False]
    assert "one presentation alone" in by["c2"].unsure_reason and by["base"].unsure_reason == ""
    assert (board.neighbour_pairs, board.flagged_pairs, board.pairs_changing_with_presentation) == (2, 2, 2)
    flips, bound = flip_rate_bound(pd.DataFrame(rows))
    assert flips == pytest.approx(9 / 20)
    assert bound == pytest.approx(clustered_rate(np.r_[np.ones(9), 0.0], np.full(10, 2.0)).high)  # the gate's bound
    assert bound >= proportion_confint(9, 20, method="wilson")[1] - 1e-12  # 10 items: Wilson on the effective n
    expected = clustered_rate(np.r_[np.ones(9), 0.0], np.full(10, 2.0), resamples=200, seed=0)
    assert board.flip_rate_clustered_high == pytest.approx(expected.high)
    assert board.top_two_within_flip_bound  # gap 0.05 under the clustered bound

    steady = [_outcome(f"i{k}", "c1", "base", "consistent", "c1") for k in range(10)]
    steady += [_outcome(f"i{k}", "c2", "base", "consistent", "base") for k in range(10)]
    board = leaderboard_from_outcomes(pd.DataFrame(steady), "toy", ["s"], "j", resamples=200)
    assert not any(row.position_artefact for row in board.rows)
    assert [row.order_holds_share for row in board.rows[:2]] == [1.0, 1.0]
    assert board.flip_rate == 0 and not board.top_two_within_flip_bound


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
    # At the penalised maximum each free player's observed minus expected wins is the penalty's pull, 2 ridge b;
    # the residuals of all players sum to 0.
    residuals = {}
    for player in truth:
        mine = outcomes[(outcomes["candidate"] == player) | (outcomes["opponent"] == player)]
        other = np.where(mine["candidate"] == player, mine["opponent"], mine["candidate"])
        expected = sum(1 / (1 + np.exp(strength[o] - strength[player])) for o in other)
        residuals[player] = (mine["winner"] == player).sum() - expected
        if player != board.reference:
            assert residuals[player] == pytest.approx(2 * board.ridge * strength[player], abs=1e-6)
    assert sum(residuals.values()) == pytest.approx(0, abs=1e-6)
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
    from judgebias_core.analyses.pairwise import pairwise_metrics

    [reference] = read(pairwise_metrics, bundled_db_master, "mtbench", ["gpt-4-0613"], "full")
    # the ranking-safety bound is the item-clustered decision bound the pairwise metrics and the gate use
    assert board.flip_rate_ci_high == pytest.approx(reference.flip_rate_decision_high)
    assert reference.flip_rate_decision_method == "studentized-item-bootstrap"
    assert reference.flip_rate_ci_high < board.flip_rate_ci_high  # Wilson on the pairs is narrower
    assert (board.pairs, len(board.rows), board.reference) == (2400, 31, "vicuna-13b-v1.3")
    assert board.rows[0].candidate == "gpt-4"
    ranks = [row.rank_win_rate for row in board.rows]
    assert ranks == list(range(1, 32))
    for upper, lower in zip(board.rows, board.rows[1:], strict=False):
        assert upper.win_rate >= lower.win_rate
        assert upper.gap_to_next == pytest.approx(upper.win_rate - lower.win_rate)
        reversed_alone = (upper.win_rate_first_slot < lower.win_rate_first_slot
                          or upper.win_rate_second_slot < lower.win_rate_second_slot)
        assert upper.order_changes_with_presentation == reversed_alone
        assert upper.position_artefact == (reversed_alone or upper.order_holds_share < 0.95)
    assert not board.rows[-1].position_artefact
    # Issue 14: the old flag fired on all 31 rows; the position-robust check must separate some neighbours.
    assert 0 < board.flagged_pairs < board.neighbour_pairs == 30
    assert board.flagged_pairs == sum(row.position_artefact for row in board.rows)
    assert board.pairs_changing_with_presentation < board.flagged_pairs
    assert board.orders_established_holm <= board.neighbour_pairs - board.flagged_pairs
    # a pair moves the aggregated score from the mean of its two calls' scores by at most 1/4 (a win-tie split)
    for row in board.rows:
        mean = (row.win_rate_first_slot + row.win_rate_second_slot) / 2
        assert abs(row.win_rate - mean) <= 0.25 + 1e-12 or row.is_reference
    assert board.flip_rate_clustered_high > board.flip_rate
    assert board.top_two_within_flip_bound == (board.rows[0].gap_to_next < board.flip_rate_clustered_high)


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


def _penalised_scipy(design: np.ndarray, wins: np.ndarray, totals: np.ndarray, ridge: float) -> np.ndarray:
    def loss(beta: np.ndarray) -> float:
        eta = design @ beta
        return float(-(wins * eta - totals * np.logaddexp(0, eta)).sum() + ridge * beta @ beta)

    return np.asarray(minimize(loss, np.zeros(design.shape[1]), method="BFGS", options={"gtol": 1e-10}).x)


def test_unpenalised_fit_matches_statsmodels_and_penalised_matches_scipy() -> None:
    rng = np.random.default_rng(5)
    design = np.array([[1, 0], [0, 1], [1, -1], [1, 0], [0, -1]], dtype=float)
    totals = rng.integers(5, 40, size=5).astype(float)
    wins = np.floor(totals * rng.uniform(0.2, 0.8, size=5)) + 0.5
    glm = sm.GLM(np.column_stack([wins, totals - wins]), design, family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(_bt_fit(design, wins, totals, ridge=0.0), glm.params, atol=1e-6)
    np.testing.assert_allclose(_bt_fit(design, wins, totals, ridge=0.5),
                               _penalised_scipy(design, wins, totals, 0.5), atol=1e-5)
    batched, gradient = _bt_fit_resamples(design, np.vstack([wins, wins]), np.vstack([totals, totals]))
    np.testing.assert_allclose(batched, np.vstack([_bt_fit(design, wins, totals)] * 2), atol=1e-9)
    assert (gradient < 1e-6).all()


def test_a_candidate_winning_every_pair_is_finite_flagged_and_inside_its_interval() -> None:
    """Issue 14: an unbeaten candidate got strength 22.57 with an interval [2.944, 2.944] excluding it."""
    rng = np.random.default_rng(8)
    rows = [_outcome(f"i{k}", "top", other, "consistent", "top") for k in range(30) for other in ("b", "c")]
    rows += [_outcome(f"i{k}", "b", "c", "consistent", "b" if rng.random() < 0.6 else "c") for k in range(30)]
    board = leaderboard_from_outcomes(pd.DataFrame(rows), "toy", ["s"], "j", resamples=300)
    assert board.separated and "top never lost or tied" in (board.separation_note or "")
    assert board.converged_resamples == 300
    top = next(row for row in board.rows if row.candidate == "top")
    assert np.isfinite(top.strength) and top.strength_ci_low <= top.strength <= top.strength_ci_high
    counts = item_score_counts_from_outcomes(pd.DataFrame(rows)).groupby(["candidate", "opponent"]).sum()
    assert counts.loc[("top", "b"), "wins"] == 30
    clean = leaderboard_from_outcomes(star_case(), "toy", ["s"], "toy-judge", resamples=50)
    assert not clean.separated


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


def test_a_clear_order_that_reverses_with_presentation_is_flagged_for_position_only() -> None:
    """Round robin of three candidates on 40 items: b beats c in every pair, but only shown first (an inconsistent,
    primacy pair, a tie in the aggregate); a's order over b is clear in every way. b and c separate in the
    aggregate through their games against a, so the b-c flag must come from presentation, not from the items."""
    rows = []
    for k in range(40):
        rows.append(_outcome(f"i{k}", "a", "b", "consistent", "a" if k % 4 else "b"))
        rows.append(_outcome(f"i{k}", "a", "c", "consistent", "a"))
        rows.append(_outcome(f"i{k}", "b", "c", "primacy", None))
    board = leaderboard_from_outcomes(pd.DataFrame(rows), "toy", ["s"], "j", resamples=400)
    by = {row.candidate: row for row in board.rows}
    assert [row.candidate for row in board.rows] == ["a", "b", "c"]
    assert not by["a"].position_artefact and by["a"].order_holds_share >= 0.95
    assert by["b"].order_holds_share >= 0.95  # the items separate b from c ...
    assert by["b"].order_changes_with_presentation and by["b"].position_artefact  # ... presentation does not
    assert by["b"].unsure_reason == "the order changes when ranked from one presentation alone"
    assert (board.flagged_pairs, board.pairs_changing_with_presentation, board.pairs_not_separated) == (1, 1, 0)
    assert board.orders_established_holm == 1


def test_mtbench_board_converges_on_every_resample(bundled_db_master: Path) -> None:
    """The MTBench board (31 candidates, 80 items) with 2,000 resamples (timed in bench/bench_judges.py)."""
    counts = read(item_score_counts, bundled_db_master, "mtbench", ["full"], "gpt-4-0613")
    board = leaderboard_from_counts(counts, "mtbench", ["full"], "gpt-4-0613", resamples=2000)
    assert board.converged_resamples == 2000


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 7), st.integers(0, 10_000))
def test_hessian_from_nonzero_cells_equals_the_einsum(players: int, seed: int) -> None:
    """The Newton step's Hessians from each combo's nonzero cells equal the dense einsum, star or round robin."""
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a in range(players) for b in range(players) if a != b]
    combos = pd.DataFrame(pairs, columns=["candidate", "opponent"]).astype(str)
    design = _bt_design(combos, sorted(map(str, range(players))), "0")
    weight = rng.uniform(0, 5, size=(7, len(combos)))
    dense = np.einsum("bm,mi,mj->bij", weight, design, design)
    assert np.allclose(_HessianCells(design)(weight), dense, rtol=1e-13, atol=0)
    star = design[combos["opponent"].to_numpy() == "0"]
    assert np.array_equal(_HessianCells(star)(weight[:, :len(star)]),
                          np.einsum("bm,mi,mj->bij", weight[:, :len(star)], star, star))
