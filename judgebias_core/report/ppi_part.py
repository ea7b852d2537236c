"""The report's judge-assisted estimate (prediction-powered inference; issue 14) for the calibration section, where
the labels are people's: the plain reading and the sentence with the figures, both from the view the Calibration
page and ``metrics ppi --json`` read (``analyses.ppi_view``), and the forest figure."""

from __future__ import annotations

import plotly.graph_objects as go

from judgebias_core.analyses.ppi_view import PPIView, ppi_view
from judgebias_core.charts.calibration import ppi_forest
from judgebias_core.charts.style import retitled
from judgebias_core.metrics.calibration import ORIGINAL_FIRST, PairwiseCalibration, RubricCalibration
from judgebias_core.store.handle import StoreReader


def report_ppi_view(reader: StoreReader, result: PairwiseCalibration | RubricCalibration) -> PPIView | None:
    """The view at the default share of labels kept and seed 0, for the calibrated run, where the labels are
    people's (and, pairwise, name the candidates: Auto-J); None elsewhere."""
    if result.label_source != "human":
        return None
    if isinstance(result, PairwiseCalibration) and ORIGINAL_FIRST in result.swap_aggregated.labels:
        return None
    return ppi_view(reader, result.dataset_id, result.judge, None, None, result.study)


def prediction_powered_part(reader: StoreReader,
                            result: PairwiseCalibration | RubricCalibration) -> tuple[PPIView, go.Figure] | None:
    """The view and its figure, titled in plain words (the judge, and "simulated" where it is, named)."""
    view = report_ppi_view(reader, result)
    if view is None:
        return None
    title = (f"Win rate from the verdicts of {view.who}, corrected with a sample of people's labels" if view.win_rate
             else f"Mean score from {view.who}, corrected with a sample of people's labels")
    return view, retitled(ppi_forest(view.result, judges=[result.judge]), title)
