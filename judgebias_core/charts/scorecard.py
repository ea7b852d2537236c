"""The scorecard's chart: accuracy against cost per 1,000 judgments (or against the flip rate when cost is not
recorded for every configuration), every point labelled; without labels, the flip rate of every configuration."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import HIGHLIGHT, PRIMARY, category_rows, label_lines, styled, wrapped_labels
from judgebias_core.metrics.scorecard import ScorecardRow, chart_axis, point_numbers

# Up to this many points carry their configuration's name; beyond, a number that the table's "#" column names.
NAMED_POINTS = 12
__all__ = ["NAMED_POINTS", "chart_axis", "point_numbers", "scorecard_chart"]


def scorecard_chart(rows: Sequence[ScorecardRow], best: str | None, recommended: str | None) -> go.Figure:
    """Accuracy (swap-averaged, item-clustered 95% bars) against cost or flip rate; one labelled point each."""
    labelled = [r for r in rows if r.accuracy is not None]
    if not labelled:
        return _flip_forest(rows)
    numbers = point_numbers(rows)
    axis = chart_axis(labelled)
    named = len(labelled) <= NAMED_POINTS
    fig = go.Figure()
    for row in labelled:
        acc = row.accuracy
        assert acc is not None
        x = row.cost_per_1000.value if axis == "cost" else row.flip_rate.estimate
        colour = HIGHLIGHT if row.label in (best, recommended) else PRIMARY
        text = plot_label(row.label) if named else str(numbers[row.label])
        fig.add_trace(go.Scatter(
            x=[x], y=[acc.estimate], mode="markers+text", text=[text], textposition="top center",
            textfont={"size": 11}, showlegend=False, name=plot_label(row.label),
            marker={"size": 9, "color": colour},
            error_y={"type": "data", "symmetric": False, "array": [acc.high - acc.estimate],
                     "arrayminus": [acc.estimate - acc.low], "color": colour, "thickness": 1.2, "width": 3},
            customdata=[[numbers[row.label], acc.low, acc.high, row.labelled_pairs, row.flip_rate.estimate]],
            hovertemplate="#%{customdata[0]} %{fullData.name}<br>accuracy %{y:.3f} (95% %{customdata[1]:.3f} to "
                          "%{customdata[2]:.3f}, %{customdata[3]} pairs)<br>flip rate %{customdata[4]:.3f}"
                          "<extra></extra>",
        ))
    x_title = ("cost per 1,000 judgments, USD (recorded or estimated)" if axis == "cost"
               else "flip rate (cost not recorded for every configuration)")
    fig.update_layout(xaxis_title=x_title, yaxis_title="accuracy, swap-averaged (95% item-clustered)",
                      yaxis={"rangemode": "tozero"}, xaxis={"rangemode": "tozero"})
    return styled(fig, height=480, legend="none", judges=[r.judge for r in rows])


def _flip_forest(rows: Sequence[ScorecardRow]) -> go.Figure:
    """No labels: every configuration's flip rate with its item-clustered interval, names on the axis."""
    shown = [r for r in rows if r.flip_rate.pairs]
    names = [f"{r.label} (n={r.flip_rate.pairs:,})" for r in shown]
    labels, abbreviated = wrapped_labels(names, width=34)
    fig = go.Figure(go.Scatter(
        x=[r.flip_rate.estimate for r in shown], y=labels, mode="markers", marker={"size": 9, "color": PRIMARY},
        error_x={"type": "data", "symmetric": False, "array": [r.flip_rate.high - r.flip_rate.estimate for r in shown],
                 "arrayminus": [r.flip_rate.estimate - r.flip_rate.low for r in shown], "color": PRIMARY},
        customdata=[[r.flip_rate.low, r.flip_rate.high, int(r.flip_rate.events), r.flip_rate.pairs] for r in shown],
        hovertemplate="%{y}<br>flip rate %{x:.3f} (%{customdata[2]} of %{customdata[3]} pairs; 95% "
                      "%{customdata[0]:.3f} to %{customdata[1]:.3f})<extra></extra>", showlegend=False,
    ))
    fig.update_layout(xaxis_title="flip rate (no labels here, so no accuracy)",
                      yaxis={"autorange": "reversed", "type": "category"}, xaxis={"rangemode": "tozero"})
    return styled(fig, height=120 + category_rows(len(shown), label_lines(labels)), legend="none",
                  full_labels=abbreviated, judges=[r.judge for r in rows])
