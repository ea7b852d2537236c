"""Plotly figures comparing judges: agreement heatmaps, disagreement, self-preference matrix, leaderboard (the
verbosity and in-family charts are in ``charts.other_biases``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import (
    HIGHLIGHT,
    PRIMARY,
    category_rows,
    label_lines,
    named_cells,
    styled,
    wrapped_labels,
)
from judgebias_core.metrics.agreement import AgreementResult, DisagreementDistribution, FamilyAgreement
from judgebias_core.metrics.leaderboard import Leaderboard
from judgebias_core.metrics.self_preference import SelfPreference

SIDEWAYS_COLUMNS = 6


def _heatmap(values: pd.DataFrame, counts: pd.DataFrame, title: str, count_label: str,
             zmin: float = 0.0, zmax: float = 1.0, judges: Sequence[str] = ()) -> go.Figure:
    # Every rate next to its count: "0.69" over "(4,768)". A cell with no call behind it (a judge against itself)
    # stays blank: a rate of 1.00 over 0 calls would be a figure with nothing behind it.
    counts = counts.reindex_like(values).fillna(0)
    values = values.where(counts.to_numpy(float) > 0)
    text = np.vectorize(lambda v, n: "" if np.isnan(v) else f"{v:.2f}<br>({int(n):,})", otypes=[object])(
        values.to_numpy(float), counts.to_numpy(float))
    row_names, column_names = [plot_label(r) for r in values.index], [plot_label(c) for c in values.columns]
    rows, abbreviated = wrapped_labels(row_names)
    # Columns get narrow lines; past SIDEWAYS_COLUMNS judges even those run into each other, so the names stand
    # upright (one line each, read sideways) instead.
    sideways = len(column_names) > SIDEWAYS_COLUMNS
    columns, abbreviated_columns = wrapped_labels(column_names, width=40 if sideways else 12)
    fig = go.Figure(go.Heatmap(
        z=values.to_numpy(float), x=columns, y=rows, zmin=zmin, zmax=zmax,
        colorscale="Viridis", text=text, texttemplate="%{text}", customdata=named_cells([counts.to_numpy()], row_names, column_names),
        hovertemplate=f"%{{customdata[1]}} / %{{customdata[2]}}<br>%{{z:.3f}} over %{{customdata[0]:,}} {count_label}"
                      "<extra></extra>",
    ))
    fig.update_layout(title=title, yaxis={"autorange": "reversed", "type": "category"},
                      xaxis={"type": "category", "tickangle": -90 if sideways else 0})
    below = 7 * max(map(len, column_names), default=0) if sideways else 15 * label_lines(columns)
    return styled(fig, height=max(340, category_rows(len(rows), label_lines(rows), minimum=38) + 150 + below),
                  full_labels=abbreviated | abbreviated_columns, judges=judges)


def agreement_heatmap(result: AgreementResult, without_ties: bool = False, kappa: bool = False) -> go.Figure:
    """Judge x judge raw agreement or Cohen's kappa (``kappa``; the leave-one-out ensemble last), judges grouped
    by family."""
    values = result.matrix(without_ties=without_ties, kappa=kappa)
    counts = result.counts_matrix(without_ties=without_ties)
    measure = "Cohen's kappa" if kappa else "Agreement"
    title = f"{measure} without ties (calls where either judge said tie left out)" if without_ties \
        else ("Cohen's kappa (agreement corrected for chance)" if kappa
              else "Agreement (share of shared calls with the same verdict)")
    fig = _heatmap(values, counts, title, "calls both answered")
    fig.update_layout(xaxis_title="judge", yaxis_title="judge")
    return fig


def family_heatmap_is_sparse(cells: Sequence[FamilyAgreement]) -> bool:
    """Whether a family heatmap would be mostly blank (two families, or under two thirds of its cells filled):
    then a sentence (``metrics.agreement.family_agreement_sentence``) says it better."""
    families = {c.family_a for c in cells} | {c.family_b for c in cells}
    filled = {(c.family_a, c.family_b) for c in cells} | {(c.family_b, c.family_a) for c in cells}
    return len(families) < 3 or len(filled) < 2 / 3 * len(families) ** 2


def family_heatmap(cells: Sequence[FamilyAgreement], judges: Sequence[str] = ()) -> go.Figure:
    """Pooled agreement between judges of each pair of families (off-diagonal: judges of different families)."""
    frame = pd.DataFrame([c.__dict__ for c in cells])
    mirrored = pd.concat([frame, frame.rename(columns={"family_a": "family_b", "family_b": "family_a"})])
    mirrored = mirrored.drop_duplicates(["family_a", "family_b"])
    values = mirrored.pivot(index="family_a", columns="family_b", values="agreement")
    counts = mirrored.pivot(index="family_a", columns="family_b", values="n").fillna(0).astype(int)
    fig = _heatmap(values, counts, "Agreement pooled by judge family", "calls", judges=judges)
    fig.update_layout(xaxis_title="judge family", yaxis_title="judge family")
    return fig


def disagreement_bars(distribution: DisagreementDistribution, judges: Sequence[str] = ()) -> go.Figure:
    """How many calls have 0, 1, 2... judges differing from the most common verdict."""
    counts = pd.Series(distribution.counts, dtype=int).reindex(range(distribution.judges), fill_value=0)
    share = counts / max(distribution.instances, 1)
    fig = go.Figure(go.Bar(
        x=counts.index, y=counts.to_numpy(), customdata=share.to_numpy(), marker_color=PRIMARY,
        hovertemplate="%{x} judge(s) differ from the majority<br>%{y:,} calls (%{customdata:.1%})<extra></extra>",
    ))
    fig.update_layout(xaxis_title=f"judges differing from the most common verdict (of {distribution.judges})",
                      yaxis_title="calls", title=f"Per-call disagreement over {distribution.instances:,} calls "
                      "every judge answered", xaxis={"dtick": 1})
    return styled(fig, height=360, judges=judges)


def self_preference_heatmap(result: SelfPreference, judges: Sequence[str] = ()) -> go.Figure:
    """Judge family (rows) x candidate family (columns) win rates, with pair counts on hover."""
    frame = pd.DataFrame([c.__dict__ for c in result.cells])
    values = frame.pivot(index="judge_family", columns="candidate_family", values="win_rate")
    counts = frame.pivot(index="judge_family", columns="candidate_family", values="pairs").fillna(0).astype(int)
    fig = _heatmap(values, counts, "Win rate of candidates by judge family", "pairs", judges=judges)
    fig.update_layout(xaxis_title="candidate family", yaxis_title="judge family")
    return fig


def leaderboard_forest(board: Leaderboard, measure: str = "win_rate") -> go.Figure:
    """Each candidate's win rate (or Bradley-Terry strength) with its bootstrap interval; red where its order with
    the next one down is unsure (the ranking-safety check)."""
    frame = board.candidates_frame()
    if measure == "strength":
        frame = frame.sort_values("rank_strength")
    frame = frame.assign(shown=wrapped_labels([plot_label(c) for c in frame["candidate"]])[0])
    fig = go.Figure()
    # One trace per flag (not one trace with a colour array): the error bars take one colour, and the legend says
    # what red means.
    for flagged, name, colour in ((False, "order with the next one down holds", PRIMARY),
                                  (True, "order with the next one down unsure", HIGHLIGHT)):
        part = frame[frame["position_artefact"] == flagged]
        if part.empty:
            continue
        low, high = part[f"{measure}_ci_low"], part[f"{measure}_ci_high"]
        fig.add_trace(go.Scatter(
            x=part[measure], y=part["shown"], mode="markers", name=name, marker={"size": 9, "color": colour},
            error_x={"type": "data", "symmetric": False, "color": colour, "array": high - part[measure],
                     "arrayminus": part[measure] - low},
            customdata=np.column_stack([part["pairs"], low, high, part["candidate"].map(plot_label)]),
            hovertemplate="%{customdata[3]}<br>%{x:.3f} (95% bootstrap %{customdata[1]:.3f} to %{customdata[2]:.3f})"
                          f"<br>%{{customdata[0]}} pairs · {name}<extra></extra>",
        ))
    label = "win rate (inconsistent pairs count as ties)" if measure == "win_rate" \
        else f"Bradley-Terry strength (log-odds against {plot_label(board.reference)})"
    fig.update_layout(xaxis_title=label, title=f"{plot_label(board.judge)}: red = order with the next one down changes "
                                               f"with presentation or holds in < 95% of item resamples",
                      yaxis={"autorange": "reversed", "type": "category", "categoryorder": "array",
                             "categoryarray": list(frame["shown"])})
    return styled(fig, height=max(320, category_rows(len(frame), label_lines(frame["shown"]), minimum=24) + 170),
                  legend="bottom", judges=[board.judge])
