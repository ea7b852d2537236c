"""Report sections that compare judges: agreement between judges, agreement with people (the leaderboard is in
report/leaderboard_section.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from judgebias_core.analyses.calibration_view import CalibrationView, calibration_view
from judgebias_core.analyses.datasets import dataset_has_labels
from judgebias_core.analyses.judges_view import JudgesView, judges_view
from judgebias_core.charts.calibration import confusion_heatmap, correlation_forest
from judgebias_core.charts.judges import agreement_heatmap, disagreement_bars
from judgebias_core.charts.style import retitled
from judgebias_core.errors import NotFoundError
from judgebias_core.metrics.calibration import AgreementTable, PairwiseCalibration, RubricCalibration
from judgebias_core.metrics.label_words import LabelWords
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.report.ppi_part import prediction_powered_part
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.pairwise_phrasing import HEADLINE_JUDGES
from judgebias_core.wording.phrasing import count_of, names_list, percent


def _main_study(scope: ReportScope) -> str:
    return "full" if "full" in scope.studies else scope.studies[0]


def _interval(value: float, low: float, high: float) -> str:
    return f"{value:.2f} ({low:.2f} to {high:.2f})"


def _source(result: PairwiseCalibration | RubricCalibration, words: LabelWords | None) -> str:
    return (words or LabelWords(result.label_source)).phrase


# Agreement between judges -------------------------------------------------------------------------------------

def agreement_table(view: JudgesView) -> pd.DataFrame:
    """The judge pairs of one view, formatted as the report shows them."""
    return pd.DataFrame([{
        "study": view.study_label, "judge": p.a, "other judge": p.b, "shared calls (n)": f"{p.n:,}",
        "agreement": percent(p.agreement), "calls without a tie": f"{p.n_without_ties:,}",
        "agreement without ties": percent(p.agreement_without_ties),
    } for p in view.result.pairs])


def agreement_section_from_views(views: Sequence[JudgesView]) -> ReportSection | None:
    """The agreement section from the topic's views (one per study with two or more judges)."""
    shown = [view for view in views if len(view.result.judges) >= 2]
    if not shown:
        return None
    sentences = [sentence for view in shown for sentence in view.sentences]
    figures = [figure for view in shown for figure in (
        retitled(agreement_heatmap(view.result), f"Agreement between judges, study {view.study_label}"),
        retitled(disagreement_bars(view.result.disagreement, judges=view.result.judges),
                 f"Disagreement, study {view.study_label}"))]
    tables = tuple(ReportTable(f"Agreement of each pair of judges, study {view.study_label}", agreement_table(view),
                               "Shared calls: the same item, slots and repetition, answered with a readable verdict "
                               "by both judges.") for view in shown)
    notes = tuple(dict.fromkeys(view.filter_note for view in shown if view.filter_note))
    return ReportSection(key="agreement", title="How often the judges agree with each other",
                         headline=tuple(sentences[:1]), sentences=tuple(sentences), figures=tuple(figures),
                         tables=tables, metric_keys=("agreement", "disagreement"), notes=notes,
                         verdicts=tuple(view.verdict for view in shown if view.verdict is not None))


