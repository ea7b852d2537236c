"""Plotly figures of judge-vs-human calibration: confusion matrices and correlations with intervals."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import PRIMARY, REFERENCE_LINE, category_rows, named_cells, styled, wrapped_labels
from judgebias_core.metrics.calibration import Correlation
from judgebias_core.metrics.ppi import PredictionPoweredMeanScore, PredictionPoweredWinRate


def confusion_heatmap(labels: Sequence[str | int], confusion: Sequence[Sequence[int]], title: str,
                      human_label: str = "human", judges: Sequence[str] = ()) -> go.Figure:
    """Counts with the human label as rows and the judge's as columns; row shares on hover."""
    table = np.asarray(confusion, dtype=int)
    row_totals = table.sum(axis=1, keepdims=True)
    share = np.divide(table, row_totals, out=np.zeros(table.shape), where=row_totals > 0)
    full = [plot_label(label) for label in labels]
    names, abbreviated = wrapped_labels(full, width=16)
    fig = go.Figure(go.Heatmap(
        z=share, x=names, y=names, zmin=0, zmax=1, colorscale="Blues", text=table, texttemplate="%{text:,}",
        customdata=named_cells([table], full, full), colorbar={"title": {"text": "row share", "side": "right"}, "tickformat": ".0%"},
        hovertemplate=f"{plot_label(human_label)} %{{customdata[1]}}, judge %{{customdata[2]}}"
                      "<br>%{customdata[0]:,} (%{z:.1%} of the row)<extra></extra>",
    ))
    fig.update_layout(title=plot_label(title), xaxis_title="judge", yaxis_title=plot_label(human_label),
                      yaxis={"autorange": "reversed", "type": "category"}, xaxis={"type": "category"})
    return styled(fig, height=380, full_labels=abbreviated, judges=judges)


def correlation_forest(named: Sequence[tuple[str, Correlation]], judges: Sequence[str] = ()) -> go.Figure:
    """Each correlation with its 95% interval, the count behind it on hover."""
    names = [f"{plot_label(name)} (n={c.n:,})" for name, c in named]
    values = np.array([c.statistic for _, c in named], dtype=float)
    fig = go.Figure(go.Scatter(
        x=values, y=names, mode="markers", marker={"size": 10, "color": PRIMARY},
        error_x={"type": "data", "symmetric": False, "color": PRIMARY, "array": [c.ci_high - c.statistic for _, c in named],
                 "arrayminus": [c.statistic - c.ci_low for _, c in named]},
        customdata=[[c.ci_low, c.ci_high, c.method] for _, c in named],
        hovertemplate="%{y}: %{x:.3f}<br>95%: %{customdata[0]:.3f} to %{customdata[1]:.3f} (%{customdata[2]})"
                      "<extra></extra>",
    ))
    fig.add_vline(x=0, line_dash="dot", line_color=REFERENCE_LINE)
    fig.update_layout(xaxis={"range": [-1, 1], "title": "correlation with the labels"},
                      yaxis={"autorange": "reversed", "type": "category"})
    return styled(fig, height=130 + category_rows(len(named), minimum=45), judges=judges)


def ppi_forest(result: PredictionPoweredWinRate | PredictionPoweredMeanScore, judges: Sequence[str] = ()) -> go.Figure:
    """The prediction-powered, human-only and judge-only win rates (or mean scores) with their 95% intervals; a
    dotted line at what every human label gives (known here only because the dataset is labelled throughout)."""
    e = result.estimate
    if isinstance(result, PredictionPoweredMeanScore):
        everything, axis = result.all_labels_human_mean, f"{result.label_source} mean score on {result.rubric_id}"
        source = result.label_source
    else:
        everything, axis, source = result.all_labels_human_win_rate, f"human win rate of {result.candidate}", "human"
    rows = [("prediction-powered", e.ppi), ("human labels only", e.human_only), ("judge only", e.judge_only)]
    names = [f"{name} (n={row.n:,})" for name, row in rows]
    fig = go.Figure(go.Scatter(
        x=[row.estimate for _, row in rows], y=names, mode="markers", marker={"size": 10, "color": PRIMARY},
        error_x={"type": "data", "symmetric": False, "color": PRIMARY,
                 "array": [row.high - row.estimate for _, row in rows],
                 "arrayminus": [row.estimate - row.low for _, row in rows]},
        customdata=[[row.low, row.high, plot_label(row.label)] for _, row in rows],
        hovertemplate="%{y}: %{x:.3f}<br>95%: %{customdata[0]:.3f} to %{customdata[1]:.3f}<br>%{customdata[2]}"
                      "<extra></extra>",
    ))
    if everything is not None:  # None: labels as stored, so what every label gives is unknown
        fig.add_vline(x=everything, line_dash="dot", line_color=REFERENCE_LINE,
                      annotation_text=f"all {plot_label(source)} labels")
    fig.update_layout(xaxis={"title": plot_label(axis)},
                      yaxis={"autorange": "reversed", "type": "category"})
    return styled(fig, height=130 + category_rows(len(rows), minimum=45), judges=judges)
