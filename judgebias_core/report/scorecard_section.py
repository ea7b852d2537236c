"""The report's "Which judge to use" section, drawn from the scorecard's view (``analyses.scorecard_view``): the
Compare judges page draws the same table, chart and recommendation."""

from __future__ import annotations

from judgebias_core.analyses.scorecard_view import ScorecardView, scorecard_view
from judgebias_core.charts.scorecard import scorecard_chart
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.stats.settings import RESAMPLES, SEED
from judgebias_core.store.handle import StoreReader


def scorecard_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Every judge configuration of the dataset side by side (pairwise datasets with judge calls)."""
    if "pairwise" not in scope.call_kinds or scope.dataset.dataset_kind != "pairwise":
        return None
    # The report's settings; the page and ``scorecard --json`` draw the same view.
    return scorecard_section_from_view(scorecard_view(reader, scope.dataset.id, resamples=RESAMPLES, seed=SEED))


def scorecard_section_from_view(view: ScorecardView) -> ReportSection | None:
    """The section drawn from the topic's view (``analyses.scorecard_view``): the page's table and sentences."""
    card = view.card
    if not card.rows:
        return None
    return ReportSection(
        key="scorecard", title="Which judge to use: the judge scorecard",
        headline=(view.lead,),
        sentences=(view.detail, view.accuracy_note),
        figures=(scorecard_chart(card.rows, card.best, card.recommendation.label),),
        tables=(ReportTable(f"Judge configurations on {card.name} ({len(card.rows)})", view.table,
                            "Counts are pairs (one item's two answers judged in both orders); parse failures and "
                            "cost count judgments (calls). " + view.chart_caption),),
        metric_keys=("scorecard_accuracy", "flip_rate", "first_slot_share", "kappa"),
        notes=view.cost_notes,
    )
