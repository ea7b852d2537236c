"""The leaderboard verdict: the page's block and the report's sentence are the same words from one board."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judgebias_core.analyses.judges import leaderboard
from judgebias_core.analyses.leaderboard_view import leaderboard_view
from judgebias_core.metrics.leaderboard import leaderboard_from_outcomes
from judgebias_core.wording.verdict_leaderboard import leaderboard_verdict
from tests.store_helpers import read
from tests.test_leaderboard import _outcome


def test_mtbench_verdict_counts_the_unsure_orders_and_matches_the_report(bundled_db_master: Path) -> None:
    board = read(leaderboard, bundled_db_master, "mtbench", ["full"], "gpt-4-0613", resamples=300)
    verdict = leaderboard_verdict(board)
    assert verdict is not None and verdict.analysis == "leaderboard"
    what, sure, advice = verdict.lines
    assert what.text.startswith("By the verdicts of gpt-4-0613, gpt-4 ranks first")
    assert sure.text.startswith(f"{board.flagged_pairs} of 30 orders between neighbours are unsure, on 80 questions")
    assert f"{board.pairs_changing_with_presentation} reverse" in sure.text
    assert board.top_two_within_flip_bound and "Do not announce gpt-4 ahead of claude-v1" in advice.text
    assert verdict.figures["flagged_pairs"] == board.flagged_pairs
    view = read(leaderboard_view, bundled_db_master, "mtbench", ["full"], "gpt-4-0613", resamples=300,
                who="gpt-4-0613")
    assert view.sentence == f"{what.text} {sure.text}"


def test_clear_board_may_report_its_top_and_separation_is_named() -> None:
    rows = [_outcome(f"i{k}", "top", other, "consistent", "top") for k in range(30) for other in ("b", "c")]
    rows += [_outcome(f"i{k}", "b", "c", "consistent", "b") for k in range(30)]
    board = leaderboard_from_outcomes(pd.DataFrame(rows), "toy", ["s"], "j", resamples=200)
    verdict = leaderboard_verdict(board, "the toy judge")
    assert verdict is not None
    headings = [line.heading for line in verdict.lines]
    assert headings == ["What it does", "How sure we are", "Separation", "What to do"]
    assert board.flagged_pairs == 0 and not board.top_two_within_flip_bound
    assert verdict.lines[-1].text.startswith("top can be reported first")
    assert "Report as orders only the 2 firm neighbour orders" in verdict.lines[-1].text
    assert "established after Holm's correction" in verdict.lines[1].rule
    single = leaderboard_from_outcomes(pd.DataFrame(rows[:1]), "toy", ["s"], "j", resamples=20)
    assert single.baseline_design and leaderboard_verdict(single) is None  # one ranked candidate besides the baseline
