"""Report section for rubric runs (METHODS.md section 1): from analyses.rubric and charts.rubric."""

from __future__ import annotations

import math

import pandas as pd

from judgebias_core.analyses.rubric import rubric_report
from judgebias_core.analyses.runs import list_rubric_runs
from judgebias_core.charts.rubric import (
    correlation_comparison_figure,
    geval_pull_figure,
    ordering_rank_figure,
    position_share_figure,
    score_position_heatmap,
)
from judgebias_core.metrics.rubric_report import RubricReport
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.bias_cost_words import cost_choice, cost_interval_words
from judgebias_core.wording.phrasing import percent
from judgebias_core.wording.verdict import rubric_verdict

METRIC_KEYS = ("position_share", "position_given_score", "within_item_spread", "permutation_vs_repeat",
               "ordering_rank", "bias_cost", "g_eval_score", "parse_failures")
REPEAT_PROTOCOL = "rubric-repeat"


def _who(report: RubricReport) -> str:
    return f"{report.run.judge}{' (a simulated judge)' if report.run.simulated else ''}"


def _items(count: int) -> str:
    return f"{count:,} item{'' if count == 1 else 's'}"


def balance_sentence(report: RubricReport) -> str | None:
    """What parse failures did to the balance of a run, or None when its parsed trials are balanced."""
    exposure = report.exposure
    if exposure.balanced or exposure.worst_share is None:
        return None
    off = (f"score {exposure.worst_score} sat at place {exposure.worst_position} in {percent(exposure.worst_share)} "
           f"of the readable scores instead of {percent(1 / report.k)}")
    if exposure.weighting == "orderings-equal":
        return (f"Parse failures unbalanced run {report.run.run_id} ({off}), so its place shares are "
                "exposure-weighted: every ordering counts equally.")
    return (f"In run {report.run.run_id} score and place are confounded ({off}): the place shares mix content with "
            "position.")


def position_sentence(report: RubricReport) -> str:
    """The place whose share is furthest from 1/k, in words, with the count of readable scores and the test."""
    share, tests = report.position, report.position_tests
    if share.n == 0:
        return f"{_who(report)} gave no readable score in run {report.run.run_id}."
    furthest = max(range(share.k), key=lambda p: abs(tests.shares[p].rate - share.uniform))
    chosen = tests.shares[furthest]
    opening = (f"With the {share.k} score options rotated through every place, {_who(report)}"
               if report.exposure.weighting != "not-possible"
               else f"On the orderings of run {report.run.run_id} (not balanced on the readable scores, so score and "
                    f"place are partly confounded), {_who(report)}")
    return (f"{opening} chose the option shown at place {furthest + 1} in {percent(chosen.rate)} of "
            f"{share.n:,} readable scores (95% item-clustered interval {percent(chosen.low)} to "
            f"{percent(chosen.high)}), where a judge blind to the order would choose each place "
            f"{percent(share.uniform)} of the time; the lean to that place "
            f"{tests.corrected.sentence(f'position {furthest + 1}')}, one clustered test per place.")


def spread_sentence(report: RubricReport) -> str:
    spread = report.spread_permutation
    return (f"Changing only the order of the options moves one item's score by {spread.mean_sd:.2f} points on "
            f"average: the {spread.description()}.")


def correlation_sentence(report: RubricReport) -> str | None:
    human = report.human
    if human is None or math.isnan(human.permutation.pearson):
        return None
    source = "people's scores" if human.label_source == "human" else "a reference judge's scores (not people's)"
    text = (f"Against {source}, the scores averaged over all orderings correlate at Pearson r = "
            f"{human.permutation.pearson:.2f} over {_items(human.permutation.n)}")
    if human.repeat is not None and not math.isnan(human.repeat.pearson):
        text += f"; asking the canonical order again and again gives r = {human.repeat.pearson:.2f}"
    return text + "."


def bias_cost_sentence(report: RubricReport) -> str:
    """The run's own Bias Cost choice: recommended only when stable by its own rule, with its interval named."""
    costs, best = report.bias_cost, report.recommended
    if best is None:
        return f"Bias Cost recommends no ordering for run {report.run.run_id}: {costs.reason}."
    choice = cost_choice(costs, "among the run's orderings")
    return (f"The lowest Bias Cost among the run's orderings is {''.join(map(str, best.ordering))}, "
            f"{best.bias_cost:.3f} ({cost_interval_words(costs, best).rstrip('.')}). {choice.sentence}")


