"""Rubric bias: where on the rubric the judge's score sat, P(position | score), Permutation vs Repeat, Bias Cost,
and the G-Eval expected score where the run has log-probabilities."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from judgebias_core.analyses.rubric import probe_recommendation, run_score_position
from judgebias_core.analyses.rubric_runs import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CANDIDATE_DESIGNS,
    RubricReport,
    analysable_run_ids,
    comparable_run_ids,
    list_rubric_runs,
    repeat_run_choices,
    run_calls_for_export,
)
from judgebias_core.analyses.rubric_view import DESIGN_NAMES, ProbeChoice, RubricView, probe_choice, rubric_view
from judgebias_core.charts.rubric import (
    bias_cost_figure,
    correlation_comparison_figure,
    ordering_rank_figure,
    position_share_figure,
    score_position_grid,
    score_position_heatmap,
)
from judgebias_core.errors import JudgebiasError
from judgebias_core.wording.geval_words import ShownMetric
from judgebias_core.wording.verdict import DECIDED
from ui.geval import show_geval
from ui.navigation import link_page
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
from ui.state import cached, load_or_stop, show_error
from ui.tables import float_columns, show_table
from ui.verdict import verdict_block


def link_new_run(label: str) -> None:
    link_page("new_run.py", label)


def show_run_card(report: RubricReport) -> None:
    run = report.run
    st.caption(
        f"Dataset **{escape_markdown(run.dataset_name)}** ({code_span(run.dataset_id)}) · judge "
        f"{code_span(run.judge)} · run {code_span(run.run_id)} ({escape_markdown(run.protocol)}) · rubric "
        f"{code_span(run.rubric_id)} · k = {report.k} · {report.trials:,} trials on {run.items} items, "
        f"{report.parsed:,} parsed, {report.parse_failures} parse failures, {report.no_reply} without reply"
    )
    if run.simulated:
        st.warning("**Simulated judge**, not a real model: these trials show how the charts read, not how any real "
                   "judge behaves. Its stated behaviour: "
                   + escape_markdown(str(run.params.get("judge_description", "see the run parameters"))
                                   .removeprefix("simulated judge: ")))
    with st.expander("Run parameters"):
        st.json(run.params)


def show_position_share(view: RubricView) -> None:
    report, words = view.report, view.position
    st.subheader("Position selection distribution")
    explain("position_share")
    if words.balance is not None:
        st.warning(f"**{words.balance.title}**: {words.balance.text}")
    tests = report.position_tests
    figure = position_share_figure(report.position, tests=tests, judges=[report.run.judge])
    st.plotly_chart(figure, width="stretch")
    st.markdown(words.sentence)
    table = pd.DataFrame([{
        "position": r.position, "choices": r.choices, "parsed trials (n)": r.parsed, "share": r.share,
        "clustered low": r.low, "clustered high": r.high, "interval": r.interval_method,
        "Wilson low (calls independent)": r.wilson_low, "Wilson high (calls independent)": r.wilson_high,
        "no-bias share": r.uniform, "p (clustered t)": r.p, "Holm p": r.corrected_p} for r in words.rows])
    show_table(table, column_config={
        column: st.column_config.NumberColumn(format="percent")
        for column in ("share", "clustered low", "clustered high", "Wilson low (calls independent)",
                       "Wilson high (calls independent)", "no-bias share")})
    with st.expander(DECIDED):
        st.caption(words.decided)
    table_downloads(table, f"position-share-{report.run.run_id}", judges=[report.run.judge])
    chart_downloads(figure, f"position-share-chart-{report.run.run_id}")


def show_score_position(report: RubricReport, never_chosen: str | None, runs: pd.DataFrame) -> None:
    st.subheader("Score by position: P(position | score)")
    explain("position_given_score")
    figure = score_position_heatmap(report.score_position, f"P(position | score), {report.run.judge}",
                                    judges=[report.run.judge])
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"score-position-{report.run.run_id}")
    if never_chosen is not None:
        st.caption(never_chosen)
    others, peers = comparable_run_ids(runs, report.run.run_id)
    compare = synced_multiselect("Side by side with other runs (e.g. other judges)", others, key="rb_compare",
                                 placeholder="pick runs to compare", default=peers)
    if compare:
        tables = [(f"{report.run.judge} · {report.run.run_id}", report.score_position)]
        for run_id in compare:
            other = cached(run_score_position, run_id)
            tables.append((f"{other.run.judge} · {run_id} (n = {other.parsed})", other.table))
        grid = score_position_grid(tables)
        st.plotly_chart(grid, width="stretch")
        chart_downloads(grid, f"score-position-grid-{report.run.run_id}")


def show_metrics(metrics: Sequence[ShownMetric]) -> None:
    for column, metric in zip(st.columns(max(len(metrics), 2)), metrics, strict=False):
        column.metric(metric.label, metric.value, help=metric.help)
        if metric.caption:
            column.caption(metric.caption)


def show_permutation_vs_repeat(view: RubricView) -> None:
    report, words = view.report, view.correlation
    st.subheader("Permutation vs Repeat")
    explain("permutation_vs_repeat")
    if report.human is None or words.intro is None:
        st.info(words.no_labels or "")
    else:
        st.markdown(words.intro)
        if words.simulated_note is not None:
            st.caption(words.simulated_note)
        show_metrics(words.metrics)
        if words.no_repeat is not None:
            st.info(words.no_repeat)
        figure = correlation_comparison_figure(report.human, judges=[report.run.judge])
        st.plotly_chart(figure, width="stretch")
        chart_downloads(figure, f"permutation-vs-repeat-{report.run.run_id}")
    st.markdown(view.spread.intro)
    explain("within_item_spread")
    show_metrics(view.spread.metrics)


def show_ordering_ranks(view: RubricView) -> None:
    report, words = view.report, view.ordering_rank
    st.subheader("Per-ordering correlation ranks")
    explain("ordering_rank")
    table = pd.DataFrame([
        {"ordering": o.ordering, "canonical": o.canonical, "trials": o.trials, "parsed": o.parsed,
         "items with labels (n)": o.labelled_items, "Pearson r": o.pearson, "Spearman rho": o.spearman,
         "rank": o.rank, "Bias Cost": o.bias_cost}
        for o in words.rows
    ])
    if words.against is not None:
        figure = ordering_rank_figure(report.orderings, words.against, judges=[report.run.judge])
        st.plotly_chart(figure, width="stretch")
        chart_downloads(figure, f"ordering-ranks-{report.run.run_id}")
        if words.sentence is not None:
            st.caption(words.sentence)
    else:
        st.info("Ranks need labels (human or reference-judge scores) for the items.")
    show_table(table.sort_values("rank", na_position="last"), column_config=float_columns(table))
    table_downloads(table, f"orderings-{report.run.run_id}", judges=[report.run.judge])


def show_probe_choice(choice: ProbeChoice, design: str) -> None:
    """The probe's recommendation (only when stable), its interval words, chart and table, all from the view."""
    if choice.empty is not None:
        st.warning(escape_markdown(choice.empty))
        return
    if choice.recommended is None:
        st.warning(escape_markdown(choice.sentence or ""))
    else:
        st.success(escape_markdown(choice.sentence or ""))
    if choice.interval is not None:
        st.caption(escape_markdown(choice.interval))
    figure = bias_cost_figure(choice.result.ranking, intervals=choice.result.costs, judges=[choice.judge])
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"bias-cost-{choice.probe_run_id}")
    table = pd.DataFrame([{
        "ordering": r.ordering, "Bias Cost": r.bias_cost, "rank": r.rank, "canonical": r.canonical, "low": r.low,
        "high": r.high, "minus the lowest": r.minus_lowest, "difference low": r.difference_low,
        "difference high": r.difference_high, "lowest in (share of resamples)": r.lowest_share,
        "interval holds the cost": r.interval_holds_cost} for r in choice.rows])
    if choice.interval_note is not None:
        st.caption(escape_markdown(choice.interval_note))
    show_table(table, column_config=float_columns(table))
    table_downloads(table, f"bias-cost-{choice.probe_run_id}-{design}", judges=[choice.judge])


