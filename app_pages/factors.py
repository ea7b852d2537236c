"""Factors: which of judge, candidate, task, quality gap and lengths drive position bias (stepwise OLS on AIC)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from judgebias_core.analyses.factors_view import CLUSTERS, NUMERIC, TARGET_LABELS, TARGETS, factors_view
from judgebias_core.charts.stepwise import aic_path, aic_rise_chart, coefficient_chart, fitted_effect_chart
from ui.judge_scope import pick_pairwise_dataset, pick_study
from ui.share import (
    chart_downloads,
    code_span,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    simulated_banner,
    synced_radio,
    table_downloads,
)
from ui.state import cached, stop_on_error
from ui.tables import column_label, show_table
from ui.verdict import verdict_block


def _names(variables: list[str] | tuple[str, ...]) -> str:
    """Predictor names as a reader sees them ("quality gap", not "quality_gap")."""
    return ", ".join(column_label(v) for v in variables)

st.title("Factors")
st.caption("What drives position bias? One row per (judge, candidate, task) unit; a bidirectional stepwise "
           "regression keeps the factors that explain the bias best by AIC.")
explain("stepwise_aic")
choices = st.columns(4)
dataset, studies = pick_pairwise_dataset(choices[0], key="fx_dataset")
study, _ = pick_study(choices[1], studies, key="fx_study")
with choices[2]:
    target = synced_radio("Target", list(TARGETS), key="fx_target", format_func=TARGET_LABELS.get)
with choices[3]:
    start = synced_radio("Start from", ["empty", "full"], key="fx_start",
                         format_func={"empty": "empty model", "full": "full model"}.get)
options = st.columns(2)
with options[0]:
    weights = synced_radio("Fit", ["none", "pairs"], key="fx_weights", horizontal=True,
                           format_func={"none": "ordinary least squares",
                                        "pairs": "weighted by classified pairs per unit"}.get) or "none"
with options[1]:
    cluster = synced_radio("Coefficient standard errors", list(CLUSTERS), key="fx_cluster", horizontal=True,
                           format_func=lambda c: "units independent" if c == "none" else f"clustered by {c}"
                           ) or "none"
permalink_hint()

with stop_on_error():
    view = cached(factors_view, dataset, study, target, start, weights, cluster)
result, units, baseline, validation = view.result, view.units, view.baseline, view.validation

judges = list(view.judges)
simulated_banner(judges)
verdict_block([view.verdict])
with st.expander("The fit in numbers (for engineers)"):
    st.info(view.summary)  # names predictors and counts only, no data text
st.caption(f"Dataset {code_span(dataset)}, study {code_span(study)} (repetitions pooled): "
           f"{result.units:,} units fitted, "
           f"{result.units_left_out:,} left out (no classified pair). Lengths are in characters; the prompt length "
           "is question + both answers where the store has no prompt text.")
report_button(dataset, key="fx-report")
if view.set_aside:
    st.caption(escape_markdown(view.set_aside))

st.subheader("Steps")
start_label = _names(result.start_variables) or "intercept only"
steps = pd.DataFrame([{"step": n, "variable": column_label(s.variable), "action": "added" if s.action == "add" else "dropped",
                       "AIC before": s.aic_before, "AIC after": s.aic_after}
                      for n, s in enumerate(result.steps, start=1)])
st.caption(f"Start model ({start}): {escape_markdown(start_label)}, AIC {result.start_aic:.2f}. Each step takes "
           "the single addition or removal that lowers AIC most; it stops when none does.")
if view.path_sentence is not None:  # a path of one dot: the sentence says it
    st.write(escape_markdown(view.path_sentence))
else:
    show_table(steps,
               column_config={c: st.column_config.NumberColumn(format="%.2f") for c in ("AIC before", "AIC after")})
    st.plotly_chart(aic_path(result, judges=judges), width="stretch", key="fx-path")
if view.confounded:
    st.warning(escape_markdown(view.confounded))

st.info(view.quality_gap_caveat)
if baseline is not None:
    st.markdown("**What the bound alone produces** (quality margins shuffled across units)")
    show_table(pd.DataFrame([
        {"measure": "AIC gain from the quality gap in the selected model", "observed": baseline.observed_aic_gain,
         "bound alone (mean of shuffles)": baseline.null_aic_gain_mean,
         "bound alone (95th percentile)": baseline.null_aic_gain_high},
        {"measure": f"R² of {target.replace('_', ' ')} on the quality gap alone", "observed": baseline.observed_r_squared,
         "bound alone (mean of shuffles)": baseline.null_r_squared_mean, "bound alone (95th percentile)": None},
    ]),
        column_config={c: st.column_config.NumberColumn(format="%.3f") for c in
                       ("observed", "bound alone (mean of shuffles)", "bound alone (95th percentile)")})
    st.caption(f"{baseline.permutations} shuffles (seed {baseline.seed}) of each unit's quality margin "
               "|wins - losses| / consistent pairs, each unit keeping its PC, so the shuffled gap (margin x PC / 2) "
               "has the same bound and no real quality; permutation p = "
               f"{baseline.permutation_p:.3f} (the share of shuffles whose gap lowers AIC as much as the real one).")
st.subheader("Final model")
st.write("Kept: " + (escape_markdown(_names(result.final_variables)) or "intercept only")
         + f" · AIC {result.final_aic:.2f} · R² {result.r_squared:.3f} · {result.units:,} units")
if result.final_variables:
    left, right = st.columns(2)
    with left:
        st.markdown("**Coefficients with 95% intervals (post-selection)**")
        st.caption(view.post_selection_note + " Standard errors: " + escape_markdown(result.standard_errors) + ".")
        coefficients = coefficient_chart(result, judges=judges)
        st.plotly_chart(coefficients, width="stretch", key="fx-coef")
        st.caption("A row 'factor = level' is that level's difference from the factor's first level (in sorted "
                   "order), the other predictors held fixed.")
        chart_downloads(coefficients, f"stepwise-coefficients-{dataset}-{study}-{target}", key="fx_coef")
    with right:
        st.markdown("**How much AIC rises when a predictor alone is removed**")
        st.plotly_chart(aic_rise_chart(result, judges=judges), width="stretch", key="fx-rise")
    if validation is not None:
        st.markdown("**Out-of-sample check** (instead of the post-selection p-values)")
        show_table(pd.DataFrame(
            [{"model": "selected", "cross-validated error (MSE)": validation.selected_mse, "earns its place": ""},
             {"model": "intercept only", "cross-validated error (MSE)": validation.intercept_mse,
              "earns its place": ""}]
            + [{"model": f"without {v.replace('_', ' ')}", "cross-validated error (MSE)": mse,
                "earns its place": "yes" if validation.earns_its_place(v) else "no"}
               for v, mse in validation.mse_without.items()]),
            column_config={"cross-validated error (MSE)": st.column_config.NumberColumn(format="%.5f")})
        st.caption(f"{validation.folds}-fold cross-validation over the {validation.units:,} units (seed "
                   f"{validation.seed}): the selected model removes {validation.improvement_over_intercept:.0%} of "
                   "the intercept-only error on held-out units. A factor earns its place when the model without it "
                   "predicts held-out units worse. Units of one task share items, so held-out units are not fully "
                   "independent of the training units.")
    with st.expander("Coefficient table (post-selection) and statsmodels summary"):
        show_table(result.coefficients.rename(columns={"p_value": "p_value (post-selection)"}))
        st.code(result.summary_text, language=None)
    if view.fitted_effects:
        st.markdown("**Fitted effect of each numeric predictor** (others at their mean or most common level)")
        for column, (variable, effect) in zip(st.columns(len(view.fitted_effects)), view.fitted_effects, strict=True):
            with column:
                st.plotly_chart(fitted_effect_chart(effect, variable, target, judges=judges),
                                width="stretch", key=f"fx-effect-{variable}")

st.subheader("Unit table")
st.caption("What the regression was fitted on: one row per (judge, candidate, task), repetitions pooled.")
show_table(units, column_config={c: st.column_config.NumberColumn(format="%.3f") for c in
                               ("position_consistency", "preference_fairness", "quality_gap")}
           | {c: st.column_config.NumberColumn(format="%.1f") for c in NUMERIC if c != "quality_gap"})
table_downloads(units, f"stepwise-units-{dataset}-{study}", key="fx_units", judges=judges)
