"""Plotly figures of pairwise position bias: flip-rate forest plot, judge x task heatmaps, quality-gap scatter.

Names from data (judges, datasets, studies, tasks, candidates) go through ``plot_label``: plotly reads markup in
labels and hover text. Hover templates name a trace with ``%{fullData.name}`` rather than pasting a name in.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics

METRIC_LABELS = {"position_consistency": "Position consistency", "preference_fairness": "Preference fairness"}


def _row_label(result: PairwiseJudgeMetrics, with_scope: bool) -> str:
    label = plot_label(result.judge)
    if with_scope:
        label += f" · {plot_label(result.dataset)}/{plot_label(result.study)}"
        if result.study == "repetition" or result.repetition > 1:
            label += f" rep {result.repetition}"
    return label


def flip_rate_forest(results: Sequence[PairwiseJudgeMetrics]) -> go.Figure:
    """Flip rate per row with its Wilson 95% interval (pairs independent) and item-bootstrap 95% interval."""
    rows = [r for r in results if r.classified_pairs > 0]
    with_scope = len({(r.dataset, r.study, r.repetition) for r in rows}) > 1
    labels = [f"{_row_label(r, with_scope)} (n={r.classified_pairs:,})" for r in rows]
    rate = np.array([r.flip_rate for r in rows])
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=rate, y=labels, mode="markers", name="Wilson 95% (pairs independent)",
        marker={"size": 9, "color": "#1f77b4"},
        error_x={"type": "data", "symmetric": False,
                 "array": [r.flip_rate_ci_high - r.flip_rate for r in rows],
                 "arrayminus": [r.flip_rate - r.flip_rate_ci_low for r in rows]},
        customdata=[[r.primacy + r.recency, r.classified_pairs, r.flip_rate_ci_low, r.flip_rate_ci_high]
                    for r in rows],
        hovertemplate="%{y}<br>flip rate %{x:.3f} (%{customdata[0]} of %{customdata[1]} pairs)"
                      "<br>Wilson 95%: %{customdata[2]:.3f} to %{customdata[3]:.3f}<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=rate, y=labels, mode="markers", name="item bootstrap 95% (items resampled)",
        marker={"size": 1, "color": "#ff7f0e"}, opacity=0.7,
        error_x={"type": "data", "symmetric": False, "thickness": 5, "width": 0,
                 "array": [r.bootstrap_ci_high - r.flip_rate for r in rows],
                 "arrayminus": [r.flip_rate - r.bootstrap_ci_low for r in rows]},
        customdata=[[r.bootstrap_ci_low, r.bootstrap_ci_high, r.items, r.bootstrap_resamples] for r in rows],
        hovertemplate="%{y}<br>bootstrap 95%: %{customdata[0]:.3f} to %{customdata[1]:.3f}"
                      "<br>%{customdata[2]} items, %{customdata[3]} resamples<extra></extra>",
    ))
    fig.update_layout(
        xaxis_title="flip rate (share of pairs whose verdict changes when the answers swap)",
        yaxis={"autorange": "reversed"}, height=max(260, 40 * len(rows) + 120),
        legend={"orientation": "h", "y": -0.25}, margin={"l": 10, "r": 10, "t": 30, "b": 10},
    )
    return fig


def judge_task_heatmap(breakdown: pd.DataFrame, metric: str, by: str = "task") -> go.Figure:
    """Judge x task heatmap of PC or PF from a ``task_breakdown`` frame; counts on hover."""
    values = breakdown.pivot(index="judge", columns=by, values=metric)
    pairs = breakdown.pivot(index="judge", columns=by, values="classified").reindex_like(values)
    units = breakdown.pivot(index="judge", columns=by, values="units").reindex_like(values)
    diverging = metric == "preference_fairness"
    span = float(np.nanmax(np.abs(values.to_numpy()))) if diverging and values.size else 1.0
    fig = go.Figure(go.Heatmap(
        z=values.to_numpy(), x=[plot_label(c) for c in values.columns], y=[plot_label(j) for j in values.index],
        colorscale="RdBu" if diverging else "Viridis",
        zmid=0 if diverging else None, zmin=-span if diverging else None, zmax=span if diverging else None,
        text=np.vectorize(lambda v: "" if pd.isna(v) else f"{v:.2f}")(values.to_numpy()),
        texttemplate="%{text}",
        customdata=np.dstack([pairs.to_numpy(), units.to_numpy()]),
        hovertemplate=f"%{{y}} · %{{x}}<br>{METRIC_LABELS.get(metric, metric)} %{{z:.3f}}"
                      "<br>%{customdata[0]} classified pairs, %{customdata[1]} units<extra></extra>",
        colorbar={"title": METRIC_LABELS.get(metric, metric)},
    ))
    fig.update_layout(height=max(260, 34 * len(values.index) + 160), margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      xaxis_title=by, yaxis_title="judge")
    return fig


def quality_gap_scatter(units: pd.DataFrame, metric: str) -> go.Figure:
    """One point per (judge, candidate, task): PC or PF against the answer quality gap, coloured by judge."""
    fig = go.Figure()
    for judge, group in units.groupby("judge"):
        fig.add_trace(go.Scatter(
            x=group["quality_gap"], y=group[metric], mode="markers", name=plot_label(judge), opacity=0.75,
            customdata=group[["candidate", "task", "classified", "overall_win_rate"]]
            .assign(candidate=group["candidate"].map(plot_label), task=group["task"].map(plot_label)).to_numpy(),
            hovertemplate="%{fullData.name}<br>%{customdata[0]} · %{customdata[1]}"
                          f"<br>{METRIC_LABELS.get(metric, metric)} %{{y:.3f}}"
                          "<br>quality gap %{x:.3f} (win rate %{customdata[3]:.3f})"
                          "<br>%{customdata[2]} classified pairs<extra></extra>",
        ))
    fig.update_layout(xaxis_title="answer quality gap |overall win rate - 1/2|", xaxis_tickformat=".2f",
                      yaxis_title=METRIC_LABELS.get(metric, metric),
                      height=420, margin={"l": 10, "r": 10, "t": 30, "b": 10})
    return fig
