"""Report section "what drives the bias" (METHODS.md section 7): stepwise regression from metrics.stepwise, with the
verdicts the Factors page opens with (``report.verdict_factors``)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from judgebias_core.analyses.factors_view import TARGETS, FactorsView, factors_views
from judgebias_core.charts.stepwise import aic_path, aic_rise_chart
from judgebias_core.charts.style import retitled
from judgebias_core.errors import NotFoundError
from judgebias_core.metrics.stepwise import StepwiseResult
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.store.handle import StoreReader


def steps_table(result: StepwiseResult) -> pd.DataFrame:
    """Every step: the variable, added or dropped, and the AIC before and after."""
    label = result.target.replace("_", " ")
    return pd.DataFrame([{"target": label, "step": n, "action": step.action,
                          "variable": step.variable.replace("_", " "),
                          "AIC before": f"{step.aic_before:.1f}", "AIC after": f"{step.aic_after:.1f}"}
                         for n, step in enumerate(result.steps, start=1)]
                        or [{"target": label, "step": 0, "action": "none", "variable": "–",
                             "AIC before": f"{result.start_aic:.1f}", "AIC after": f"{result.final_aic:.1f}"}])


def factors_section_from_views(views: Sequence[FactorsView], judges: Sequence[str]) -> ReportSection:
    """The section from the topic's views (one per target, one study); ``judges`` name the chart's judges."""
    first = views[0]
    # The summary sentence, then the verdict's sentence on the quality gap's bound (the same words as the page).
    sentences = [text for view in views for text in (view.summary, view.verdict.lines[1].text)]
    figures = []
    for view in views:
        if view.path_sentence is None:  # without a step the path is one dot: the view's sentence says it
            figures.append(retitled(aic_path(view.result, judges=judges),
                                    f"How the fit for {view.target_label} was built, one factor at a time"))
        else:
            sentences.append(view.path_sentence)
        if view.result.final_variables:
            figures.append(retitled(aic_rise_chart(view.result, judges=judges),
                                    f"How much each factor matters for {view.target_label}"))
    notes = [f"Units of study '{first.study}': every judge of the study, whatever the judges chosen for this report; "
             f"{first.result.units_left_out} unit(s) without a classified pair left out.", first.quality_gap_caveat,
             first.post_selection_note]
    return ReportSection(
        key="factors", title=f"What drives the bias (study {first.study})", headline=(first.verdict.lines[0].text,),
        sentences=tuple(sentences), figures=tuple(figures),
        tables=(ReportTable("Stepwise steps", pd.concat([steps_table(v.result) for v in views], ignore_index=True),
                            f"Units: {first.result.units:,} (judge, candidate, task) combinations; AIC = 2k - 2 ln L "
                            "of an ordinary least squares fit."),),
        metric_keys=("stepwise_aic", "quality_gap"), notes=tuple(notes), verdicts=tuple(v.verdict for v in views),
    )


def factors_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Stepwise regression of PC and PF over (judge, candidate, task) units of the main study."""
    if "pairwise" not in scope.call_kinds or not scope.studies:
        return None
    study = "full" if "full" in scope.studies else scope.studies[0]
    try:  # one unit table and one selection per target, shared by the figures, the table and the baselines
        views = factors_views(reader, scope.dataset.id, study, TARGETS)
    except NotFoundError:  # no classified pair in the study: nothing to explain
        return None
    return factors_section_from_views(views, scope.judges_in(study))