def agreement_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Per study with two or more judges: agreement heatmap, disagreement distribution, pair table."""
    if "pairwise" not in scope.call_kinds or len(scope.judges) < 2:
        return None
    return agreement_section_from_views([judges_view(reader, scope.dataset.id, [study], None, scope.judge_filter)
                                         for study in scope.studies])


# Agreement with people ----------------------------------------------------------------------------------------

def calibration_sentence(result: PairwiseCalibration | RubricCalibration, who: str,
                         words: LabelWords | None = None) -> str:
    if isinstance(result, PairwiseCalibration):
        table = result.swap_aggregated
        return (f"Against {_source(result, words)} on {table.n:,} pairs, the verdict of {who} taken over "
                f"both orders agrees beyond chance with Cohen's kappa = "
                f"{_interval(table.kappa, table.kappa_ci_low, table.kappa_ci_high)}; it picks the labelled answer "
                f"in both orders on {count_of(result.both_orders_correct, result.pairs, 'pair')}.")
    return (f"Against {_source(result, words)} on {result.n:,} scored calls, {who} reaches Cohen's "
            f"kappa = {_interval(result.kappa, result.kappa_ci_low, result.kappa_ci_high)} (quadratic-weighted "
            f"{result.weighted_kappa:.2f}) and Spearman rho = {result.spearman.statistic:.2f}.")


def calibration_row(result: PairwiseCalibration | RubricCalibration,
                    words: LabelWords | None = None) -> dict[str, str]:
    named = (words or LabelWords(result.label_source)).short
    if isinstance(result, PairwiseCalibration):
        table = result.swap_aggregated
        return {"judge": result.judge, "labels": named, "n": f"{table.n:,} pairs",
                "Cohen's kappa (95%)": _interval(table.kappa, table.kappa_ci_low, table.kappa_ci_high),
                "accuracy": percent(table.accuracy), "parse failures": f"{result.failed_pairs:,} pairs",
                "correct in both orders": count_of(result.both_orders_correct, result.pairs, "pair")}
    return {"judge": result.judge, "labels": named, "n": f"{result.n:,} calls",
            "Cohen's kappa (95%)": _interval(result.kappa, result.kappa_ci_low, result.kappa_ci_high),
            "quadratic kappa (95%)": _interval(result.weighted_kappa, result.weighted_kappa_ci_low,
                                               result.weighted_kappa_ci_high),
            "Pearson / Spearman / Kendall": f"{result.pearson.statistic:.2f} / {result.spearman.statistic:.2f} / "
                                            f"{result.kendall.statistic:.2f}",
            "parse failures": f"{result.failed:,} calls"}


def calibration_section_from_views(reader: StoreReader, views: Sequence[CalibrationView]) -> ReportSection | None:
    """The calibration section from the topic's views (one per judge); the prediction-powered parts read the store
    at their default share of labels and seed."""
    if not views:
        return None
    figures = []
    for view in views:
        result = view.result
        if isinstance(result, PairwiseCalibration):
            table: AgreementTable | RubricCalibration = result.swap_aggregated
            labels: list[str] | list[int] = result.swap_aggregated.labels
        else:
            table, labels = result, result.levels
        figures.append(confusion_heatmap(labels, table.confusion, f"{result.judge} against {view.words.short} labels",
                                         human_label=view.words.axis, judges=[result.judge]))
        if isinstance(result, RubricCalibration):
            figures.append(correlation_forest([("Pearson", result.pearson), ("Spearman", result.spearman),
                                               ("Kendall", result.kendall)], judges=[result.judge]))
    # "In short" gives the plain first line of each verdict; the sentences below keep the coefficients.
    headline = ([view.verdict.lines[0].text for view in views] if len(views) <= HEADLINE_JUDGES
                else _calibration_headline(views))
    sentences = [calibration_sentence(view.result, view.who, view.words) for view in views]
    for view in views:
        result = view.result
        if isinstance(result, RubricCalibration):
            sentences += view.ceiling_sentences
        if (part := prediction_powered_part(reader, result)) is not None:  # the view the page reads
            sentences += [part[0].sentence, part[0].report_sentence]
            figures.append(part[1])
    axes = sorted({view.words.axis for view in views})
    return ReportSection(
        key="calibration", title=("How often the judges agree with the gold labels"
                                  if any(view.words.gold for view in views) else
                                  "How often the judges agree with people"),
        headline=tuple(headline),
        sentences=tuple(sentences), figures=tuple(figures),
        tables=(ReportTable("Agreement with the labels",
                            pd.DataFrame([calibration_row(view.result, view.words) for view in views]),
                            f"The labels ({', '.join(axes)}) are rows of each confusion matrix, judge labels "
                            "columns."),),
        metric_keys=("kappa", "kappa_quadratic", "confusion_matrix", "precision_recall", "pearson", "spearman",
                     "kendall"),
        verdicts=tuple(view.verdict for view in views),
    )


def calibration_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Each judge against the dataset's labels (human, or a reference judge's, said so), where labels exist."""
    if not dataset_has_labels(reader, scope.dataset.id):
        return None
    views = []
    for judge in scope.judges:
        try:
            views.append(calibration_view(reader, scope.dataset.id, judge))
        except NotFoundError:  # the judge made no call on a labelled item
            continue
    return calibration_section_from_views(reader, views)


def _calibration_headline(views: Sequence[CalibrationView]) -> list[str]:
    """"In short" for many judges: who agrees with the labels most and least (score, count, interval), then what
    to do with each group of judges, in the verdicts' own words (their "What to do" lines)."""
    ranked = sorted(views, key=lambda view: -float(view.verdict.figures["kappa"]))

    def score(view: CalibrationView) -> str:
        f = view.verdict.figures
        unit = "pairs" if isinstance(view.result, PairwiseCalibration) else "scored calls"
        return (f"a score of {float(f['kappa']):.2f} on {int(f['instances']):,} {unit}, 95% interval "
                f"{float(f['interval_low']):.2f} to {float(f['interval_high']):.2f}")

    best, worst = ranked[0], ranked[-1]
    labels = sorted({view.words.phrase for view in views})
    sentences = [f"Against {' and '.join(labels)}, of the {len(views)} judges {best.who} agrees most "
                 f"({score(best)}) and {worst.who} least ({score(worst)}), where 0 is chance and 1 is perfect "
                 "agreement."]
    advice: dict[str, list[str]] = {}
    for view in ranked:  # the labels were named once above
        text = view.verdict.lines[-1].text.rstrip(".").replace(view.words.phrase, "the labels")
        advice.setdefault(text, []).append(view.who)
    sentences.append("What to do: " + "; ".join(f"{names_list(names)}: {text[:1].lower()}{text[1:]}"
                                                for text, names in advice.items()) + ".")
    return sentences
