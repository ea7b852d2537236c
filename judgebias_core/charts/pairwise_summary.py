"""Summary figures of swap-run results for the report: flip rate per judge, its direction, consistency by task.

Labels that come from data go through ``plot_label``: a judge, task or candidate name shows as written, never as
markup.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics

FIRST_SLOT_COLOUR = "#d95f02"
SECOND_SLOT_COLOUR = "#1b9e77"
BAR_COLOUR = "#4c72b0"


def _bar_height(rows: int) -> int:
    return 160 + 34 * rows


def flip_rate_figure(results: Sequence[PairwiseJudgeMetrics]) -> go.Figure:
    """Flip rate per judge (horizontal bars) with the 95% Wilson interval; hover gives n and the item bootstrap."""
    ordered = sorted(results, key=lambda r: r.flip_rate)
    labels = [plot_label(r.judge) for r in ordered]
    fig = go.Figure(go.Bar(
        x=[r.flip_rate for r in ordered], y=labels, orientation="h", marker_color=BAR_COLOUR,
        error_x={"type": "data", "symmetric": False,
                 "array": [r.flip_rate_ci_high - r.flip_rate for r in ordered],
                 "arrayminus": [r.flip_rate - r.flip_rate_ci_low for r in ordered]},
        customdata=[[r.primacy + r.recency, r.classified_pairs, r.flip_rate_ci_low, r.flip_rate_ci_high,
                     r.bootstrap_ci_low, r.bootstrap_ci_high] for r in ordered],
        hovertemplate="%{y}<br>flip rate %{x:.1%} (%{customdata[0]} of %{customdata[1]} pairs)"
                      "<br>95% Wilson %{customdata[2]:.1%}–%{customdata[3]:.1%}"
                      "<br>95% item bootstrap %{customdata[4]:.1%}–%{customdata[5]:.1%}<extra></extra>",
    ))
    fig.update_layout(title="Flip rate: share of pairs whose verdict changes when the answers swap places",
                      xaxis={"title": "flip rate (bars: 95% Wilson interval)", "tickformat": ".0%", "rangemode": "tozero"},
                      height=_bar_height(len(ordered)), margin={"l": 10, "r": 20, "t": 60, "b": 40})
    return fig


def direction_figure(results: Sequence[PairwiseJudgeMetrics]) -> go.Figure:
    """Per judge, how many of its changed verdicts favoured the first slot and how many the second."""
    ordered = sorted(results, key=lambda r: r.flip_rate)
    labels = [plot_label(r.judge) for r in ordered]
    fig = go.Figure()
    for name, counts, colour in (
        ("favoured the answer shown first", [r.primacy for r in ordered], FIRST_SLOT_COLOUR),
        ("favoured the answer shown second", [r.recency for r in ordered], SECOND_SLOT_COLOUR),
    ):
        fig.add_trace(go.Bar(x=counts, y=labels, orientation="h", name=name, marker_color=colour,
                             hovertemplate="%{y}: %{x} pairs " + name + "<extra></extra>"))
    fig.update_layout(barmode="stack", title="Direction: which answer the changed verdicts favoured",
                      xaxis_title="pairs whose verdict changed", height=_bar_height(len(ordered)) + 30,
                      legend={"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom", "traceorder": "normal"},
                      margin={"l": 10, "r": 20, "t": 90, "b": 40})
    return fig


def task_consistency_figure(breakdown: pd.DataFrame, by: str = "task") -> go.Figure:
    """Heatmap of position consistency per judge and task (pooled counts); hover gives the pairs behind it."""
    pc = breakdown.pivot(index="judge", columns=by, values="position_consistency")
    pairs = breakdown.pivot(index="judge", columns=by, values="classified").reindex_like(pc)
    fig = go.Figure(go.Heatmap(
        z=pc.to_numpy(), x=[plot_label(c) for c in pc.columns], y=[plot_label(i) for i in pc.index],
        customdata=pairs.to_numpy(), zmin=0, zmax=1, colorscale="RdYlGn", colorbar={"title": "PC", "tickformat": ".0%"},
        texttemplate="%{z:.0%}", hovertemplate="%{y} · %{x}<br>consistency %{z:.1%} of %{customdata} pairs<extra></extra>",
    ))
    fig.update_layout(title=f"Position consistency by {by}", height=140 + 40 * len(pc.index),
                      margin={"l": 10, "r": 20, "t": 60, "b": 40})
    return fig
