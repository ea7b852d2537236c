"""Plotly figures of the rubric position-bias results. They draw result objects and never query the store."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import FIRST_SLOT, HIGHLIGHT, MUTED, PRIMARY, REFERENCE_LINE, styled
from judgebias_core.metrics.bias_cost import OrderingCost
from judgebias_core.metrics.rubric import PositionShare, ScorePositionTable
from judgebias_core.metrics.rubric_correlation import HumanCorrelation
from judgebias_core.metrics.rubric_report import OrderingResult

BASE = PRIMARY
HEATMAP_SCALE = "RdBu_r"
HEIGHT = 420


def ordering_label(ordering: Sequence[int]) -> str:
    """'51234' for one-digit scores (as the New run page accepts it); comma-separated once a score has two digits."""
    separator = "" if all(0 <= score <= 9 for score in ordering) else ","
    return separator.join(str(score) for score in ordering)


def position_share_figure(share: PositionShare, title: str = "Position selection distribution") -> go.Figure:
    """Share of parsed trials per position with Wilson intervals, against the no-bias line 1/k."""
    positions = [f"position {p}" for p in range(1, share.k + 1)]
    shares = np.array(share.shares, dtype=float)
    figure = go.Figure(go.Bar(
        x=positions, y=shares, marker_color=BASE,
        error_y={"type": "data", "symmetric": False, "array": np.array(share.ci_high) - shares,
                 "arrayminus": shares - np.array(share.ci_low)},
        customdata=np.column_stack([share.counts, share.ci_low, share.ci_high]),
        hovertemplate="%{x}: %{y:.1%} (%{customdata[0]} of " + f"{share.n}" + " parsed trials)<br>"
        "95% Wilson interval %{customdata[1]:.1%} to %{customdata[2]:.1%}<extra></extra>",
    ))
    figure.add_hline(y=share.uniform, line_dash="dash", line_color=REFERENCE_LINE,
                     annotation_text=f"no bias: 1/{share.k}", annotation_position="top right")
    figure.update_layout(title=f"{title} (n = {share.n} parsed trials)", yaxis_tickformat=".0%",
                         yaxis_title="share of choices")
    return styled(figure, height=HEIGHT)


def _heatmap_trace(table: ScorePositionTable, show_scale: bool = True) -> go.Heatmap:
    counts = np.array(table.counts)
    totals = counts.sum(axis=1, keepdims=True).repeat(table.k, axis=1)
    return go.Heatmap(
        z=table.matrix(), x=[f"pos {p}" for p in range(1, table.k + 1)], y=[f"score {s}" for s in table.scores],
        # White at the no-bias value 1/k; from 2/k up the colour saturates (P that far above 1/k is all red).
        zmin=0, zmax=min(1.0, 2 / table.k), colorscale=HEATMAP_SCALE, showscale=show_scale,
        customdata=np.stack([counts, totals], axis=-1),
        texttemplate="%{z:.2f}", hoverongaps=False,
        hovertemplate="%{y} chosen at %{x}: P = %{z:.3f}<br>%{customdata[0]} of %{customdata[1]} trials "
        "that chose this score<extra></extra>",
        colorbar={"title": "P(p | s)", "tickformat": ".0%"},
    )


def score_position_heatmap(table: ScorePositionTable, title: str = "P(position | score)") -> go.Figure:
    """k x k heatmap, row = score, column = position; 1/k everywhere means no bias; blank row = never chosen."""
    figure = go.Figure(_heatmap_trace(table))
    figure.update_layout(title=f"{title} (no bias: every cell 1/{table.k})", yaxis_autorange="reversed")
    return styled(figure, height=HEIGHT)


def score_position_grid(tables: Sequence[tuple[str, ScorePositionTable]]) -> go.Figure:
    """The same heatmap side by side, one panel per labelled run (e.g. one per judge)."""
    figure = make_subplots(rows=1, cols=len(tables), subplot_titles=[plot_label(label) for label, _ in tables],
                           horizontal_spacing=0.06)
    for column, (_, table) in enumerate(tables, start=1):
        figure.add_trace(_heatmap_trace(table, show_scale=column == len(tables)), row=1, col=column)
        figure.update_yaxes(autorange="reversed", row=1, col=column)
    figure.update_layout(title="P(position | score) by run")
    return styled(figure, height=HEIGHT)


def correlation_comparison_figure(human: HumanCorrelation) -> go.Figure:
    """Pearson and Spearman of Permutation and Repeat against the labels, with bootstrap intervals."""
    figure = go.Figure()
    against = "human scores" if human.label_source == "human" else "a reference judge"
    parts = [("Permutation", human.permutation, BASE), ("Repeat", human.repeat, MUTED)]
    for name, estimate, colour in parts:
        if estimate is None:
            continue
        values = np.array([estimate.pearson, estimate.spearman], dtype=float)
        lows = np.array([estimate.pearson_ci[0], estimate.spearman_ci[0]], dtype=float)
        highs = np.array([estimate.pearson_ci[1], estimate.spearman_ci[1]], dtype=float)
        figure.add_trace(go.Bar(
            name=f"{name} (n = {estimate.n} items)", x=["Pearson r", "Spearman rho"], y=values, marker_color=colour,
            error_y={"type": "data", "symmetric": False, "array": highs - values, "arrayminus": values - lows},
            customdata=np.column_stack([lows, highs]),
            hovertemplate=f"{name}: " + "%{y:.3f} (95% bootstrap CI %{customdata[0]:.3f} to %{customdata[1]:.3f})"
            f", n = {estimate.n} items<extra></extra>",
        ))
    figure.update_layout(barmode="group", title=f"Correlation with {against}: Permutation vs Repeat",
                         yaxis_title="correlation")
    return styled(figure, height=HEIGHT)


def ordering_rank_figure(orderings: Sequence[OrderingResult], against: str = "human scores") -> go.Figure:
    """One bar per ordering's Pearson r with the labels, best first; the canonical ordering highlighted."""
    ranked = sorted(orderings, key=lambda o: (o.rank is None, o.rank or 0, o.ordering))
    labels = [ordering_label(o.ordering) for o in ranked]
    figure = go.Figure(go.Bar(
        x=labels, y=[o.pearson for o in ranked],
        marker_color=[HIGHLIGHT if o.canonical else BASE for o in ranked],
        text=[f"#{o.rank}" if o.rank is not None else "" for o in ranked], textposition="outside",
        customdata=np.array([[o.spearman, o.n, o.rank or 0] for o in ranked], dtype=float),
        hovertemplate="ordering %{x}: Pearson %{y:.3f}, Spearman %{customdata[0]:.3f}, n = %{customdata[1]:.0f} "
        "items, rank %{customdata[2]:.0f}<extra></extra>",
    ))
    canonical = next((o for o in ranked if o.canonical), None)
    note = f" · canonical (red) ranks {canonical.rank} of {len(ranked)}" if canonical and canonical.rank else ""
    figure.update_layout(title=f"Correlation with {against} by ordering{note}", xaxis_title="ordering (scores in "
                         "position order)", xaxis_type="category", yaxis_title="Pearson r")
    return styled(figure, height=HEIGHT)


def bias_cost_figure(costs: Sequence[OrderingCost], limit: int = 40) -> go.Figure:
    """Bias Cost of candidate orderings, lowest first (the recommendation in red, the canonical ordering marked)."""
    shown = sorted(costs, key=lambda c: (c.rank, c.ordering))[:limit]
    best = shown[0].bias_cost if shown else None
    figure = go.Figure(go.Bar(
        x=[ordering_label(c.ordering) + (" (canonical)" if c.canonical else "") for c in shown],
        y=[c.bias_cost for c in shown],
        marker_color=[HIGHLIGHT if c.bias_cost == best else (MUTED if not c.canonical else FIRST_SLOT) for c in shown],
        customdata=[c.rank for c in shown],
        hovertemplate="ordering %{x}: Bias Cost %{y:.3f}, rank %{customdata}<extra></extra>",
    ))
    more = f" (the {limit} lowest of {len(costs)})" if len(costs) > limit else ""
    figure.update_layout(title=f"Bias Cost by candidate ordering{more}: lower is less biased", xaxis_type="category",
                         xaxis_title="ordering (scores in position order)", yaxis_title="Bias Cost")
    return styled(figure, height=HEIGHT)