def show_probe_then_choose(view: RubricView, runs: pd.DataFrame, resamples: int, seed: int) -> None:
    report, own = view.report, view.own_cost
    st.subheader("Bias Cost: probe, then choose")
    explain("bias_cost")
    if own.lowest is None:
        st.info(escape_markdown(own.sentence))
    else:
        st.markdown(own.sentence)
        if own.interval is not None:
            st.caption(escape_markdown(own.interval))
    st.markdown(
        "1. Launch a small **probing run** of your judge (a few items over a balanced set).  \n"
        "2. Pick it below: it estimates P(position | score).  \n"
        "3. The ordering with the lowest Bias Cost is the one to use for the full run, if it is stable."
    )
    link_new_run("Launch a probing run or the full run on the New run page")
    same_k = runs[runs["k"] == report.k]["run_id"].tolist()
    left, right = st.columns(2)
    with left:
        probe_id = synced_selectbox("Probe run (estimates P(position | score))", same_k, key="rb_probe",
                                    index=same_k.index(report.run.run_id))
    with right:
        design = synced_selectbox("Candidate orderings", list(CANDIDATE_DESIGNS), key="rb_candidates",
                                  format_func=DESIGN_NAMES.get,
                                  help="The analysed run's orderings have correlation ranks where labels exist; "
                                  "wider sets may recommend an ordering no run has tried yet.")
    if probe_id is None or design is None:
        return
    # The ranking is the slow part: cached on its own, so changing the probe does not recompute the run's view.
    try:
        result = cached(probe_recommendation, probe_id, design, report.run.run_id, resamples, seed)
    except JudgebiasError as error:
        show_error(error)
        return
    show_probe_choice(probe_choice(report, result, probe_id), design)


