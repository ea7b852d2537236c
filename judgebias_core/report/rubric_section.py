"""Report section for rubric runs (METHODS.md section 1): from each run's view (``analyses.rubric_view``), so it
says what the Rubric bias page says, and charts.rubric."""

from __future__ import annotations

import pandas as pd

from judgebias_core.analyses.rubric_view import RubricView, rubric_view
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
from judgebias_core.wording.phrasing import p_value, percent
from judgebias_core.wording.rubric_words import OwnCostWords, own_cost_words, unmarked

METRIC_KEYS = ("position_share", "position_given_score", "within_item_spread", "permutation_vs_repeat",
               "ordering_rank", "bias_cost", "g_eval_score", "parse_failures")
REPEAT_PROTOCOL = "rubric-repeat"


def bias_cost_sentence(report: RubricReport) -> str:
    """The run's own Bias Cost choice as the Rubric bias page says it (never a recommendation when unstable), with
    its interval named."""
    return _own_cost_text(own_cost_words(report))


def _own_cost_text(own: OwnCostWords) -> str:
    return unmarked(own.sentence) + (f" {own.interval}" if own.interval else "")


def run_sentences(view: RubricView) -> str:
    """One run's paragraph: the page's words (balance, position shares and their rule, ordering rank, Bias Cost,
    G-Eval), with the score spread and the correlation with the labels."""
    report, position = view.report, view.position
    # The page's sentences do not name the judge (its page does): a report of several runs says whose they are, as
    # the verdict names the judge ("(a simulated judge)" where it is one).
    whose = f"Judge {view.verdict.subject}, run {report.run.run_id}."
    balance = f"In run {report.run.run_id}: {position.balance.sentence}" if position.balance else None
    rank = unmarked(view.ordering_rank.sentence) if view.ordering_rank.sentence else None
    geval = view.geval
    return " ".join(s for s in (whose, balance, position.sentence, position.decided, view.spread.sentence,
                                view.correlation.sentence, rank, _own_cost_text(view.own_cost),
                                geval.sentence and unmarked(geval.sentence), geval.decided) if s)


def position_table(view: RubricView) -> ReportTable:
    """The position shares with their intervals and corrected p-values, as the page's table holds them."""
    report = view.report
    frame = pd.DataFrame([{
        "position": r.position, "choices": f"{r.choices:,}", "readable scores": f"{r.parsed:,}",
        "share": percent(r.share), "95% interval (items together)": f"{percent(r.low)} to {percent(r.high)}",
        "Wilson 95% (calls independent)": f"{percent(r.wilson_low)} to {percent(r.wilson_high)}",
        "no-bias share": percent(r.uniform), "test": p_value(r.p),
        f"after {view.position.correction} ({view.position.family_size} tests)": p_value(r.corrected_p),
        "unlikely to be chance": "yes" if r.unlikely_chance else "no"} for r in view.position.rows])
    return ReportTable(f"Where the chosen score sat: {report.run.judge} · run {report.run.run_id}", frame,
                       view.position.decided)


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
    views = []
    for run in main.itertuples():
        match = repeats[(repeats["judge"] == run.judge) & (repeats["rubric_id"] == run.rubric_id)]
        views.append(rubric_view(reader, run.run_id, match["run_id"].iloc[0] if len(match) else None))
    return rubric_section_from_views(views)


def rubric_section_from_views(views: list[RubricView]) -> ReportSection | None:
    """The section drawn from the runs' views (``analyses.rubric_view``), the objects the Rubric bias page draws."""
    if not views:
        return None
    reports = [v.report for v in views]
    verdicts = [v.verdict for v in views]
    figures, sentences = [], []
    for view in views:
        report = view.report
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
        sentences.append(run_sentences(view))
    return ReportSection(
        key="rubric", title="Moving the score options (rubric position bias)",
        headline=tuple(verdict.lines[0].text for verdict in verdicts), sentences=tuple(sentences),
        figures=tuple(figures),
        tables=(ReportTable("Rubric runs", run_table(reports), "Trials are judge calls (one item under one "
                            "ordering); rates are over readable scores. Place shares carry item-clustered intervals; "
                            "each run's place tests are Holm-corrected over its k places."),
                *(position_table(view) for view in views)),
        metric_keys=METRIC_KEYS, verdicts=tuple(verdicts),
    )
