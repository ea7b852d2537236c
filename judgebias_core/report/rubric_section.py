"""Report section for rubric runs (METHODS.md section 1): from analyses.rubric and charts.rubric."""

from __future__ import annotations

import math

import pandas as pd

from judgebias_core.analyses.rubric import rubric_report
from judgebias_core.charts.rubric import (
    correlation_comparison_figure,
    ordering_rank_figure,
    position_share_figure,
    score_position_heatmap,
)
from judgebias_core.metrics.rubric_report import RubricReport
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.report.phrasing import percent
from judgebias_core.report.verdict import rubric_verdict
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.rubric_queries import list_rubric_runs

METRIC_KEYS = ("position_share", "position_given_score", "within_item_spread", "permutation_vs_repeat",
               "ordering_rank", "bias_cost", "parse_failures")
REPEAT_PROTOCOL = "rubric-repeat"


def _who(report: RubricReport) -> str:
    return f"{report.run.judge}{' (a simulated judge)' if report.run.simulated else ''}"


def _items(count: int) -> str:
    return f"{count:,} item{'' if count == 1 else 's'}"


def position_sentence(report: RubricReport) -> str:
    """The place whose share is furthest from 1/k, in words, with the count of readable scores."""
    share = report.position
    if share.n == 0:
        return f"{_who(report)} gave no readable score in run {report.run.run_id}."
    furthest = max(range(share.k), key=lambda p: abs(share.shares[p] - share.uniform))
    opening = (f"With the {share.k} score options rotated through every place, {_who(report)}" if report.balanced
               else f"On the orderings of run {report.run.run_id} (not a balanced set, so score and place are partly "
                    f"confounded), {_who(report)}")
    return (f"{opening} chose the option shown at place {furthest + 1} in {percent(share.shares[furthest])} of "
            f"{share.n:,} readable scores, where a judge blind to the order would choose each place "
            f"{percent(share.uniform)} of the time.")


def spread_sentence(report: RubricReport) -> str:
    spread = report.spread_permutation
    return (f"Changing only the order of the options moves one item's score by {spread.mean_sd:.2f} points on "
            f"average: the standard deviation of each item's scores over its orderings, averaged over "
            f"{_items(spread.items)}.")


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


def run_table(reports: list[RubricReport]) -> pd.DataFrame:
    return pd.DataFrame([{
        "run": r.run.run_id, "judge": r.run.judge, "simulated": "yes" if r.run.simulated else "no",
        "rubric": r.run.rubric_id, "k": r.k, "trials": f"{r.trials:,}", "readable scores": f"{r.parsed:,}",
        "parse failures": f"{r.parse_failures:,}", "no reply": f"{r.no_reply:,}",
        "balanced": "yes" if r.balanced else "no",
        "score movement from the order (points)": f"{r.spread_permutation.mean_sd:.3f}, SD per item averaged over "
                                                  f"{_items(r.spread_permutation.items)}",
        "repeat run": r.repeat_run.run_id if r.repeat_run else "–",
        "lowest bias cost ordering": f"{''.join(map(str, r.recommended.ordering))} "
                                     f"(cost {r.recommended.bias_cost:.3f})",
    } for r in reports])


def _runs_in_scope(reader: StoreReader, scope: ReportScope) -> pd.DataFrame:
    runs = list_rubric_runs(reader)
    runs = runs[(runs["dataset_id"] == scope.dataset.id) & runs["run_id"].isin(scope.runs)]
    return runs[runs["judge"].isin(scope.judges)] if scope.judge_filter else runs


def rubric_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """One block per rubric run in scope (repeat runs serve as baselines), or None without rubric runs."""
    if "rubric" not in scope.kinds:
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
    figures, sentences = [], []
    for report in reports:
        label = f"{report.run.judge} · run {report.run.run_id}"
        figures += [position_share_figure(report.position, f"Where the chosen score sat: {label}"),
                    score_position_heatmap(report.score_position, f"P(position | score): {label}")]
        if report.human is not None:
            figures += [correlation_comparison_figure(report.human), ordering_rank_figure(report.orderings)]
        sentences.append(" ".join(s for s in (position_sentence(report), spread_sentence(report),
                                              correlation_sentence(report)) if s))
    return ReportSection(
        key="rubric", title="Moving the score options (rubric position bias)",
        headline=tuple(position_sentence(r) for r in reports), sentences=tuple(sentences), figures=tuple(figures),
        tables=(ReportTable("Rubric runs", run_table(reports), "Trials are judge calls (one item under one "
                            "ordering); rates are over readable scores."),),
        metric_keys=METRIC_KEYS, verdicts=tuple(rubric_verdict(r) for r in reports),
    )
