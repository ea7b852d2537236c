"""Other biases: verbosity (does the longer answer win?) and self-preference (judge family x candidate family)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from judgebias_core.analyses.judges import default_family_mapping, self_preference, verbosity
from judgebias_core.charts.judges import self_preference_heatmap, verbosity_curve
from judgebias_core.identity import stable_id
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.verbosity import bins_frame, verbosity_frame
from ui.judge_scope import pick_pairwise_dataset, pick_study
from ui.share import (
    chart_downloads,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    synced_multiselect,
    table_downloads,
)
from ui.state import cached, load_or_stop
from ui.text import counted

st.title("Other biases")
st.caption("Biases besides position, measured on the same swap pairs: a preference for longer answers, and for "
           "answers from the judge's own family of models.")
top = st.columns(3)
dataset, studies_frame = pick_pairwise_dataset(top[0], key="ob_dataset")
study, options = pick_study(top[1], studies_frame, key="ob_study")
with top[2]:
    judges = synced_multiselect("Judges", options, key="ob_judges", placeholder="all judges and the ensemble")
permalink_hint()
judges = judges or options
st.caption(f"Dataset {escape_markdown(dataset)} · study {escape_markdown(study)} · {counted(len(judges), 'judge')}"
           + (f"; {ENSEMBLE_JUDGE} is the judges' majority vote on each call" if ENSEMBLE_JUDGE in judges else ""))
report_button(dataset, [j for j in judges if j != ENSEMBLE_JUDGE], key="ob-report")

verbosity_tab, self_tab = st.tabs(["Verbosity", "Self-preference"])

with verbosity_tab:
    explain("verbosity")
    results = load_or_stop(verbosity, dataset, [study], list(judges))
    table = verbosity_frame(results).rename(columns={
        "decisive_pairs": "decisive pairs (n)", "equal_length_pairs": "equal length", "longer_wins": "longer won",
        "longer_win_share": "longer-answer win share", "longer_win_share_ci_low": "Wilson low",
        "longer_win_share_ci_high": "Wilson high", "binomial_p": "binomial p",
        "slope_per_1000_chars": "log-odds per 1,000 chars"})
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in
                                ("longer-answer win share", "Wilson low", "Wilson high", "log-odds per 1,000 chars")}
                 | {"binomial p": st.column_config.NumberColumn(format="%.2g")})
    table_downloads(table, f"verbosity-{dataset}-{study}", key="ob-verbosity")
    st.caption("Share of consistent decisive pairs (the same answer wins in both orders) won by the longer answer; "
               "0.5 means no length preference. Pairs of equal length are left out of the share.")
    figure = verbosity_curve(results)
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"verbosity-{dataset}-{study}", key="ob-verbosity-chart")
    with st.expander("Bins behind the curve"):
        st.dataframe(bins_frame(results), hide_index=True, width="stretch")

with self_tab:
    explain("self_preference")
    real_judges = [j for j in judges if j != ENSEMBLE_JUDGE]
    mapping = cached(default_family_mapping, dataset, real_judges)
    st.caption("Edit the family of any model name (judges and candidates); the matrix follows your mapping.")
    edited = st.data_editor(
        pd.DataFrame({"model": list(mapping), "family": list(mapping.values()),
                      "role": ["judge" if name in real_judges else "candidate" for name in mapping]}),
        hide_index=True, width="stretch", disabled=["model", "role"], key=f"ob-families-{stable_id(dataset, *real_judges)}",
    )
    families = dict(zip(edited["model"], edited["family"].fillna("other").astype(str), strict=True))
    preference = load_or_stop(self_preference, dataset, [study], list(judges), families)
    if preference.cells:
        figure = self_preference_heatmap(preference)
        st.plotly_chart(figure, width="stretch")
        chart_downloads(figure, f"self-preference-{dataset}-{study}", key="ob-self-chart")
    st.caption(escape_markdown(preference.rule) + ".")
    gaps = pd.DataFrame([g.__dict__ for g in preference.gaps])
    if gaps.empty:
        st.info("No candidate family is judged both by its own family and by another here, so no self-preference "
                "gap can be computed. Edit the mapping if a candidate belongs to a judge's family.")
    else:
        st.markdown("**Own family against other families**")
        st.dataframe(gaps, hide_index=True, width="stretch")
        table_downloads(gaps, f"self-preference-{dataset}-{study}", key="ob-self")
