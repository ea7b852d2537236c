"""Report section "what drives the bias" (METHODS.md section 7): stepwise regression from metrics.stepwise, with the
verdicts the Factors page opens with (``report.verdict_factors``)."""

from __future__ import annotations

import pandas as pd

from judgebias_core.analyses.stepwise import stepwise_with_baselines
from judgebias_core.charts.stepwise import aic_path, aic_rise_chart
from judgebias_core.charts.style import retitled
from judgebias_core.errors import NotFoundError
from judgebias_core.metrics.stepwise import POST_SELECTION_NOTE, QUALITY_GAP_CAVEAT, StepwiseResult, plain_summary
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.verdict_factors import factors_verdict

TARGETS = ("position_consistency", "preference_fairness")


def steps_table(result: StepwiseResult) -> pd.DataFrame:
    """Every step: the variable, added or dropped, and the AIC before and after."""
    label = result.target.replace("_", " ")
    return pd.DataFrame([{"target": label, "step": n, "action": step.action,
                          "variable": step.variable.replace("_", " "),
                          "AIC before": f"{step.aic_before:.1f}", "AIC after": f"{step.aic_after:.1f}"}
                         for n, step in enumerate(result.steps, start=1)]
                        or [{"target": label, "step": 0, "action": "none", "variable": "–",
                             "AIC before": f"{result.start_aic:.1f}", "AIC after": f"{result.final_aic:.1f}"}])


def path_sentence(result: StepwiseResult) -> str:
    """What a stepwise path without a step says, in place of a chart with one dot."""
    label = result.target.replace("_", " ")
    start = ", ".join(v.replace("_", " ") for v in result.start_variables) or "no factor (intercept only)"
    return (f"Stepwise path for {label}: no step changed the model; it stays at its start, {start} "
            f"(AIC {result.final_aic:.1f}).")


def factors_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Stepwise regression of PC and PF over (judge, candidate, task) units of the main study."""
    if "pairwise" not in scope.call_kinds or not scope.studies:
        return None
    study = "full" if "full" in scope.studies else scope.studies[0]
    try:  # one unit table and one selection per target, shared by the figures, the table and the baselines
        analysed = stepwise_with_baselines(reader, scope.dataset.id, study, TARGETS)
    except NotFoundError:  # no classified pair in the study: nothing to explain
        return None
    results = [result for result, _ in analysed]
    baselines = [baseline for _, baseline in analysed]
    verdicts = [factors_verdict(result, baseline) for result, baseline in zip(results, baselines, strict=True)]
    # The summary sentence, then the verdict's sentence on the quality gap's bound (the same words as the page).
    sentences = [text for result, verdict in zip(results, verdicts, strict=True)
                 for text in (plain_summary(result), verdict.lines[1].text)]
    figures = []
    judges = scope.judges_in(study)
    for result in results:
        label = result.target.replace("_", " ")
        if result.steps:  # without a step the path is one dot: the sentence says it (``path_sentence``)
            figures.append(retitled(aic_path(result, judges=judges), f"How the fit for {label} was built, one factor at a time"))
        else:
            sentences.append(path_sentence(result))
        if result.final_variables:
            figures.append(retitled(aic_rise_chart(result, judges=judges),
                                    f"How much each factor matters for {label}"))
    notes = [f"Units of study '{study}': every judge of the study, whatever the judges chosen for this report; "
             f"{results[0].units_left_out} unit(s) without a classified pair left out.", QUALITY_GAP_CAVEAT,
             POST_SELECTION_NOTE]
    return ReportSection(
        key="factors", title=f"What drives the bias (study {study})", headline=(verdicts[0].lines[0].text,),
        sentences=tuple(sentences), figures=tuple(figures),
        tables=(ReportTable("Stepwise steps", pd.concat([steps_table(r) for r in results], ignore_index=True),
                            f"Units: {results[0].units:,} (judge, candidate, task) combinations; AIC = 2k - 2 ln L "
                            "of an ordinary least squares fit."),),
        metric_keys=("stepwise_aic", "quality_gap"), notes=tuple(notes), verdicts=tuple(verdicts),
    )
