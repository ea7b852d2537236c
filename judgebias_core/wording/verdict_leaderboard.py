"""The verdict on a leaderboard: who ranks first, which neighbour orders are safe, and what may be announced.

The Leaderboard page opens with it (``ui/verdict.verdict_block``) and the report's leaderboard section carries the
same object, so both say the same sentence. Fractions stay in ``figures``; the sentences give percentages.
"""

from __future__ import annotations

from judgebias_core.metrics.leaderboard import ORDER_HOLDS, Leaderboard, LeaderboardRow
from judgebias_core.wording.phrasing import percent
from judgebias_core.wording.verdict import Verdict, VerdictLine


def ranked_rows(board: Leaderboard) -> list[LeaderboardRow]:
    """The rows that are ranked: in a baseline design the baseline itself is left out (its win rate is 1/2)."""
    return [r for r in board.rows if not (board.baseline_design and r.is_reference)]


def _ranking_line(board: Leaderboard, who: str) -> VerdictLine:
    first, second = ranked_rows(board)[:2]
    against = f"against the baseline {board.reference}" if board.baseline_design else "over all its pairs"
    return VerdictLine(
        "What it does",
        f"By the verdicts of {who}, {first.candidate} ranks first (win rate {against} {percent(first.win_rate)} "
        f"over {first.pairs:,} pairs), ahead of {second.candidate} ({percent(second.win_rate)} over "
        f"{second.pairs:,}).",
        "Win rate: a consistent win counts 1, a consistent tie or a verdict that changed with the order 1/2, a "
        "loss 0; pairs with a parse failure are left out.")


def _safety_line(board: Leaderboard) -> VerdictLine:
    top_two = ("smaller than" if board.top_two_within_flip_bound else "larger than")
    comparisons = f"{board.neighbour_pairs} comparison{'s' if board.neighbour_pairs != 1 else ''}"
    return VerdictLine(
        "How sure we are",
        f"{board.flagged_pairs} of {board.neighbour_pairs} orders between neighbours are unsure, on "
        f"{board.items:,} questions. "
        f"{board.pairs_changing_with_presentation} reverse when the board is built from one answer order alone, and "
        f"{board.pairs_not_separated} do not hold in {percent(ORDER_HOLDS, 0)} of {board.resamples:,} re-draws of "
        f"the {board.items:,} questions ({board.pairs_too_close_to_call} of them too close to call); "
        f"{board.orders_established_holm} {'is' if board.orders_established_holm == 1 else 'are'} firm once all "
        f"{comparisons} are allowed for. The gap between the top two is {top_two} the share of verdicts this judge "
        f"may change with the order (up to {percent(board.flip_rate_clustered_high)}).",
        "A neighbour is the candidate just below. A neighbour pair is unsure when its order reverses in the ranking from the first-slot calls alone or the "
        f"second-slot calls alone, or is not shown to hold in {percent(ORDER_HOLDS, 0)} of item bootstrap resamples "
        "(all pairs of an item drawn together): it holds in fewer, or the share's Monte Carlo band (99% of seeds) "
        "straddles the threshold, too close to call. 'Firm' means established after Holm's correction over the "
        f"{board.neighbour_pairs} neighbour pairs. The top two are compared with the top of the flip rate's "
        "item-clustered two-sided 95% interval (one-sided 97.5%).")


def _reportable(board: Leaderboard) -> str:
    established = board.orders_established_holm
    if established == 0:
        return "No neighbour order is firm once every comparison is allowed for: read the rest of the board as groups."
    return (f"Report as orders only the {established} firm neighbour order{'s' if established != 1 else ''}; read "
            "the others as ties.")


def _advice(board: Leaderboard) -> VerdictLine:
    first, second = ranked_rows(board)[:2]
    top_unsure = first.position_artefact or board.top_two_within_flip_bound
    if board.neighbour_pairs and board.flagged_pairs == board.neighbour_pairs:
        text = ("Read the board as groups of candidates, not as an order: no neighbour order is safe with these "
                "items. Add items before ranking neighbours.")
    elif first.position_artefact:
        text = (f"Do not announce {first.candidate} ahead of {second.candidate} from this judge alone: "
                f"{first.unsure_reason}. {_reportable(board)}")
    elif top_unsure:
        text = (f"Do not announce {first.candidate} ahead of {second.candidate} from this judge alone: their gap "
                f"({percent(first.win_rate - second.win_rate)}) is smaller than the share of verdicts this judge changes with the "
                f"order, so a lean that differs between candidates could decide it. {_reportable(board)}")
    else:
        text = f"{first.candidate} can be reported first. {_reportable(board)}"
    return VerdictLine(
        "What to do", text,
        "Every order unsure: read as groups; the top pair unsure or within the flip-rate bound: no winner "
        "announced; otherwise the top may be reported. Orders reported as such: those established after Holm's "
        "correction over the neighbour pairs.")


def leaderboard_verdict(board: Leaderboard, who: str | None = None) -> Verdict | None:
    """The verdict on one judge's leaderboard; None when fewer than two candidates are ranked."""
    rows = ranked_rows(board)
    if len(rows) < 2:
        return None
    name = who or board.judge
    lines = [_ranking_line(board, name), _safety_line(board), _advice(board)]
    if board.separation_note:
        who_never = board.separation_note.rsplit(": without", 1)[0]
        lines.insert(2, VerdictLine(
            "Separation", f"{who_never}, so not every strength score can be measured: read the win rates.",
            f"{board.separation_note}; those Bradley-Terry strengths are set by the ridge penalty. The "
            "maximum-likelihood strengths exist only when every candidate beat or tied, and lost to or tied, some "
            "other (Ford 1957; Hunter 2004)."))
    return Verdict(
        analysis="leaderboard", subject=f"Leaderboard by {name}", lines=tuple(lines),
        figures={"first": rows[0].candidate, "first_win_rate": rows[0].win_rate, "second": rows[1].candidate,
                 "second_win_rate": rows[1].win_rate, "neighbour_pairs": board.neighbour_pairs,
                 "flagged_pairs": board.flagged_pairs,
                 "pairs_changing_with_presentation": board.pairs_changing_with_presentation,
                 "pairs_not_separated": board.pairs_not_separated,
                 "orders_established_holm": board.orders_established_holm,
                 "flip_rate_clustered_high": board.flip_rate_clustered_high, "items": board.items,
                 "resamples": board.resamples},
    )
