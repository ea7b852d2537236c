"""Other biases: verbosity (does the longer answer win?) and self-preference (judge family x candidate family)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from judgebias_core.analyses.other_biases_view import ENSEMBLE_JUDGE, other_biases_view
from judgebias_core.charts.judges import self_preference_heatmap
from judgebias_core.charts.other_biases import in_family_chart, longer_answer_chart
from judgebias_core.identity import stable_id
from ui.judge_scope import pick_pairwise_dataset, pick_study
from ui.share import (
    chart_downloads,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    simulated_banner,
    synced_multiselect,
    synced_radio,
    table_downloads,
)
from ui.state import load_or_stop
from ui.tables import show_table
from ui.text import counted
from ui.verdict import verdict_block

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
real_judges = [j for j in judges if j != ENSEMBLE_JUDGE]
st.caption(f"Dataset {escape_markdown(dataset)} · study {escape_markdown(study)} · {counted(len(judges), 'judge')}"
           + (f"; {ENSEMBLE_JUDGE} is the judges' majority vote on each call" if ENSEMBLE_JUDGE in judges else ""))
settings = st.columns(2)
with settings[0]:
    cluster = synced_radio("Cluster the length slope by", ["item", "candidate"], key="ob_cluster", horizontal=True,
                           format_func={"item": "item (question)", "candidate": "candidate"}.get) or "item"
with settings[1]:
    control = synced_radio("Control for candidate quality", ["none", "candidate"], key="ob_control",
                           horizontal=True, format_func={"none": "no", "candidate": "yes (candidate fixed effects)"}.get
                           ) or "none"
view = load_or_stop(other_biases_view, dataset, [study], list(judges), cluster, control)
report = view.report
simulated_banner(judges)
verdict_slot = st.container()
report_button(dataset, real_judges, key="ob-report")

verbosity_tab, self_tab = st.tabs(["Verbosity", "Self-preference"])

with verbosity_tab:
    explain("verbosity")
    st.markdown("**How often the longer answer wins, by how much longer it is**")
    figure = longer_answer_chart(report.judges)
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"verbosity-{dataset}-{study}", key="ob-verbosity-chart")
    st.caption("Consistent decisive pairs only (the same answer wins in both orders), in five bins of the length "
               "difference with about as many pairs each; bars are 95% item-bootstrap intervals (all pairs of an "
               "item resampled together; a bin without a proper interval shows its point only). 50% means no "
               "length preference.")
    bins = view.bins.rename(columns={
        "low": "length gap from (chars)", "high": "length gap to (chars)", "median": "median gap (chars)",
        "pairs": "pairs (n)", "items": "items (n)", "longer_wins": "longer won", "share": "longer-answer share",
        "ci_low": "95% low", "ci_high": "95% high", "interval": "interval"})
    show_table(bins,
               column_config={c: st.column_config.NumberColumn(format="percent") for c in
                              ("longer-answer share", "95% low", "95% high")}
               | {c: st.column_config.NumberColumn(format="localized") for c in
                  ("length gap from (chars)", "length gap to (chars)", "median gap (chars)")})
    table_downloads(bins, f"verbosity-bins-{dataset}-{study}", key="ob-verbosity-bins", judges=real_judges)
    table = view.per_judge[
        ["judge", "decisive_pairs", "equal_length_pairs", "longer_wins", "longer_win_share",
         "longer_share_clustered_low", "longer_share_clustered_high", "slope_clustered", "slope_clustered_low",
         "slope_clustered_high", "clusters", "pairs_without_information", "slope_per_1000_chars", "slope_ci_low",
         "slope_ci_high"]].rename(columns={
            "decisive_pairs": "decisive pairs (n)", "equal_length_pairs": "equal length", "longer_wins": "longer won",
            "longer_win_share": "longer-answer win share", "longer_share_clustered_low": "item-bootstrap low",
            "longer_share_clustered_high": "item-bootstrap high", "slope_clustered": "log-odds per 1,000 chars",
            "slope_clustered_low": f"clustered by {cluster}: low", "slope_clustered_high": f"clustered by {cluster}: high",
            "clusters": f"{cluster}s (clusters)", "pairs_without_information": "pairs without information",
            "slope_per_1000_chars": "no control, pairs independent", "slope_ci_low": "independent: low",
            "slope_ci_high": "independent: high"})
    table.insert(len(table.columns), "reading (corrected)", [report.reading(r.judge) for r in report.judges])
    # Both families' corrected p side by side: this page's (the judges shown) and the report's (no majority vote).
    table.insert(len(table.columns), "corrected p", view.corrected(report.tests))
    table.insert(len(table.columns), "corrected p (report's family)", view.corrected(view.report_tests))
    st.markdown("**Per judge**")
    show_table(table,
               column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns
                              if c not in ("judge", "reading (corrected)") and "(n)" not in c
                              and c not in ("equal length", "longer won", f"{cluster}s (clusters)",
                                            "pairs without information")}
               | {c: st.column_config.NumberColumn(format="%.3g") for c in
                  ("corrected p", "corrected p (report's family)")})
    table_downloads(table, f"verbosity-{dataset}-{study}", key="ob-verbosity", judges=real_judges)
    st.caption("The slope is the change in log-odds of the candidate winning per 1,000 more characters than its "
               f"opponent, with standard errors clustered by {cluster}"
               + (" and candidate fixed effects (+1 candidate, -1 opponent) holding quality fixed; candidates that "
                  "won or lost every pair carry no information under that control and are left out"
                  if control == "candidate" else "; it does not hold candidate quality fixed")
               + ". The last three columns treat pairs as independent and are narrower than they should be.")
    st.caption(escape_markdown(f"Readings are corrected together. {view.verbosity_family} "
                               f"{view.page_families_sentence}"))

with self_tab:
    explain("self_preference")
    st.caption("Edit the family of any model name (judges and candidates); the matrix follows your mapping.")
    edited = st.data_editor(
        pd.DataFrame({"model": list(view.families), "family": list(view.families.values()),
                      "role": ["judge" if name in real_judges else "candidate" for name in view.families]}),
        hide_index=True, width="stretch", disabled=["model", "role"], key=f"ob-families-{stable_id(dataset, *real_judges)}",
    )
    families = dict(zip(edited["model"], edited["family"].fillna("other").astype(str), strict=True))
    if families != view.families:  # the reader's mapping: the same view under it
        view = load_or_stop(other_biases_view, dataset, [study], list(judges), cluster, control, families)
    preference = view.preference
    assert preference is not None  # asked for (with_self_preference)
    st.markdown("**In-family preference, over judge leniency and candidate quality**")
    st.caption(f"Controls for {escape_markdown(preference.controls)}: a fractional logit of each pair's score "
               f"({preference.model_pairs:,} pairs of {counted(len(preference.model_judges), 'judge')} over "
               f"{preference.model_items:,} items; the ensemble is left out), with a term per family that is +1 "
               "when the judge shares the candidate's family and -1 when it shares the opponent's. Intervals are "
               "item-clustered.")
    if view.self_preference_family:
        st.caption(escape_markdown(view.self_preference_family))
    if preference.in_family:
        figure = in_family_chart(preference, judges=real_judges)
        st.plotly_chart(figure, width="stretch")
        chart_downloads(figure, f"self-preference-terms-{dataset}-{study}", key="ob-self-terms")
        terms = pd.DataFrame([{
            "family": t.family, "judges": ", ".join(t.judges), "pairs with a family match": t.pairs,
            "odds ratio": t.odds_ratio, "log-odds": t.term.estimate, "95% low (log-odds)": t.term.ci_low,
            "95% high (log-odds)": t.term.ci_high, "interval": t.term.method,
            "reading (corrected)": preference.tests.sentence(t.family) if preference.tests else ""}
            for t in preference.in_family])
        show_table(terms)
        table_downloads(terms, f"self-preference-terms-{dataset}-{study}", key="ob-self-terms-table",
                        judges=real_judges)
    if preference.not_identified:
        st.caption("Not separable from leniency and quality here (every judge of the family, or every candidate, "
                   "on one side): " + escape_markdown(", ".join(preference.not_identified)) + ".")
    if not preference.in_family:
        st.info("No family here is judged both by its own judges and by others with candidates of other families, so "
                "no in-family term can be estimated. Edit the mapping if a candidate belongs to a judge's family.")
    with st.expander("Raw win rates by family (no control for leniency or quality)"):
        if preference.cells:
            figure = self_preference_heatmap(preference, judges=real_judges)
            st.plotly_chart(figure, width="stretch")
            chart_downloads(figure, f"self-preference-{dataset}-{study}", key="ob-self-chart")
        st.caption(escape_markdown(preference.rule) + ". A judge that favours every challenger raises its own "
                   "family's cell too: read the in-family terms above, not these gaps.")
        gaps = pd.DataFrame([g.__dict__ for g in preference.gaps])
        if not gaps.empty:
            show_table(gaps)
            table_downloads(gaps, f"self-preference-{dataset}-{study}", key="ob-self", judges=real_judges)

with verdict_slot:
    verdict_block(list(view.verdicts))
