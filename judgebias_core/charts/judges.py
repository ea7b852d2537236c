"""Plotly figures comparing judges: agreement heatmaps, disagreement, verbosity, self-preference, leaderboard."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.metrics.agreement import AgreementResult, DisagreementDistribution, FamilyAgreement
from judgebias_core.metrics.leaderboard import Leaderboard
from judgebias_core.metrics.self_preference import SelfPreference
from judgebias_core.metrics.verbosity import VerbosityResult

_MARGIN = {"l": 10, "r": 10, "t": 40, "b": 10}


def _heatmap(values: pd.DataFrame, counts: pd.DataFrame, title: str, count_label: str,
             zmin: float = 0.0, zmax: float = 1.0) -> go.Figure:
    text = np.where(np.isnan(values.to_numpy(float)), "", np.vectorize(lambda v: f"{v:.2f}")(values.to_numpy(float)))
    fig = go.Figure(go.Heatmap(
        z=values.to_numpy(float), x=[plot_label(c) for c in values.columns], y=[plot_label(r) for r in values.index],
        zmin=zmin, zmax=zmax,
        colorscale="Viridis", text=text, texttemplate="%{text}", customdata=counts.to_numpy(),
        hovertemplate=f"%{{y}} / %{{x}}<br>%{{z:.3f}} over %{{customdata:,}} {count_label}<extra></extra>",
    ))
    fig.update_layout(title=title, yaxis={"autorange": "reversed"}, margin=_MARGIN,
                      height=max(320, 38 * len(values.index) + 160))
    return fig


def agreement_heatmap(result: AgreementResult, without_ties: bool = False) -> go.Figure:
    """Judge x judge agreement (majority-vote ensemble last), judges grouped by family."""
    values = result.matrix(without_ties=without_ties)
    counts = result.counts_matrix(without_ties=without_ties)
    title = "Agreement without ties (calls where either judge said tie left out)" if without_ties \
        else "Agreement (share of shared calls with the same verdict)"
    fig = _heatmap(values, counts, title, "calls both answered")
    fig.update_layout(xaxis_title="judge", yaxis_title="judge")
    return fig


def family_heatmap(cells: Sequence[FamilyAgreement]) -> go.Figure:
    """Pooled agreement between judges of each pair of families (off-diagonal: judges of different families)."""
    frame = pd.DataFrame([c.__dict__ for c in cells])
    mirrored = pd.concat([frame, frame.rename(columns={"family_a": "family_b", "family_b": "family_a"})])
    mirrored = mirrored.drop_duplicates(["family_a", "family_b"])
    values = mirrored.pivot(index="family_a", columns="family_b", values="agreement")
    counts = mirrored.pivot(index="family_a", columns="family_b", values="n").fillna(0).astype(int)
    fig = _heatmap(values, counts, "Agreement pooled by judge family", "calls")
    fig.update_layout(xaxis_title="judge family", yaxis_title="judge family")
    return fig


def disagreement_bars(distribution: DisagreementDistribution) -> go.Figure:
    """How many calls have 0, 1, 2... judges differing from the most common verdict."""
    counts = pd.Series(distribution.counts, dtype=int).reindex(range(distribution.judges), fill_value=0)
    share = counts / max(distribution.instances, 1)
    fig = go.Figure(go.Bar(
        x=counts.index, y=counts.to_numpy(), customdata=share.to_numpy(),
        hovertemplate="%{x} judge(s) differ from the majority<br>%{y:,} calls (%{customdata:.1%})<extra></extra>",
    ))
    fig.update_layout(xaxis_title=f"judges differing from the most common verdict (of {distribution.judges})",
                      yaxis_title="calls", title=f"Per-call disagreement over {distribution.instances:,} calls "
                      "every judge answered", margin=_MARGIN, height=340, xaxis={"dtick": 1})
    return fig


def verbosity_curve(results: Sequence[VerbosityResult]) -> go.Figure:
    """Share of decisive pairs the candidate wins, per bin of length difference (candidate minus opponent)."""
    fig = go.Figure()
    for result in results:
        if not result.bins:
            continue
        fig.add_trace(go.Scatter(
            x=[b.median for b in result.bins], y=[b.win_rate for b in result.bins],
            mode="lines+markers", name=plot_label(result.judge),
            customdata=[[b.low, b.high, b.candidate_wins, b.pairs] for b in result.bins],
            hovertemplate="%{fullData.name}<br>difference %{customdata[0]:,.0f} to %{customdata[1]:,.0f} chars"
                          "<br>candidate won %{customdata[2]} of %{customdata[3]} pairs (%{y:.2f})<extra></extra>",
        ))
    fig.add_hline(y=0.5, line_dash="dot", line_color="grey")
    fig.add_vline(x=0, line_dash="dot", line_color="grey")
    fig.update_layout(xaxis_title="length difference, candidate minus opponent (characters; median of each bin)",
                      yaxis_title="share of decisive pairs the candidate wins", yaxis={"range": [0, 1]},
                      margin=_MARGIN, height=400, legend={"orientation": "h", "y": -0.25})
    return fig


def self_preference_heatmap(result: SelfPreference) -> go.Figure:
    """Judge family (rows) x candidate family (columns) win rates, with pair counts on hover."""
    frame = pd.DataFrame([c.__dict__ for c in result.cells])
    values = frame.pivot(index="judge_family", columns="candidate_family", values="win_rate")
    counts = frame.pivot(index="judge_family", columns="candidate_family", values="pairs").fillna(0).astype(int)
    fig = _heatmap(values, counts, "Win rate of candidates by judge family", "pairs")
    fig.update_layout(xaxis_title="candidate family", yaxis_title="judge family")
    return fig


def leaderboard_forest(board: Leaderboard, measure: str = "win_rate") -> go.Figure:
    """Each candidate's win rate (or Bradley-Terry strength) with its bootstrap interval; flagged ones in red."""
    frame = board.frame()
    if measure == "strength":
        frame = frame.sort_values("rank_strength")
    low, high = frame[f"{measure}_ci_low"], frame[f"{measure}_ci_high"]
    colours = np.where(frame["position_artefact"], "#d62728", "#1f77b4")
    fig = go.Figure(go.Scatter(
        x=frame[measure], y=frame["candidate"].map(plot_label), mode="markers", marker={"size": 9, "color": colours},
        error_x={"type": "data", "symmetric": False, "array": high - frame[measure],
                 "arrayminus": frame[measure] - low},
        customdata=np.column_stack([frame["pairs"], low, high, frame["position_artefact"]]),
        hovertemplate="%{y}<br>%{x:.3f} (95% bootstrap %{customdata[1]:.3f} to %{customdata[2]:.3f})"
                      "<br>%{customdata[0]} pairs · order could be positional: %{customdata[3]}<extra></extra>",
    ))
    label = "win rate (inconsistent pairs count as ties)" if measure == "win_rate" \
        else f"Bradley-Terry strength (log-odds against {plot_label(board.reference)})"
    fig.update_layout(xaxis_title=label, yaxis={"autorange": "reversed"}, margin=_MARGIN,
                      height=max(300, 24 * len(frame) + 120),
                      title=f"{plot_label(board.judge)}: red = within the flip-rate upper bound "
                            f"({board.flip_rate_ci_high:.3f}) of a neighbour")
    return fig
