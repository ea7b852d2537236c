"""The report's leaderboard section, drawn from the leaderboard views (``analyses.leaderboard_view``) the
Leaderboard page draws too: one per judge of the main study."""

from __future__ import annotations

from collections.abc import Sequence

from judgebias_core.analyses.leaderboard_view import LeaderboardView, leaderboard_view
from judgebias_core.charts.judges import leaderboard_forest
from judgebias_core.charts.style import retitled
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.store.handle import StoreReader


def leaderboard_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """The candidates as each judge ranks them in the main study, with the ranking-safety flags."""
    if "pairwise" not in scope.call_kinds or not scope.studies:
        return None
    study = "full" if "full" in scope.studies else scope.studies[0]
    views = [leaderboard_view(reader, scope.dataset.id, [study], judge, who=scope.who(judge))
             for judge in scope.judges_in(study)]
    return leaderboard_section_from_views(views, study)


def leaderboard_section_from_views(views: Sequence[LeaderboardView], study: str) -> ReportSection | None:
    """The section from the judges' views; boards with fewer than two ranked candidates are left out."""
    # Sorted by flip rate, so the headline speaks for the steadiest judge.
    views = sorted((v for v in views if v.ranked >= 2), key=lambda v: v.board.flip_rate)
    if not views:
        return None
    sentences = [v.sentence for v in views if v.sentence]
    return ReportSection(
        key="leaderboard", title=f"How the judges rank the candidates (study {study})",
        headline=tuple(sentences[:1]), sentences=tuple(sentences),
        figures=tuple(retitled(leaderboard_forest(v.board), f"Leaderboard by {v.board.judge}") for v in views),
        tables=tuple(ReportTable(f"Leaderboard by {v.board.judge}", v.table,
                                 "*Ties include pairs whose verdict changed with the order, counted as half a win. "
                                 "A candidate's order with the next one down is unsure when it changes in the "
                                 "ranking from one presentation order alone or is not shown to hold in 95% of item "
                                 "resamples (it holds in fewer, or is too close to call within the Monte Carlo "
                                 "error).")
                     for v in views),
        metric_keys=("overall_win_rate", "bradley_terry", "ranking_safety"),
        verdicts=tuple(v.verdict for v in views if v.verdict is not None),
    )
