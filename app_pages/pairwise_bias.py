"""Pairwise bias: swap consistency, flip-rate intervals, direction, fairness and the inconsistent pairs themselves."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import streamlit as st

from judgebias_core.analyses.pairwise_compare_view import pairwise_compare_view
from judgebias_core.analyses.pairwise_view import (
    CORRECTIONS,
    PairwiseView,
    inconsistent_pairs,
    pairwise_choices,
    pairwise_view,
)
from judgebias_core.charts.pairwise import flip_rate_forest, judge_task_heatmap, quality_gap_scatter
from judgebias_core.wording.phrasing import percent
from judgebias_core.wording.verdict import DECIDED
from ui.share import (
    chart_downloads,
    code_span,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    synced_multiselect,
    synced_selectbox,
    table_downloads,
)
from ui.state import cached, load_or_stop, stop_on_error
from ui.tables import show_table
from ui.text import counted
from ui.verdict import verdict_block

WIN_COLUMNS = {"judge": "judge", "candidate": "candidate", "classified": "classified pairs (n)",
               "candidate_wins": "candidate won", "opponent_wins": "opponent won", "ties": "ties",
               "overall_win_rate": "overall win rate", "win_rate_low": "win low", "win_rate_high": "win high",
               "win_rate_method": "interval method", "win_rate_degenerate_reason": "degenerate because",
               "items": "items"}
ALL_STUDIES = "all studies"
VERDICT_MEANING = {"A": "first slot better", "B": "second slot better", "C": "tie"}
# The headline first (judge, flip rate with its interval and count), so it is on screen without scrolling.
TABLE_COLUMNS = {
    "judge": "judge", "flip_rate": "flip rate", "flip_rate_decision_low": "flip low",
    "flip_rate_decision_high": "flip high", "classified_pairs": "classified pairs (n)", "position_consistency": "PC",
    "position_consistency_decision_low": "PC low", "position_consistency_decision_high": "PC high",
    "dataset": "dataset", "study": "study", "repetition": "rep", "pairs": "pairs",
    "failed_pairs": "failed pairs", "consistent": "consistent", "primacy": "primacy", "recency": "recency",
    "flip_rate_decision_method": "interval method", "flip_rate_degenerate_reason": "degenerate because",
    "design_effect": "design effect", "items": "items", "item_set_note": "items by study",
    "flip_rate_ci_low": "Wilson low (pairs indep.)", "flip_rate_ci_high": "Wilson high (pairs indep.)",
    "first_slot_share": "first-slot share", "first_slot_share_decision_low": "first-slot low",
    "first_slot_share_decision_high": "first-slot high", "first_slot_share_decision_method": "first-slot method",
    "first_slot_share_degenerate_reason": "first-slot degenerate because", "position_p": "position p",
    "position_p_corrected": "position p corrected",
    "preference_fairness": "PF raw", "preference_fairness_scaled": "PF scaled (Shi et al.)", "units": "PF units",
    "units_without_classified_pair": "units left out",
    "repetition_stability": "RS", "repetition_floor": "rep. floor", "flip_rate_excess": "flip rate - floor",
    "flip_rate_excess_low": "excess low", "flip_rate_excess_high": "excess high",
    "flip_rate_excess_method": "excess method",
    "flip_rate_excess_p_corrected": "excess p corrected",
    "position_p_corrected_report": "position p corrected (report's family)",
}
RATE_COLUMNS = ["PC", "PC low", "PC high", "flip rate", "flip low", "flip high", "Wilson low (pairs indep.)",
                "Wilson high (pairs indep.)", "first-slot share", "first-slot low", "first-slot high", "PF raw",
                "PF scaled (Shi et al.)", "RS", "rep. floor", "flip rate - floor", "excess low", "excess high",
                "design effect"]


def compare_section(dataset: str, study: str, judges: list[str], repetition: int | None) -> None:
    """Two judges' flip rates on the pairs both classified: the view's plain reading, the figures, the fold."""
    if len(judges) < 2:
        return
    st.subheader("Compare two judges")
    explain("judge_difference")
    picks = st.columns(2)
    with picks[0]:
        judge_a = st.selectbox("First judge", judges, index=0, key="pw_compare_a")
    with picks[1]:
        judge_b = st.selectbox("Second judge", judges, index=1, key="pw_compare_b")
    if judge_a == judge_b:
        st.info("Pick two different judges.")
        return
    view = load_or_stop(pairwise_compare_view, dataset, study, judge_a, judge_b, repetition)
    if view.simulated_note:
        st.warning(escape_markdown(view.simulated_note), icon=":material/science:")
    (st.success if view.flips_less else st.info)(escape_markdown(view.sentence))
    c = view.comparison
    if c.shared_pairs:
        cols = st.columns(3)
        for column, judge, rate, flips in ((cols[0], c.judge_a, c.flip_rate_a, c.flips_a),
                                           (cols[1], c.judge_b, c.flip_rate_b, c.flips_b)):
            column.metric(f"Flip rate, {judge}", percent(rate))
            column.caption(f"{flips:,} of {c.shared_pairs:,} pairs both judged ({c.items:,} questions)")
        cols[2].metric("Difference (first minus second)", f"{c.difference * 100:+.1f} points")
        cols[2].caption(f"95%: {c.low * 100:+.1f} to {c.high * 100:+.1f} points" if not c.degenerate
                        else f"no range: {escape_markdown(c.degenerate_reason or '')}")
    with st.expander(DECIDED):
        for text in view.method:
            st.caption(escape_markdown(text))


def listwise_section(view: PairwiseView) -> None:
    """List-wise consistency of the chosen dataset and study, when it has list-wise calls."""
    if not view.listwise:
        return
    st.subheader("List-wise calls")
    explain("listwise_consistency")
    show_table(pd.DataFrame([asdict(r) for r in view.listwise]))
    st.caption("A group is one candidate set of one item shown in all p cyclic orders; counts are groups. An "
               "inconsistent group is primacy when the first slot holds more than 1/p of its picks. First-slot share "
               "is over the picks of inconsistent groups (one-vs-all), tested against 1/p by a binomial test that "
               "treats the groups as independent (groups on the same item are not) and is not corrected for the other "
               "tests on this page: read it as descriptive.")


st.title("Pairwise bias")
st.caption("Every pair of answers judged twice, once in each order. A judge without position bias gives the same "
           "verdict whichever answer it reads first.")
datasets = load_or_stop(pairwise_choices).datasets
if not datasets:
    st.info("No pairwise judge calls in the store yet. Import the bundled data or launch a swap run.")
    st.stop()

top = st.columns(3)
with top[0]:
    dataset = synced_selectbox("Dataset", list(datasets), key="pw_dataset")
study_names = list(cached(pairwise_choices, dataset).studies)
with top[1]:
    # Every judge of the dataset by default: a judge measured only in a second study (MTBench's repetition) is
    # never hidden behind the first one.
    study = synced_selectbox("Study (or run id)", ([ALL_STUDIES] if len(study_names) > 1 else []) + study_names,
                             key="pw_study", help="'all studies' shows every judge of the dataset, its study named.")
every_study = study == ALL_STUDIES
choices = cached(pairwise_choices, dataset, None if every_study else study)
with top[2]:
    repetition = synced_selectbox("Repetition", ["all", *choices.repetitions], key="pw_rep",
                                  help="Repetition studies ask every prompt several times; 'all' lists each.")
bottom = st.columns(3)
with bottom[0]:
    judges = synced_multiselect("Judges", list(choices.judges), key="pw_judges", placeholder="all judges")
with bottom[1]:
    tasks = synced_multiselect("Tasks", list(choices.tasks), key="pw_tasks", placeholder="all tasks")
with bottom[2]:
    candidates = synced_multiselect("Candidates", list(choices.candidates), key="pw_candidates",
                                    placeholder="all candidates")
permalink_hint()
correction = CORRECTIONS[st.selectbox(
    "Correct the tests shown with", list(CORRECTIONS), key="pw_correction",
    help="Every p-value on this page (the position test of each row, the excess over the repetition floor where "
    "measured) is corrected as one family. Holm controls the chance of any false call; Benjamini-Hochberg the "
    "share of false calls among those made.")]

with stop_on_error():
    view = cached(pairwise_view, dataset, None if every_study else (study,), tuple(judges) or None,
                  None if repetition == "all" else repetition, tuple(tasks) or None, tuple(candidates) or None,
                  correction, everywhere=True)
results = list(view.results)
detail_study = view.detail_study
if not results:
    if not choices.has_listwise:
        st.info("No pairs match these filters.")
    listwise_section(view)
    st.stop()

if view.simulated_notice:
    st.warning(escape_markdown(view.simulated_notice), icon=":material/science:")
verdict_block(view.verdicts)
st.subheader("Judges")
frame = view.table()
table = frame[list(TABLE_COLUMNS)].rename(columns=TABLE_COLUMNS)
show_table(table,
           column_config={c: st.column_config.NumberColumn(format="%.3f") for c in RATE_COLUMNS}
           | {c: st.column_config.NumberColumn(format="%.2g") for c in
              ["position p", "position p corrected", "excess p corrected",
               "position p corrected (report's family)"]})
scope_words = "every study, named in each row" if every_study else f"study {code_span(study)}"
st.caption(f"Dataset {code_span(dataset)}, {scope_words}. 'Items by study' is filled for a judge measured in "
           "several studies on different items: compare its figures across studies on those items only. Counts are pairs (one pair = two judge calls). "
           "Rates are "
           "fractions over n = classified pairs (consistent + primacy + recency); pairs with a parse failure on "
           "either side are counted under 'failed pairs' and left out of the rates. Low/high = the 95% item-clustered "
           "interval that sentences and the gate use (its method named: item bootstrap, all pairs of an item "
           f"together, {results[0].bootstrap_resamples:,} resamples, seed {results[0].bootstrap_seed}; Wilson on the "
           "design-effect-adjusted effective n below 20 items; the exact bound with no flips; 'degenerate because' "
           "says when no proper interval exists). Wilson = 95% interval treating pairs as independent, beside the "
           "design effect. Position p = the position test (symmetric in the two answers, a tie half a pick for each "
           f"slot, items as clusters); corrected = {view.correction_words}. {view.families_side_by_side} Preference fairness (PF) raw = mean over (candidate, task) units of "
           "(recency - primacy) / the unit's pairs (judgebias); PF scaled = Shi et al.'s min-max scaling per judge "
           "and task; units whose every pair failed are left out of both and counted. Excess = flip rate - "
           "repetition floor with its paired item-clustered interval. Repetition stability (RS) and the floor ignore the task and candidate "
           "filters.")
file_scope = "all-studies" if every_study else study
table_downloads(table, f"pairwise-{dataset}-{file_scope}", key="pw_table")
report_button(dataset, judges, key="pw-report")
with st.expander("What each column means"):
    for key in ("position_consistency", "flip_rate", "first_slot_share", "position_test", "preference_fairness",
                "repetition_stability", "repetition_floor"):
        explain(key)

st.subheader("Flip rate by judge")
forest = flip_rate_forest(results)
st.plotly_chart(forest, width="stretch")
st.caption("Blue: Wilson 95% interval (pairs assumed independent). Orange band: the item-clustered 95% decision "
           "interval (pairs of an item resampled together; usually wider, because pairs on one question are not "
           "independent; its method in the hover). A degenerate interval is not drawn: the hover says why.")
chart_downloads(forest, f"flip-rate-{dataset}-{file_scope}", key="pw_forest")
with st.expander("Flip rate of every judge x dataset x study in the store"):
    st.plotly_chart(flip_rate_forest(list(view.everywhere)), width="stretch", key="forest-all")
    st.caption("Same intervals as above, one row per (judge, dataset, study, repetition); the task and "
               "candidate filters do not apply here.")

if every_study:
    st.info(f"Below: study {code_span(detail_study)} only (tasks, win rates, the two-judge comparison and the "
            "inconsistent pairs look at one study at a time). Pick a study above to see another.")
    results = list(view.detail_results)
units = view.units
if not units.empty:
    st.subheader("By task")
    breakdown = view.breakdown
    pc_tab, pf_tab = st.tabs(["Position consistency", "Preference fairness"])
    for tab, metric in ((pc_tab, "position_consistency"), (pf_tab, "preference_fairness")):
        with tab:
            explain(metric)
            heatmap = judge_task_heatmap(breakdown, metric)
            st.plotly_chart(heatmap, width="stretch", key=f"heat-{metric}")
            chart_downloads(heatmap, f"{metric}-by-task-{dataset}-{detail_study}", key=f"pw_heat_{metric}")

    st.subheader("Consistency and fairness against the answer quality gap")
    explain("quality_gap")
    pc_tab, pf_tab = st.tabs(["Position consistency", "Preference fairness"])
    for tab, metric in ((pc_tab, "position_consistency"), (pf_tab, "preference_fairness")):
        with tab:
            scatter = quality_gap_scatter(units, metric)
            st.plotly_chart(scatter, width="stretch", key=f"gap-{metric}")
    st.caption(f"One point per (judge, candidate, task): {len(units):,} units. Overall win rate counts inconsistent "
               "pairs as ties. Published finding: larger gaps go with higher consistency.")
    table_downloads(units, f"pairwise-units-{dataset}-{detail_study}", key="pw_units")

    st.subheader("Candidate win rates and ranking safety")
    explain("ranking_safety")
    wins = view.wins
    for judge_name, safety in view.safety:
        (st.warning if safety.possibly_positional else st.success)(
            f"{escape_markdown(judge_name)}: {escape_markdown(safety.message)}")
    win_table = wins[list(WIN_COLUMNS)].rename(columns=WIN_COLUMNS)
    show_table(win_table, height=min(280, 35 * (len(win_table) + 1) + 3),
               column_config={WIN_COLUMNS[c]: st.column_config.NumberColumn(format="%.3f")
                              for c in ("overall_win_rate", "win_rate_low", "win_rate_high")})
    st.caption("Against the pair's opponent (the dataset's baseline; in all-pairs designs the answer whose name "
               "sorts first, or the reference declared at upload, so file order never decides), over classified "
               "pairs; an inconsistent pair counts as a tie (half a win) in the overall win rate. Low/high: 95% "
               "item-clustered interval (a candidate's pairs on one item resampled together), its method named.")

compare_section(dataset, detail_study, sorted({r.judge for r in results}), None if repetition == "all" else repetition)

st.subheader("Inconsistent pairs")
st.caption("Pairs whose verdict changed when the answers swapped, with both raw replies side by side. The "
           "original order puts the pair's opponent first: the dataset's baseline, a reference declared at upload, "
           "or else the answer whose name sorts first (never the order of rows in a file).")
drill = st.columns(2)
with drill[0]:
    judge = st.selectbox("Judge", sorted({r.judge for r in results}), key="pw_drill_judge")
with drill[1]:
    kind = st.selectbox("Which pairs", ["primacy and recency", "primacy", "recency", "failed"], key="pw_drill_kind")
classes = ("primacy", "recency") if kind == "primacy and recency" else (kind,)
pairs = cached(inconsistent_pairs, dataset, detail_study, judge, classes, None if repetition == "all" else repetition,
               tasks[0] if len(tasks) == 1 else None, candidates[0] if len(candidates) == 1 else None, 500)
if pairs.empty:
    st.info("No such pairs for this judge and filters.")
else:
    st.caption(f"{counted(len(pairs), 'pair')} shown (at most 500; a single task or candidate filter narrows them).")
    labels = [f"item {r.item_id} · {r.task} · {r.candidate} vs {r.opponent} · rep {r.repetition} · "
              f"{r.classification} ({r.verdict_original}, {r.verdict_swapped})" for r in pairs.itertuples()]
    chosen = st.selectbox("Pair", range(len(pairs)), format_func=lambda i: labels[i], key="pw_drill_pair")
    pair = pairs.iloc[chosen]
    with st.expander("Question", expanded=False):
        st.text(pair["question"] or "")
    left, right = st.columns(2)
    for column, order, first, second, verdict, raw in (
        (left, "Original order", pair["opponent"], pair["candidate"], pair["verdict_original"], pair["raw_original"]),
        (right, "Swapped order", pair["candidate"], pair["opponent"], pair["verdict_swapped"], pair["raw_swapped"]),
    ):
        with column:
            st.markdown(f"**{order}**: A = {escape_markdown(first)}, B = {escape_markdown(second)}")
            if isinstance(verdict, str):
                winner = {"A": first, "B": second}.get(verdict, "tie")
                st.info(f"Verdict **{escape_markdown(verdict)}** "
                        f"({escape_markdown(VERDICT_MEANING.get(verdict, verdict))}): "
                        f"{escape_markdown(winner)}")
            else:
                st.error("No verdict could be parsed from this reply.")
            if isinstance(raw, str):
                st.text(raw)
            else:
                st.caption("No raw reply stored (verdicts published pre-parsed, without the judge's text).")

listwise_section(view)
