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
from judgebias_core.charts.style import (
    PALETTE,
    PRIMARY,
    SECONDARY,
    category_rows,
    label_lines,
    named_cells,
    styled,
    wrapped_labels,
)
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics

# A second cue besides colour, so judges stay apart in grey-scale prints.
SYMBOLS = ("circle", "diamond", "square", "triangle-up", "x", "cross", "triangle-down", "star")
METRIC_LABELS = {"position_consistency": "Position consistency", "preference_fairness": "Preference fairness"}


def _row_label(result: PairwiseJudgeMetrics, with_scope: bool) -> str:
    label = plot_label(result.judge)
    if with_scope:
        label += f" · {plot_label(result.dataset)}/{plot_label(result.study)}"
        if result.study == "repetition" or result.repetition > 1:
            label += f" rep {result.repetition}"
    return label


def flip_rate_forest(results: Sequence[PairwiseJudgeMetrics]) -> go.Figure:
    """Flip rate per row with its Wilson 95% interval (pairs independent) and its item-clustered decision interval
    (a band, left out and named in the hover when degenerate)."""
    rows = [r for r in results if r.classified_pairs > 0]
    with_scope = len({(r.dataset, r.study, r.repetition) for r in rows}) > 1
    names = [f"{_row_label(r, with_scope)} (n={r.classified_pairs:,})" for r in rows]
    labels, abbreviated = wrapped_labels(names, width=34)
    rate = np.array([r.flip_rate for r in rows])
    fig = go.Figure()
    # The bootstrap band first, so the Wilson point and whiskers are drawn on top: a thick error bar around a hidden
    # point. The legend shows a square of the band's colour from a data-less trace of the same group (the old 1 px
    # marker left the legend entry blank).
    bootstrap = "item-clustered 95% (decides; items resampled)"
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=bootstrap, legendgroup="bootstrap",
                             legendrank=2, marker={"size": 11, "symbol": "square", "color": SECONDARY}, opacity=0.55,
                             hoverinfo="skip"))
    # A degenerate interval (no flips, one item, ...) is named in the hover, never drawn as a band.
    drawn = [not r.flip_rate_degenerate for r in rows]
    fig.add_trace(go.Scatter(
        x=rate, y=labels, mode="markers", name=bootstrap, legendgroup="bootstrap", showlegend=False,
        marker={"size": 1, "color": SECONDARY}, opacity=0.55,
        error_x={"type": "data", "symmetric": False, "thickness": 6, "width": 0, "color": SECONDARY,
                 "array": [r.flip_rate_decision_high - r.flip_rate if d else 0 for r, d in zip(rows, drawn,
                                                                                               strict=True)],
                 "arrayminus": [r.flip_rate - r.flip_rate_decision_low if d else 0 for r, d in zip(rows, drawn,
                                                                                                   strict=True)]},
        customdata=[[r.flip_rate_decision_low, r.flip_rate_decision_high, r.items, r.flip_rate_decision_method,
                     name, plot_label(r.flip_rate_degenerate_reason or f"design effect {r.design_effect:.2f}")]
                    for r, name in zip(rows, names, strict=True)],
        hovertemplate="%{customdata[4]}<br>item-clustered 95% (%{customdata[3]}): %{customdata[0]:.3f} to "
                      "%{customdata[1]:.3f}<br>%{customdata[2]} items; %{customdata[5]}<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=rate, y=labels, mode="markers", name="Wilson 95% (pairs independent)", legendrank=1,
        marker={"size": 9, "color": PRIMARY}, error_x={
            "type": "data", "symmetric": False, "color": PRIMARY, "thickness": 1.5,
            "array": [r.flip_rate_ci_high - r.flip_rate for r in rows],
            "arrayminus": [r.flip_rate - r.flip_rate_ci_low for r in rows]},
        customdata=[[r.primacy + r.recency, r.classified_pairs, r.flip_rate_ci_low, r.flip_rate_ci_high, name]
                    for r, name in zip(rows, names, strict=True)],
        hovertemplate="%{customdata[4]}<br>flip rate %{x:.3f} (%{customdata[0]} of %{customdata[1]} pairs)"
                      "<br>Wilson 95%: %{customdata[2]:.3f} to %{customdata[3]:.3f}<extra></extra>",
    ))
    fig.update_layout(xaxis_title="flip rate (share of pairs whose verdict changes when the answers swap)",
                      yaxis={"autorange": "reversed", "type": "category"}, xaxis={"rangemode": "tozero"})
    return styled(fig, height=150 + category_rows(len(rows), label_lines(labels)), legend="top",
                  full_labels=abbreviated)


