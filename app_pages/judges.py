"""Judges: how judges agree on the same calls, where they disagree, and the majority-vote ensemble."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from judgebias_core.analyses.judges import disagreeing_calls
from judgebias_core.analyses.judges_view import (
    DISPUTED_LEGEND,
    FAMILY_RULE,
    item_texts,
    judges_default_studies,
    judges_view,
)
from judgebias_core.charts.judges import (
    agreement_heatmap,
    disagreement_bars,
    family_heatmap,
    family_heatmap_is_sparse,
)
from judgebias_core.wording.verdict import DECIDED
from ui.judge_scope import pick_pairwise_dataset
from ui.share import (
    chart_downloads,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    simulated_banner,
    synced_checkbox,
    synced_multiselect,
    synced_selectbox,
    table_downloads,
)
from ui.state import cached, load_or_stop
from ui.tables import show_record, show_table
from ui.text import counted
from ui.verdict import verdict_block

st.title("Judges")
st.caption("Judges compared on the same judge calls: one call is an item, the answer in the first slot, the answer "
           "in the second slot and the repetition. The majority vote of the judges is shown as a judge of its own.")
top = st.columns(3)
dataset, studies_frame = pick_pairwise_dataset(top[0], key="jd_dataset")
study_names = studies_frame["study"].tolist()
with top[1]:
    studies = synced_multiselect(
        "Studies (or run ids)", study_names, key="jd_studies", default=cached(judges_default_studies, dataset),
        help="By default every study (the fewest that hold every judge when there are many). Choose several to compare judges "
             "that were run separately on the same pairs.")
with top[2]:
    max_repetition = int(studies_frame[studies_frame["study"].isin(studies)]["repetitions"].max() or 1) \
        if studies else 1
    repetition = synced_selectbox("Repetition", ["all", *range(1, max_repetition + 1)], key="jd_rep")
permalink_hint()
if not studies:  # e.g. the chosen studies do not exist in a newly chosen dataset
    studies = study_names[:1]
    st.caption(f"No study chosen: showing {escape_markdown(studies[0])}.")
chosen_repetition = None if repetition == "all" else int(repetition)

view = load_or_stop(judges_view, dataset, list(studies), chosen_repetition)
result = view.result

simulated_banner(result.judges)
# Every sentence below comes from the view, as the report's agreement section and `metrics agreement --json` give it.
verdict_block([view.verdict])
for sentence in view.sentences:
    st.markdown(escape_markdown(sentence))
cols = st.columns(4)
cols[0].metric("Judges", len(result.judges))
cols[1].metric("Judge calls (instances)", f"{result.instances:,}")
cols[2].metric("Calls every judge answered", f"{result.disagreement.instances:,}")
cols[3].metric("Calls with a majority verdict", f"{result.ensemble_instances:,}")
st.caption(escape_markdown(view.scope_sentence))
st.caption(escape_markdown(view.studies_note))
for note in view.notes:
    st.warning(note)
report_button(dataset, [judge.split(" [")[0] for judge in result.judges], key="jd-report")
if view.too_few_judges:  # one judge against its own majority vote says nothing: no chart of it
    st.info(f"{escape_markdown(view.too_few_judges)} Choose studies that hold at least two judges in the Studies "
            "filter above.")
    st.stop()

agreement_tab, disagreement_tab = st.tabs(["Agreement", "Disagreement"])

with agreement_tab:
    explain("agreement")
    without_ties = synced_checkbox("Leave out calls where either judge said tie", key="jd_noties")
    measure = st.radio("Heatmap shows", ["raw agreement", "Cohen's kappa"], horizontal=True, key="jd_measure",
                       help="Kappa corrects the agreement for the agreement two judges with these verdict shares "
                            "would reach by chance.")
    figure = agreement_heatmap(result, without_ties=without_ties, kappa=measure == "Cohen's kappa")
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"agreement-{dataset}", key="jd-heatmap")
    pairs = view.pairs
    show_table(pairs,
               column_config={name: st.column_config.NumberColumn(format="%.3f") for name in pairs.columns
                              if pairs[name].dtype.kind == "f"})
    with st.expander(DECIDED):
        st.caption(view.kappa_note)
    alpha, effective = result.krippendorff_alpha, result.effective_judges
    if alpha is not None and effective is not None:
        panel = st.columns(2)
        panel[0].metric("Krippendorff's alpha (all judges, nominal)", f"{alpha.estimate:.3f}",
                       help=f"{int(100 * alpha.confidence)}% {alpha.method} interval "
                            f"[{alpha.low:.3f}, {alpha.high:.3f}] over {alpha.items} items")
        panel[1].metric("Effective number of judges", f"{effective.effective:.2f} of {len(effective.judges)}",
                       help=f"{effective.formula}; {result.effective_judges_basis}")
        st.caption(view.alpha_note or "")
    table_downloads(pairs, f"agreement-{dataset}", key="jd-pairs")

    st.subheader("By family")
    st.caption(FAMILY_RULE)
    if result.family_agreement:
        if family_heatmap_is_sparse(result.family_agreement):  # a mostly blank heatmap: the sentence says it
            st.markdown(escape_markdown(view.family_sentence or ""))
        else:
            st.plotly_chart(family_heatmap(result.family_agreement, judges=result.judges), width="stretch")
        show_table(pd.DataFrame([f.__dict__ for f in result.family_agreement]),
                   column_config={"family_a": "family A", "family_b": "family B", "judge_pairs": "judge pairs",
                                  "n": "calls compared (n)",
                                  "agreement": st.column_config.NumberColumn("agreement", format="%.3f")})
    show_table(pd.DataFrame({"judge": list(result.families), "family": list(result.families.values())}))

with disagreement_tab:
    explain("disagreement")
    if result.disagreement.instances:
        figure = disagreement_bars(result.disagreement, judges=result.judges)
        st.plotly_chart(figure, width="stretch")
        st.caption(view.disagreement_sentence or "")
    minimum = st.number_input("Show calls where at least this many judges differ from the majority", min_value=1,
                              max_value=max(1, len(result.judges) - 1), value=1, step=1)
    disputed = cached(disagreeing_calls, dataset, list(studies), chosen_repetition, int(minimum))
    st.caption(f"{counted(len(disputed), 'call')}. {escape_markdown(DISPUTED_LEGEND)}")
    show_table(disputed.head(2000))
    table_downloads(disputed, f"disputed-calls-{dataset}", key="jd-disputed")
    if not disputed.empty:
        shown = disputed.head(500)
        labels = {i: f"{r.item_id} · {r.first_candidate} | {r.second_candidate} · rep {r.repetition}"
                  for i, r in shown.iterrows()}
        choice = st.selectbox("Read a call in full", list(labels), format_func=lambda i: labels[i])
        row = shown.loc[choice]
        texts = cached(item_texts, dataset, row["item_id"])
        st.markdown("**Question**")
        st.text(texts.get("question", "(not in the store)"))
        left, right = st.columns(2)
        for column, slot, candidate in ((left, "A (first slot)", row["first_candidate"]),
                                        (right, "B (second slot)", row["second_candidate"])):
            with column:
                st.markdown(f"**Slot {slot}**")
                st.code(candidate, language=None)
                st.text(texts.get(f"answer: {candidate}", "(answer not in the store)"))
        verdicts = row.drop(["item_id", "first_candidate", "second_candidate", "repetition"])
        show_record(verdicts, field="judge", value="verdict", spell_out=False)
