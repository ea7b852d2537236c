"""Plotly figures of the stepwise regression: AIC path, coefficients with intervals, AIC rise, fitted effects."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.charts.style import PRIMARY, REFERENCE_LINE, category_rows, styled, wrap_label
from judgebias_core.metrics.stepwise import StepwiseResult

# statsmodels names a treatment-coded level "C(judge)[T.gpt-4]"; people read "judge = gpt-4".
_LEVEL_TERM = re.compile(r"^C\((\w+)\)\[T\.(.*)\]$")


def _term_label(term: str) -> str:
    match = _LEVEL_TERM.match(term)
    return plot_label(f"{match[1]} = {match[2]}" if match else term.replace("_", " "))


def aic_path(result: StepwiseResult, judges: Sequence[str] = ()) -> go.Figure:
    """AIC after every step, starting from the start model."""
    labels = ["start"] + [wrap_label(f"{n}. {s.action} {s.variable.replace('_', ' ')}", 14)
                          for n, s in enumerate(result.steps, start=1)]
    values = [result.start_aic] + [s.aic_after for s in result.steps]
    fig = go.Figure(go.Scatter(x=labels, y=values, mode="lines+markers", marker_color=PRIMARY, line_color=PRIMARY,
                               hovertemplate="%{x}<br>AIC %{y:.2f}<extra></extra>"))
    fig.update_layout(yaxis_title="AIC (lower is better)", xaxis={"type": "category", "tickangle": 0})
    return styled(fig, height=340, judges=judges)


def coefficient_chart(result: StepwiseResult, judges: Sequence[str] = ()) -> go.Figure:
    """Final-model coefficients (intercept left out) with their 95% intervals."""
    table = result.coefficients[result.coefficients["term"] != "Intercept"]
    fig = go.Figure(go.Scatter(
        x=table["coef"], y=table["term"].map(_term_label), mode="markers", marker_color=PRIMARY,
        error_x={"type": "data", "symmetric": False, "color": PRIMARY, "array": table["ci_high"] - table["coef"],
                 "arrayminus": table["coef"] - table["ci_low"]},
        customdata=table[["ci_low", "ci_high", "p_value"]].to_numpy(),
        hovertemplate="%{y}<br>coefficient %{x:.4g}<br>95% CI %{customdata[0]:.4g} to %{customdata[1]:.4g}"
                      "<br>p = %{customdata[2]:.3g}<extra></extra>",
    ))
    fig.add_vline(x=0, line_dash="dot", line_color=REFERENCE_LINE)
    fig.update_layout(xaxis_title="coefficient (95% CI)", yaxis={"autorange": "reversed", "type": "category"})
    return styled(fig, height=max(280, category_rows(len(table), minimum=24) + 130), judges=judges)


def aic_rise_chart(result: StepwiseResult, judges: Sequence[str] = ()) -> go.Figure:
    """How much AIC rises when each kept predictor alone is removed from the final model."""
    rises = pd.Series(result.aic_rise_when_removed).sort_values()
    fig = go.Figure(go.Bar(x=rises.to_numpy(), y=[v.replace("_", " ") for v in rises.index], orientation="h",
                           marker_color=PRIMARY, hovertemplate="%{y}: AIC rises by %{x:.2f} without it<extra></extra>"))
    fig.update_layout(xaxis_title="AIC rise when removed alone", yaxis={"type": "category"})
    return styled(fig, height=max(240, category_rows(len(rises), minimum=40) + 120), judges=judges)


def fitted_effect_chart(effect: pd.DataFrame, variable: str, target: str, judges: Sequence[str] = ()) -> go.Figure:
    """Predicted target over one numeric predictor's range, with the 95% band of the mean."""
    fig = go.Figure([
        go.Scatter(x=effect["value"], y=effect["ci_high"], mode="lines", line={"width": 0}, showlegend=False,
                   hoverinfo="skip"),
        go.Scatter(x=effect["value"], y=effect["ci_low"], mode="lines", line={"width": 0}, fill="tonexty",
                   fillcolor="rgba(31,119,180,0.2)", name="95% CI", hoverinfo="skip"),
        go.Scatter(x=effect["value"], y=effect["predicted"], mode="lines", name="fitted", line_color=PRIMARY,
                   hovertemplate=f"{variable} %{{x:.3g}}<br>predicted %{{y:.3f}}<extra></extra>"),
    ])
    fig.update_layout(xaxis_title=variable.replace("_", " "), yaxis_title=target.replace("_", " "))
    return styled(fig, height=320, legend="none", judges=judges)
