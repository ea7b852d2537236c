"""Direction of swap-run flips per judge, for the report (charts/pairwise.py draws the rest).

Labels that come from data go through ``plot_label``: a judge, task or candidate name shows as written, never as
markup.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import FIRST_SLOT, SECOND_SLOT, category_rows, label_lines, styled, wrapped_labels
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics


def direction_figure(results: Sequence[PairwiseJudgeMetrics]) -> go.Figure:
    """Per judge, how many of its changed verdicts favoured the first slot and how many the second."""
    ordered = sorted(results, key=lambda r: r.flip_rate)
    labels, abbreviated = wrapped_labels([plot_label(r.judge) for r in ordered])
    fig = go.Figure()
    for name, counts, colour in (
        ("favoured the answer shown first", [r.primacy for r in ordered], FIRST_SLOT),
        ("favoured the answer shown second", [r.recency for r in ordered], SECOND_SLOT),
    ):
        fig.add_trace(go.Bar(x=counts, y=labels, orientation="h", name=name, marker_color=colour,
                             hovertemplate="%{y}: %{x} pairs " + name + "<extra></extra>"))
    fig.update_layout(barmode="stack", title="Direction: which answer the changed verdicts favoured",
                      xaxis_title="pairs whose verdict changed", yaxis={"type": "category"},
                      legend={"traceorder": "normal"})
    return styled(fig, height=190 + category_rows(len(ordered), label_lines(labels)), legend="top",
                  full_labels=abbreviated)
