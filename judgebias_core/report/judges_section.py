"""Report sections that compare judges: agreement between judges, agreement with people (the leaderboard is in
report/leaderboard_section.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from judgebias_core.analyses.calibration import calibration, dataset_label_words, prediction_powered
from judgebias_core.analyses.datasets import dataset_has_labels
from judgebias_core.analyses.judges_view import JudgesView, judges_view
from judgebias_core.charts.calibration import confusion_heatmap, correlation_forest, ppi_forest
from judgebias_core.charts.judges import agreement_heatmap, disagreement_bars
from judgebias_core.charts.style import retitled
from judgebias_core.errors import NotFoundError
from judgebias_core.metrics.calibration import ORIGINAL_FIRST, AgreementTable, PairwiseCalibration, RubricCalibration
from judgebias_core.metrics.label_words import LabelWords
from judgebias_core.metrics.ppi import PredictionPoweredWinRate
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.report.ppi_part import prediction_powered_score_part
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import count_of, percent
from judgebias_core.wording.verdict import calibration_verdict


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


def human_ceiling_sentences(result: RubricCalibration, who: str | None = None) -> list[str]:
    """The judge's agreement with the experts read against the experts' agreement with each other; ``who`` names
    the judge in the sentence itself (a simulated judge is called one where it is compared with people)."""
    readings = (result.human_agreement_reading, result.human_pairwise_kappa_reading)
    named = [reading.replace("this judge", who, 1) if who else reading for reading in readings if reading]
    return [f"Human ceiling: {text if who and text.startswith(who) else text[0].upper() + text[1:]}."
            for text in named]


def ppi_sentence(ppi: PredictionPoweredWinRate, who: str) -> str:
    e = ppi.estimate
    return (f"What the verdicts of {who} are worth: keeping the human labels of {ppi.labelled:,} random items of "
            f"{ppi.items:,}, the prediction-powered estimate (PPI++, Angelopoulos et al. 2023) of "
            f"{ppi.candidate}'s human win rate is {_interval(e.ppi.estimate, e.ppi.low, e.ppi.high)}, against "
            f"{_interval(e.human_only.estimate, e.human_only.low, e.human_only.high)} from those labels alone and "
            f"{e.judge_only.estimate:.2f} from the judge alone (not an estimate of the human figure); every human "
            f"label gives {ppi.all_labels_human_win_rate:.2f}." + (f" Caution: {ppi.caveat}." if ppi.caveat else ""))


def _prediction_powered_part(reader: StoreReader, result: PairwiseCalibration,
                             who: str) -> tuple[str, go.Figure] | None:
    """The PPI sentence and figure where the labels are people's and name the candidates (Auto-J)."""
    labels = result.swap_aggregated.labels
    if result.label_source != "human" or ORIGINAL_FIRST in labels:
        return None
    ppi = prediction_powered(reader, result.dataset_id, result.judge, None, result.study)
    return ppi_sentence(ppi, who), retitled(
        ppi_forest(ppi, judges=[result.judge]),
        f"Win rate from the verdicts of {who}, corrected with a sample of people's labels")


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


def calibration_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Each judge against the dataset's labels (human, or a reference judge's, said so), where labels exist."""
    if not dataset_has_labels(reader, scope.dataset.id):
        return None
    results = []
    for judge in scope.judges:
        try:
            results.append(calibration(reader, scope.dataset.id, judge))
        except NotFoundError:  # the judge made no call on a labelled item
            continue
    if not results:
        return None
    figures = []
    for result in results:
        if isinstance(result, PairwiseCalibration):
            table: AgreementTable | RubricCalibration = result.swap_aggregated
            labels: list[str] | list[int] = result.swap_aggregated.labels
        else:
            table, labels = result, result.levels
        named = dataset_label_words(reader, scope.dataset.id, result.label_source)
        figures.append(confusion_heatmap(labels, table.confusion, f"{result.judge} against {named.short} labels",
                                         human_label=named.axis, judges=[result.judge]))
        if isinstance(result, RubricCalibration):
            figures.append(correlation_forest([("Pearson", result.pearson), ("Spearman", result.spearman),
                                               ("Kendall", result.kendall)], judges=[result.judge]))
    words = {r.label_source: dataset_label_words(reader, scope.dataset.id, r.label_source) for r in results}
    verdicts = [calibration_verdict(r, scope.who(r.judge), r.judge in scope.simulated, words[r.label_source])
                for r in results]
    # "In short" gives the plain first line of each verdict; the sentences below keep the coefficients.
    headline = [v.lines[0].text for v in verdicts]
    sentences = [calibration_sentence(r, scope.who(r.judge), words[r.label_source]) for r in results]
    for result in results:
        if isinstance(result, RubricCalibration):
            sentences += human_ceiling_sentences(result, scope.who(result.judge))
            if (score_part := prediction_powered_score_part(reader, result, scope.who(result.judge))) is not None:
                sentences.append(score_part[0])
                figures.append(score_part[1])
        elif (part := _prediction_powered_part(reader, result, scope.who(result.judge))) is not None:
            sentences.append(part[0])
            figures.append(part[1])
    return ReportSection(
        key="calibration", title=("How often the judges agree with the gold labels"
                                  if any(w.gold for w in words.values()) else "How often the judges agree with people"),
        headline=tuple(headline),
        sentences=tuple(sentences), figures=tuple(figures),
        tables=(ReportTable("Agreement with the labels",
                            pd.DataFrame([calibration_row(r, words[r.label_source]) for r in results]),
                            f"The labels ({', '.join(sorted({w.axis for w in words.values()}))}) are rows of each "
                            "confusion matrix, judge labels columns."),),
        metric_keys=("kappa", "kappa_quadratic", "confusion_matrix", "precision_recall", "pearson", "spearman",
                     "kendall"),
        verdicts=tuple(verdicts),
    )
