"""The report's prediction-powered mean score of a rubric judge (issue 14): one sentence and the forest figure, for
the calibration section where the labels are people's."""

from __future__ import annotations

import plotly.graph_objects as go

from judgebias_core.analyses.calibration import prediction_powered_score
from judgebias_core.charts.calibration import ppi_forest
from judgebias_core.charts.style import retitled
from judgebias_core.metrics.calibration import RubricCalibration
from judgebias_core.metrics.ppi import PredictionPoweredMeanScore, labels_worth_sentence
from judgebias_core.store.handle import StoreReader


def _interval(value: float, low: float, high: float) -> str:
    return f"{value:.2f} ({low:.2f} to {high:.2f})"


def ppi_score_sentence(ppi: PredictionPoweredMeanScore, who: str) -> str:
    """The PPI++ mean score next to the human-only and judge-only means, then what the judge's scores are worth."""
    e = ppi.estimate
    caution = f" Caution: {ppi.caveat}." if ppi.caveat else ""
    return (f"What the scores of {who} are worth: keeping the human scores of {ppi.labelled:,} random items of "
            f"{ppi.items:,} (the raters of an item averaged, the judge's calls of an item averaged), the "
            f"prediction-powered estimate (PPI++, Angelopoulos et al. 2023) of the human mean score on "
            f"{ppi.rubric_id} is {_interval(e.ppi.estimate, e.ppi.low, e.ppi.high)}, against "
            f"{_interval(e.human_only.estimate, e.human_only.low, e.human_only.high)} from those labels alone and "
            f"{e.judge_only.estimate:.2f} from the judge alone (not an estimate of the human figure); every label "
            f"gives {ppi.all_labels_human_mean:.2f}. {labels_worth_sentence(e)}{caution}")


def prediction_powered_score_part(reader: StoreReader, result: RubricCalibration,
                                  who: str) -> tuple[str, go.Figure] | None:
    """The sentence and figure for the calibrated run, where the labels are people's (SummEval); the default share
    of labels kept (``metrics.ppi.default_label_fraction``), seed 0."""
    if result.label_source != "human":
        return None
    ppi = prediction_powered_score(reader, result.dataset_id, result.judge, None, result.study)
    return ppi_score_sentence(ppi, who), retitled(
        ppi_forest(ppi, judges=[result.judge]), f"Mean score from {who}, corrected with a sample of people's labels")
