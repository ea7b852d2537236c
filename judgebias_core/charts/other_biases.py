"""Plotly figures of verbosity and self-preference: the longer answer's share by length bin, the in-family terms."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import (
    PALETTE,
    PRIMARY,
    REFERENCE_LINE,
    category_rows,
    log_ticks,
    styled,
    wrapped_labels,
)
from judgebias_core.metrics.self_preference import SelfPreference
from judgebias_core.metrics.verbosity import VerbosityResult


def longer_answer_chart(results: Sequence[VerbosityResult]) -> go.Figure:
    """Per judge, the share of decisive pairs won by the longer answer in each bin of the absolute length
    difference, with its item-clustered 95% interval (a degenerate bin shows its point only)."""
    fig = go.Figure()
    for index, result in enumerate(r for r in results if r.longer_answer_bins):
        bins = result.longer_answer_bins
        colour = PALETTE[index % len(PALETTE)]
        proper = [not b.share.degenerate for b in bins]
        fig.add_trace(go.Scatter(
            x=[b.median for b in bins], y=[b.share.rate for b in bins], mode="lines+markers",
            name=plot_label(result.judge), line_color=colour, marker_color=colour,
            error_y={"type": "data", "symmetric": False, "color": colour,
                     "array": [b.share.high - b.share.rate if ok else 0 for b, ok in zip(bins, proper, strict=True)],
                     "arrayminus": [b.share.rate - b.share.low if ok else 0
                                    for b, ok in zip(bins, proper, strict=True)]},
            customdata=np.array([[b.low, b.high, b.longer_wins, b.pairs, b.items, b.share.low, b.share.high,
                                  b.share.method] for b in bins], dtype=object),
            hovertemplate="%{fullData.name}<br>longer by %{customdata[0]:,.0f} to %{customdata[1]:,.0f} chars"
                          "<br>longer answer won %{customdata[2]} of %{customdata[3]} pairs (%{y:.1%}) over "
                          "%{customdata[4]} items<br>95% %{customdata[7]} %{customdata[5]:.1%} to "
                          "%{customdata[6]:.1%}<extra></extra>",
        ))
    fig.add_hline(y=0.5, line_dash="dot", line_color=REFERENCE_LINE)
    fig.update_layout(xaxis_title="how much longer the longer answer is (characters; median of each bin, log scale)",
                      yaxis_title="share of decisive pairs<br>the longer answer wins", yaxis={"range": [0, 1]},
                      xaxis={"type": "log", **log_ticks(b.median for r in results for b in r.longer_answer_bins)})
    return styled(fig, height=440, legend="bottom")


def in_family_chart(result: SelfPreference, judges: Sequence[str] = ()) -> go.Figure:
    """Each family's in-family term (odds ratio, log scale) with its item-clustered 95% interval."""
    terms = [t for t in result.in_family if not t.term.degenerate]
    names = [plot_label(f"{t.family} judges on {t.family} candidates") for t in terms]
    shown, abbreviated = wrapped_labels(names)
    ratio = [float(np.exp(t.term.estimate)) for t in terms]
    low = [float(np.exp(t.term.ci_low)) for t in terms]
    high = [float(np.exp(t.term.ci_high)) for t in terms]
    fig = go.Figure(go.Scatter(
        x=ratio, y=shown, mode="markers", marker={"size": 9, "color": PRIMARY},
        error_x={"type": "data", "symmetric": False, "color": PRIMARY,
                 "array": [h - r for h, r in zip(high, ratio, strict=True)],
                 "arrayminus": [r - lo for r, lo in zip(ratio, low, strict=True)]},
        customdata=np.array([[n, lo, h, t.pairs] for n, lo, h, t in zip(names, low, high, terms, strict=True)],
                            dtype=object),
        hovertemplate="%{customdata[0]}<br>odds ratio %{x:.2f} (95% %{customdata[1]:.2f} to %{customdata[2]:.2f})"
                      "<br>%{customdata[3]:,} pairs with a family match<extra></extra>",
    ))
    fig.add_vline(x=1, line_dash="dot", line_color=REFERENCE_LINE)
    fig.update_layout(xaxis={"type": "log", "title": "odds of winning against what leniency and quality predict "
                                                     "(1 = no in-family preference)", **log_ticks([*low, *high, 1.0])},
                      yaxis={"type": "category", "autorange": "reversed"})
    return styled(fig, height=max(240, category_rows(len(terms), minimum=40) + 130), full_labels=abbreviated,
                  judges=judges)
