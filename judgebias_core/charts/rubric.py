"""Plotly figures of the rubric position-bias results. They draw result objects and never query the store."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import FIRST_SLOT, HIGHLIGHT, MUTED, PRIMARY, REFERENCE_LINE, styled
from judgebias_core.metrics.bias_cost import OrderingCost
from judgebias_core.metrics.bias_cost_bootstrap import BiasCostRanking
from judgebias_core.metrics.rubric import PositionShare, ScorePositionTable
from judgebias_core.metrics.rubric_balance import PositionTests
from judgebias_core.metrics.rubric_correlation import HumanCorrelation
from judgebias_core.metrics.rubric_geval import GEvalSummary
from judgebias_core.metrics.rubric_report import OrderingResult

BASE = PRIMARY
HEATMAP_SCALE = "RdBu_r"
HEIGHT = 420


def ordering_label(ordering: Sequence[int]) -> str:
    """'51234' for one-digit scores (as the New run page accepts it); comma-separated once a score has two digits."""
    separator = "" if all(0 <= score <= 9 for score in ordering) else ","
    return separator.join(str(score) for score in ordering)


def position_share_figure(share: PositionShare, title: str = "Position selection distribution",
                          tests: PositionTests | None = None, judges: Sequence[str] = ()) -> go.Figure:
    """Share of parsed trials per position against the no-bias line 1/k: with ``tests``, the (exposure-weighted)
    shares with their item-clustered intervals; without, the Wilson intervals that treat calls as independent."""
    positions = [f"position {p}" for p in range(1, share.k + 1)]
    if tests is not None:
        shares = np.array([r.rate for r in tests.shares], dtype=float)
        lows = np.array([r.low for r in tests.shares], dtype=float)
        highs = np.array([r.high for r in tests.shares], dtype=float)
        kind = f"item-clustered interval ({tests.shares[0].method}, {tests.items} items)"
        weighted = " (exposure-weighted)" if tests.weighting == "orderings-equal" else ""
    else:
        shares, lows, highs = (np.array(v, dtype=float) for v in (share.shares, share.ci_low, share.ci_high))
        kind, weighted = "Wilson interval (calls assumed independent)", ""
    figure = go.Figure(go.Bar(
        x=positions, y=shares, marker_color=BASE,
        error_y={"type": "data", "symmetric": False, "array": highs - shares, "arrayminus": shares - lows},
        customdata=np.column_stack([share.counts, lows, highs]),
        hovertemplate="%{x}: %{y:.1%}" + weighted + " (%{customdata[0]} of " + f"{share.n}" + " parsed trials)<br>"
        f"95% {kind} " + "%{customdata[1]:.1%} to %{customdata[2]:.1%}<extra></extra>",
    ))
    figure.add_hline(y=share.uniform, line_dash="dash", line_color=REFERENCE_LINE,
                     annotation_text=f"no bias: 1/{share.k}", annotation_position="top right")
    figure.update_layout(title=f"{title} (n = {share.n} parsed trials)", yaxis_tickformat=".0%",
                         yaxis_title="share of choices")
    return styled(figure, height=HEIGHT, judges=judges)


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


def score_position_heatmap(table: ScorePositionTable, title: str = "P(position | score)", judges: Sequence[str] = ()) -> go.Figure:
    """k x k heatmap, row = score, column = position; 1/k everywhere means no bias; blank row = never chosen."""
    figure = go.Figure(_heatmap_trace(table))
    figure.update_layout(title=f"{title} (no bias: every cell 1/{table.k})", yaxis_autorange="reversed")
    return styled(figure, height=HEIGHT, judges=judges)


def score_position_grid(tables: Sequence[tuple[str, ScorePositionTable]], judges: Sequence[str] = ()) -> go.Figure:
    """The same heatmap side by side, one panel per labelled run (e.g. one per judge)."""
    figure = make_subplots(rows=1, cols=len(tables), subplot_titles=[plot_label(label) for label, _ in tables],
                           horizontal_spacing=0.06)
    for column, (_, table) in enumerate(tables, start=1):
        figure.add_trace(_heatmap_trace(table, show_scale=column == len(tables)), row=1, col=column)
        figure.update_yaxes(autorange="reversed", row=1, col=column)
    figure.update_layout(title="P(position | score) by run")
    return styled(figure, height=HEIGHT, judges=judges)


def correlation_comparison_figure(human: HumanCorrelation, judges: Sequence[str] = ()) -> go.Figure:
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
    return styled(figure, height=HEIGHT, judges=judges)


def ordering_rank_figure(orderings: Sequence[OrderingResult], against: str = "human scores", judges: Sequence[str] = ()) -> go.Figure:
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
    return styled(figure, height=HEIGHT, judges=judges)


def bias_cost_figure(costs: Sequence[OrderingCost], limit: int = 40,
                     intervals: BiasCostRanking | None = None, judges: Sequence[str] = ()) -> go.Figure:
    """Bias Cost of candidate orderings, lowest first (the recommendation in red, the canonical ordering marked),
    with the item-bootstrap intervals when ``intervals`` carries them."""
    shown = sorted(costs, key=lambda c: (c.rank, c.ordering))[:limit]
    best = shown[0].bias_cost if shown and (intervals is None or intervals.defined) else None
    bounds = [intervals.interval_of(c.ordering) if intervals is not None else None for c in shown]
    error_y = None
    if bounds and all(b is not None for b in bounds):
        error_y = {"type": "data", "symmetric": False, "array": [b.high - b.bias_cost for b in bounds if b],
                   "arrayminus": [b.bias_cost - b.low for b in bounds if b]}
    figure = go.Figure(go.Bar(
        x=[ordering_label(c.ordering) + (" (canonical)" if c.canonical else "") for c in shown],
        y=[c.bias_cost for c in shown], error_y=error_y,
        marker_color=[HIGHLIGHT if c.bias_cost == best else (MUTED if not c.canonical else FIRST_SLOT) for c in shown],
        customdata=[[c.rank, b.low if b else float("nan"), b.high if b else float("nan"),
                     b.lowest_share if b else float("nan")] for c, b in zip(shown, bounds, strict=True)],
        hovertemplate="ordering %{x}: Bias Cost %{y:.3f}, rank %{customdata[0]}<br>95% item-bootstrap interval "
        "%{customdata[1]:.3f} to %{customdata[2]:.3f}; lowest in %{customdata[3]:.0%} of resamples<extra></extra>",
    ))
    more = f" (the {limit} lowest of {len(costs)})" if len(costs) > limit else ""
    figure.update_layout(title=f"Bias Cost by candidate ordering{more}: lower is less biased", xaxis_type="category",
                         xaxis_title="ordering (scores in position order)", yaxis_title="Bias Cost")
    return styled(figure, height=HEIGHT, judges=judges)


def geval_pull_figure(geval: GEvalSummary, title: str = "Position pull: expected vs parsed score", judges: Sequence[str] = ()) -> go.Figure:
    """Per position, the within-item slope of the expected and of the parsed score on the score shown there
    (0 = blind to the order), each with its item-bootstrap interval; a zero-width interval is not drawn."""
    figure = go.Figure()
    positions = [f"position {p.position}" for p in geval.pulls]
    for name, values, bounds, degenerate, colour in (
            ("expected score (G-Eval)", [p.expected for p in geval.pulls], [p.expected_ci for p in geval.pulls],
             [p.expected_degenerate for p in geval.pulls], BASE),
            ("parsed score", [p.parsed for p in geval.pulls], [p.parsed_ci for p in geval.pulls],
             [p.parsed_degenerate for p in geval.pulls], MUTED)):
        value = np.array(values, dtype=float)
        flat = np.array(degenerate, dtype=bool)
        low = np.array([b[0] for b in bounds], dtype=float)
        high = np.array([b[1] for b in bounds], dtype=float)
        notes = ["no interval: every item gives the same slope" if d else
                 f"95% item-bootstrap interval {lo:.3f} to {hi:.3f}" for d, lo, hi in zip(flat, low, high, strict=True)]
        figure.add_trace(go.Bar(
            name=name, x=positions, y=value, marker_color=colour, customdata=notes,
            error_y={"type": "data", "symmetric": False, "array": np.where(flat, 0.0, high - value),
                     "arrayminus": np.where(flat, 0.0, value - low)},
            hovertemplate=f"{name}, " + "%{x}: pull %{y:.3f}<br>%{customdata}<extra></extra>",
        ))
    figure.add_hline(y=0, line_dash="dash", line_color=REFERENCE_LINE, annotation_text="blind to the order: 0")
    figure.update_layout(barmode="group", title=f"{title} ({geval.compared} calls, {geval.items} items)",
                         yaxis_title="points per point of the option shown there")
    return styled(figure, height=HEIGHT, judges=judges)
