"""Direction of swap-run flips per judge, for the report (charts/pairwise.py draws the rest).

Labels that come from data go through ``plot_label``: a judge, task or candidate name shows as written, never as
markup.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics

FIRST_SLOT_COLOUR = "#d95f02"
SECOND_SLOT_COLOUR = "#1b9e77"


def _bar_height(rows: int) -> int:
    return 160 + 34 * rows


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