MAX_TASK_COLUMNS = 12  # tasks side by side before they become the rows (each cell holds "0.85 (40)")


def judge_task_heatmap(breakdown: pd.DataFrame, metric: str, by: str = "task") -> go.Figure:
    """Judge x task heatmap of PC or PF from a ``task_breakdown`` frame: each cell "rate (classified pairs)", the
    units on hover. With more tasks than fit side by side (an uploaded dataset may have dozens), the tasks are the
    rows and the judges the columns, so every cell keeps room for its rate and count."""
    values = breakdown.pivot(index="judge", columns=by, values=metric)
    pairs = breakdown.pivot(index="judge", columns=by, values="classified").reindex_like(values)
    units = breakdown.pivot(index="judge", columns=by, values="units").reindex_like(values)
    tasks_as_rows = values.shape[1] > MAX_TASK_COLUMNS
    if tasks_as_rows:
        values, pairs, units = values.T, pairs.T, units.T
    diverging = metric == "preference_fairness"
    span = float(np.nanmax(np.abs(values.to_numpy()))) if diverging and values.size else 1.0
    row_names, column_names = [plot_label(j) for j in values.index], [plot_label(c) for c in values.columns]
    rows, abbreviated = wrapped_labels(row_names)
    columns, abbreviated_columns = wrapped_labels(column_names, width=14)
    judge_and_task = "%{customdata[3]} · %{customdata[2]}" if tasks_as_rows else "%{customdata[2]} · %{customdata[3]}"
    fig = go.Figure(go.Heatmap(
        z=values.to_numpy(), x=columns, y=rows,
        colorscale="RdBu" if diverging else "Viridis",
        zmid=0 if diverging else None, zmin=-span if diverging else None, zmax=span if diverging else None,
        # Every rate next to its count: "0.85 (40)", the classified pairs behind the cell.
        text=np.vectorize(lambda v, n: "" if pd.isna(v) else f"{v:.2f} ({int(n):,})" if pd.notna(n) else f"{v:.2f}",
                          otypes=[object])(values.to_numpy(), pairs.to_numpy()),
        texttemplate="%{text}",
        customdata=named_cells([pairs.to_numpy(), units.to_numpy()], row_names, column_names),
        hovertemplate=f"{judge_and_task}<br>{METRIC_LABELS.get(metric, metric)} %{{z:.3f}}"
                      "<br>%{customdata[0]} classified pairs, %{customdata[1]} units<extra></extra>",
        colorbar={"title": METRIC_LABELS.get(metric, metric)},
    ))
    x_title, y_title = ("judge", by) if tasks_as_rows else (by, "judge")
    fig.update_layout(xaxis_title=x_title, yaxis_title=y_title, xaxis={"type": "category"},
                      yaxis={"type": "category", "autorange": "reversed" if tasks_as_rows else True})
    return styled(fig, height=max(300, category_rows(len(values.index), label_lines(rows)) + 170),
                  full_labels=abbreviated | abbreviated_columns)


def quality_gap_scatter(units: pd.DataFrame, metric: str) -> go.Figure:
    """One point per (judge, candidate, task): PC or PF against the answer quality gap, coloured by judge."""
    fig = go.Figure()
    for index, (judge, group) in enumerate(units.groupby("judge")):
        fig.add_trace(go.Scatter(
            x=group["quality_gap"], y=group[metric], mode="markers", name=plot_label(judge), opacity=0.8,
            marker={"color": PALETTE[index % len(PALETTE)], "symbol": SYMBOLS[index % len(SYMBOLS)], "size": 8},
            customdata=group[["candidate", "task", "classified", "overall_win_rate"]]
            .assign(candidate=group["candidate"].map(plot_label), task=group["task"].map(plot_label)).to_numpy(),
            hovertemplate="%{fullData.name}<br>%{customdata[0]} · %{customdata[1]}"
                          f"<br>{METRIC_LABELS.get(metric, metric)} %{{y:.3f}}"
                          "<br>quality gap %{x:.3f} (win rate %{customdata[3]:.3f})"
                          "<br>%{customdata[2]} classified pairs<extra></extra>",
        ))
    fig.update_layout(xaxis_title="answer quality gap |overall win rate - 1/2|", xaxis_tickformat=".2f",
                      yaxis_title=METRIC_LABELS.get(metric, metric))
    return styled(fig, height=440, legend="right")