def geval_sentence(report: RubricReport) -> str | None:
    geval = report.geval
    if not geval.available:
        return None
    text = (f"The G-Eval expected score (from the judge's{' simulated' if geval.simulated else ''} score "
            f"probabilities) averages {geval.mean_expected:.2f} against a parsed {geval.mean_parsed:.2f} over "
            f"{geval.compared:,} calls")
    expected, parsed, difference = geval.expected_vs_labels, geval.parsed_vs_labels, geval.difference
    if expected is not None and parsed is not None and difference is not None and not math.isnan(expected.pearson):
        source = "people's scores" if geval.label_source == "human" else "a reference judge's scores"
        text += (f"; against {source} it correlates at Pearson r = {expected.pearson:.2f} where the parsed score "
                 f"gives {parsed.pearson:.2f} (difference {difference.pearson:+.2f}, 95% item-bootstrap interval "
                 f"{difference.pearson_ci[0]:+.2f} to {difference.pearson_ci[1]:+.2f}, {_items(difference.n)})")
    if geval.simulated:
        text += "; the simulated judge's probabilities follow the human label by construction"
    return text + "."


def _cost_cell(r: RubricReport) -> str:
    best = r.recommended
    if best is None:
        return "none: " + (r.bias_cost.reason or "")
    return (f"{''.join(map(str, best.ordering))} (cost {best.bias_cost:.3f}; lowest in "
            f"{percent(r.bias_cost.stability)} of item resamples"
            + ("" if r.bias_cost.stable else "; not stable, so not recommended") + ")")


def run_table(reports: list[RubricReport]) -> pd.DataFrame:
    return pd.DataFrame([{
        "run": r.run.run_id, "judge": r.run.judge, "simulated": "yes" if r.run.simulated else "no",
        "rubric": r.run.rubric_id, "k": r.k, "trials": f"{r.trials:,}", "readable scores": f"{r.parsed:,}",
        "parse failures": f"{r.parse_failures:,}", "no reply": f"{r.no_reply:,}",
        "balanced (readable scores)": "yes" if r.balanced else
        ("no: exposure-weighted" if r.exposure.weighting == "orderings-equal" else "no: confounded"),
        "score movement from the order (points)": f"{r.spread_permutation.mean_sd:.3f}, "
                                                  f"{r.spread_permutation.description()}",
        "repeat run": r.repeat_run.run_id if r.repeat_run else "–",
        "lowest bias cost ordering": _cost_cell(r),
    } for r in reports])


def _runs_in_scope(reader: StoreReader, scope: ReportScope) -> pd.DataFrame:
    runs = list_rubric_runs(reader)
    runs = runs[(runs["dataset_id"] == scope.dataset.id) & runs["run_id"].isin(scope.runs)]
    return runs[runs["judge"].isin(scope.judges)] if scope.judge_filter else runs


def rubric_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """One block per rubric run in scope (repeat runs serve as baselines), or None without rubric runs."""
    if "rubric" not in scope.call_kinds:
        return None
    runs = _runs_in_scope(reader, scope)
    main = runs[runs["protocol"] != REPEAT_PROTOCOL]
    repeats = runs[runs["protocol"] == REPEAT_PROTOCOL]
    reports = []
    for run in main.itertuples():
        match = repeats[(repeats["judge"] == run.judge) & (repeats["rubric_id"] == run.rubric_id)]
        reports.append(rubric_report(reader, run.run_id, match["run_id"].iloc[0] if len(match) else None))
    if not reports:
        return None
    verdicts = [rubric_verdict(r) for r in reports]
    figures, sentences = [], []
    for report in reports:
        label = f"{report.run.judge} · run {report.run.run_id}"
        judge = [report.run.judge]
        figures += [position_share_figure(report.position, f"Where the chosen score sat: {label}",
                                          report.position_tests, judges=judge),
                    score_position_heatmap(report.score_position, f"P(position | score): {label}", judges=judge)]
        if report.human is not None:
            figures += [correlation_comparison_figure(report.human, judges=judge),
                        ordering_rank_figure(report.orderings, judges=judge)]
        if report.geval.available and report.geval.pulls:
            figures.append(geval_pull_figure(report.geval, f"Position pull, expected vs parsed score: {label}",
                                             judges=judge))
        sentences.append(" ".join(s for s in (balance_sentence(report), position_sentence(report),
                                              spread_sentence(report), correlation_sentence(report),
                                              bias_cost_sentence(report), geval_sentence(report)) if s))
    return ReportSection(
        key="rubric", title="Moving the score options (rubric position bias)",
        headline=tuple(verdict.lines[0].text for verdict in verdicts), sentences=tuple(sentences),
        figures=tuple(figures),
        tables=(ReportTable("Rubric runs", run_table(reports), "Trials are judge calls (one item under one "
                            "ordering); rates are over readable scores. Place shares carry item-clustered intervals; "
                            "each run's place tests are Holm-corrected over its k places."),),
        metric_keys=METRIC_KEYS, verdicts=tuple(verdicts),
    )
