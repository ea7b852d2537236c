"""The leaderboard topic's view: everything the Leaderboard page, the report's leaderboard section and
``metrics leaderboard --json`` show for one judge, computed once (METHODS.md, leaderboard)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judgebias_core.analyses.judges import leaderboard, leaderboard_judges
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.leaderboard import DEFAULT_RESAMPLES, DEFAULT_SEED, Leaderboard
from judgebias_core.simulated import simulated_notice
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import percent
from judgebias_core.wording.verdict import Verdict
from judgebias_core.wording.verdict_leaderboard import leaderboard_verdict, ranked_rows

__all__ = ["DEFAULT_RESAMPLES", "DEFAULT_SEED", "ENSEMBLE_JUDGE", "LeaderboardView", "leaderboard_judges",
           "leaderboard_view"]


def leaderboard_table(board: Leaderboard) -> pd.DataFrame:
    """The candidates in rank order, formatted with their counts; in a baseline design the baseline is left out of
    its own leaderboard."""
    rows = ranked_rows(board)
    return pd.DataFrame([{
        "rank": rank, "candidate": r.candidate,
        "pairs": f"{r.pairs:,}",
        "wins / ties* / losses": f"{r.wins:,} / {r.ties:,} / {r.losses:,}",
        "win rate (95% item bootstrap)": f"{percent(r.win_rate)} ({percent(r.win_rate_ci_low)}–"
                                         f"{percent(r.win_rate_ci_high)})",
        "Bradley-Terry strength": f"{r.strength:+.2f}",
        "order with the next one down unsure*": r.unsure_reason or ("no" if r is not rows[-1] else ""),
    } for r, rank in zip(rows, board.candidates_frame()["rank_win_rate"], strict=True)])


@dataclass(frozen=True)
class LeaderboardView:
    """One judge's leaderboard as a reader sees it: the board, its verdict (None with fewer than two ranked
    candidates), the opening sentence, the formatted table and the notes (small sample, separation, simulated)."""

    board: Leaderboard
    verdict: Verdict | None
    sentence: str | None  # the verdict's first two lines as one paragraph (the report's sentence)
    table: pd.DataFrame
    ranked: int  # candidates ranked (the baseline of a baseline design left out)
    simulated_notice: str | None
    small_sample_note: str | None
    separation_note: str | None
    safety_note: str  # which neighbour orders are unsure and why (a warning when any is, else a confirmation)
    top_two_note: str | None  # the top two's gap against the flip rate's upper bound (None with one candidate)

    @property
    def report_judges(self) -> list[str]:
        """The judges a report of this board covers (every judge for the majority-vote ensemble)."""
        return [] if self.board.judge == ENSEMBLE_JUDGE else [self.board.judge]


def leaderboard_view(reader: StoreReader, dataset_id: str, studies: list[str], judge: str,
                     resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                     who: str | None = None) -> LeaderboardView:
    """The leaderboard ``judge`` (or the majority-vote ensemble) gives the candidates; ``who`` names the judge in
    the sentences (the report says "(a simulated judge)")."""
    board = leaderboard(reader, dataset_id, studies, judge, resamples, seed)
    verdict = leaderboard_verdict(board, who)
    sentence = None if verdict is None else " ".join(
        line.text for line in verdict.lines if line.heading in ("What it does", "How sure we are"))
    return LeaderboardView(
        board=board, verdict=verdict, sentence=sentence, table=leaderboard_table(board),
        ranked=len(ranked_rows(board)), simulated_notice=simulated_notice([judge]),
        small_sample_note=(f"Small sample: {board.interval_warning.removeprefix('small sample: ')}."
                           if board.interval_warning else None),
        separation_note=(f"Separation: {board.separation_note}. Those strengths are set by the penalty, not by the "
                         "data: read them as 'at least this far ahead (or behind)', and read the win rates instead."
                         if board.separation_note else None),
        safety_note=_safety_note(board), top_two_note=_top_two_note(board))


def _safety_note(board: Leaderboard) -> str:
    if board.flagged_pairs:
        return (f"{board.flagged_pairs} of {board.neighbour_pairs} neighbour orders are unsure: "
                f"{board.pairs_changing_with_presentation} change with the slot, {board.pairs_not_separated} are not "
                f"shown to hold in 95% of {board.resamples:,} resamples of the {board.items:,} items "
                f"({board.pairs_too_close_to_call} too close to call) "
                f"({board.orders_established_holm} established after Holm's correction).")
    return (f"All {board.neighbour_pairs} neighbour orders hold in both single-slot rankings and in at least 95% "
            f"of resamples ({board.orders_established_holm} established after Holm's correction).")


def _top_two_note(board: Leaderboard) -> str | None:
    if len(board.rows) < 2:
        return None
    top_two = "less" if board.top_two_within_flip_bound else "more"
    return (f"The top two differ by {top_two} than the top of the judge's item-clustered two-sided 95% flip-rate "
            f"interval ({board.flip_rate_clustered_high:.3f}, a one-sided 97.5% upper bound; "
            f"{board.flip_bound_method}).")