def show_geval_section(view: RubricView) -> None:
    st.subheader("G-Eval expected score")
    explain("g_eval_score")
    show_geval(view.report.geval, view.geval, view.report.run.judge)


st.title("Rubric bias")
st.caption("A rubric lists its score options (1 to k) in some order. Rotating that order shows whether the judge "
           "favours a place in the list rather than the score it describes (METHODS.md section 1; arXiv 2602.02219).")
st.info("No public data set of real rubric permutation trials exists. The runs here are ones made in this store "
        "(including the simulated demo runs of a first launch) or uploaded rubric trial logs; to measure a real "
        "judge, launch a permutation run and a repeat run.")
link_new_run("New run: measure a real judge")

runs = load_or_stop(list_rubric_runs)
if runs.empty:
    st.info("The store holds no rubric trials yet.")
    st.stop()

filters = st.columns(4)
with filters[0]:
    dataset = synced_selectbox("Dataset", sorted(runs["dataset_id"].unique()), key="rb_dataset")
scope = runs[runs["dataset_id"] == dataset]
with filters[1]:
    rubric_ids = sorted(scope["rubric_id"].dropna().unique())
    criterion_of = dict(zip(scope["rubric_id"], scope["criterion"], strict=False))
    rubric_id = synced_selectbox("Rubric criterion", ["all", *rubric_ids], key="rb_rubric",
                                 format_func=lambda r: r if r == "all" else f"{r}: {str(criterion_of[r])[:60]}")
scope = scope if rubric_id == "all" else scope[scope["rubric_id"] == rubric_id]
with filters[2]:
    judge = synced_selectbox("Judge", ["all", *sorted(scope["judge"].unique())], key="rb_judge")
scope = scope if judge == "all" else scope[scope["judge"] == judge]
with filters[3]:
    run_id = synced_selectbox("Run", analysable_run_ids(scope), key="rb_run", help="The permutation run to analyse.")
if run_id is None:
    st.info("No rubric run matches these filters.")
    st.stop()
repeat_options = ["none", *repeat_run_choices(runs, run_id)]
settings = st.columns([2, 1, 1])
with settings[0]:
    repeat_id = synced_selectbox("Repeat run (baseline)", repeat_options, key="rb_repeat",
                                 index=1 if len(repeat_options) > 1 else 0)
with settings[1]:
    resamples = st.number_input("Bootstrap resamples", 100, 20_000, BOOTSTRAP_RESAMPLES, step=100, key="rb_boot")
with settings[2]:
    seed = st.number_input("Bootstrap seed", 0, 2**31 - 1, BOOTSTRAP_SEED, key="rb_seed")
permalink_hint()

view = load_or_stop(rubric_view, run_id, None if repeat_id == "none" else repeat_id, None, int(resamples),
                    int(seed))
report = view.report
if view.simulated_notice:
    st.warning(escape_markdown(view.simulated_notice), icon=":material/science:")
verdict_block([view.verdict])
show_run_card(report)
show_position_share(view)
show_score_position(report, view.never_chosen, runs)
show_permutation_vs_repeat(view)
show_ordering_ranks(view)
show_probe_then_choose(view, runs, int(resamples), int(seed))
show_geval_section(view)
# Loaded only on request: on a large run this table is the page's slowest part.
if st.toggle(f"Show every trial of this run ({report.trials:,})", key="rb_show_trials"):
    command = f"python -m judgebias_core export trials --run-id {run_id} --format csv --out trials.csv"
    st.caption("The ordering shown and the position chosen, as stored per trial. Also from the command line: "
               f"{code_span(command)} (or jsonl, parquet).")
    trials = cached(run_calls_for_export, run_id, True)
    show_table(trials.head(200))
    table_downloads(trials, f"trials-{run_id}", judges=[report.run.judge])
report_button(report.run.dataset_id, runs=[run_id] + ([report.repeat_run.run_id] if report.repeat_run else []),
              key="rb_report")
