"""Calibration: a judge against human labels (or a reference judge's, always named as such)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from judgebias_core.analyses.calibration import (
    calibration_choices,
    disagreeing_pairs,
    disagreeing_trials,
)
from judgebias_core.analyses.calibration_view import (
    ENSEMBLE_JUDGE,
    AgreementEstimate,
    AgreementTable,
    PairwiseCalibration,
    RubricCalibration,
    calibration_view,
    disagreement_caption,
    item_texts,
)
from judgebias_core.analyses.scorecard import label_coverage
from judgebias_core.charts.calibration import confusion_heatmap, correlation_forest
from ui.geval import geval_block
from ui.navigation import link_page
from ui.ppi_block import ppi_score_block, ppi_win_rate_block
from ui.share import (
    chart_downloads,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    simulated_banner,
    synced_checkbox,
    synced_selectbox,
    table_downloads,
)
from ui.state import cached, load_or_stop
from ui.tables import float_columns, show_record, show_table
from ui.verdict import verdict_block

ORDER_TITLES = {"original": "Original order", "swapped": "Swapped order",
                "swap_aggregated": "Swap-aggregated (order change = tie)"}

st.title("Calibration")
st.caption("How often a judge agrees with the labels: people's ratings, or gold labels that a dataset's authors "
           "set (LLMBar's own subsets, always named gold). The labels are the truth here; where a dataset only has "
           "another model's scores (the Prometheus items' GPT-4 scores), they are shown as a reference judge, "
           "never as human.")
targets = load_or_stop(calibration_choices)
if targets.empty:
    st.info("No judge call falls on labelled items yet. Auto-J pairs come with human labels; launch a rubric run "
            "on SummEval (New run page) to calibrate a rubric judge.")
    st.stop()

coverage = load_or_stop(label_coverage)
if coverage.sentence():
    st.caption(escape_markdown(coverage.sentence() or ""))
    link_page("data.py", "Upload labels (Data page)")

top = st.columns(3)
with top[0]:
    dataset = synced_selectbox("Dataset", list(dict.fromkeys(targets["dataset_id"])), key="cal_dataset")
in_dataset = targets[targets["dataset_id"] == dataset]
with top[1]:
    judge = synced_selectbox("Judge", list(dict.fromkeys(in_dataset["judge"])), key="cal_judge")
in_judge = in_dataset[in_dataset["judge"] == judge]
with top[2]:
    study = synced_selectbox("Study (or run id)", list(dict.fromkeys(in_judge["study"])), key="cal_study")
runs = list(dict.fromkeys(in_judge["study"]))
pool = len(runs) > 1 and synced_checkbox(f"Pool all {len(runs)} runs of this judge", key="cal_pool",
                                         help="Off: the run chosen above alone. Runs can differ (a permutation and a "
                                              "repeat run, say): pooling them is a choice, named below.")
scope = None if pool else study  # None: every run of the judge on the dataset
permalink_hint()
view = load_or_stop(calibration_view, dataset, judge, scope, pool)
result, words, who, label_source = view.result, view.words, view.who, view.result.label_source
if view.gold_note:
    st.info(view.gold_note)
if view.reference_note:
    st.warning(view.reference_note)
simulated_banner([judge])
verdict_block([view.verdict])
report_button(dataset, [] if judge == ENSEMBLE_JUDGE else [judge], key="cal-report")
st.caption(f"Dataset {escape_markdown(dataset)} · judge {escape_markdown(judge)} · study {escape_markdown(study)} · "
           f"labels: {words.short}. Runs pooled: {escape_markdown(', '.join(result.pooled_runs))} "
           f"({'every run of the judge' if pool else 'one run; choose another above'}). "
           f"{escape_markdown(result.rule)}.")


def _class_table(table: AgreementTable) -> pd.DataFrame:
    return pd.DataFrame([c.__dict__ for c in table.per_class]).rename(columns={
        "human_count": f"{words.axis} says (n)", "judge_count": "judge says (n)"})


def _agreement_summary(name: str, table: AgreementTable) -> None:
    st.metric(f"Cohen's kappa, {ORDER_TITLES[name].split(' (')[0].lower()}", f"{table.kappa:.3f}",
              help=ORDER_TITLES[name])
    st.caption(f"95%: {table.kappa_ci_low:.3f} to {table.kappa_ci_high:.3f} ({table.kappa_interval}) · accuracy "
               f"{table.accuracy:.3f} ({round(table.accuracy * table.n):,} of {table.n:,})")
    if table.interval_warning:
        st.caption(f"Caution: {escape_markdown(table.interval_warning)}.")


def _agreement_detail(name: str, table: AgreementTable) -> None:
    left, right = st.columns([3, 2])
    with left:
        figure = confusion_heatmap(table.labels, table.confusion, ORDER_TITLES[name], human_label=words.axis,
                                   judges=[judge])
        st.plotly_chart(figure, width="stretch", key=f"cal-confusion-{name}")
        chart_downloads(figure, f"confusion-{dataset}-{judge}-{name}", key=f"cal-confusion-{name}")
    with right:
        show_table(_class_table(table),
                   column_config={c: st.column_config.NumberColumn(format="%.3f") for c in ("precision", "recall")})


def _ceiling_row(figure: str, judge_side: AgreementEstimate | None, humans: AgreementEstimate | None) -> dict:
    def shown(value: AgreementEstimate | None) -> str:
        if value is None:
            return "n/a"
        if value.degenerate:
            return f"{value.estimate:.3f} (no interval: {value.degenerate_reason})"
        return f"{value.estimate:.3f} [{value.low:.3f}, {value.high:.3f}]"
    return {"coefficient": figure, "judge vs humans": shown(judge_side), "humans among themselves": shown(humans),
            "items (n)": humans.items if humans is not None else 0}


def _human_ceiling(rubric: RubricCalibration, who: str) -> None:
    if rubric.human_agreement is None and rubric.human_pairwise_kappa is None:
        st.caption("Human ceiling: no item has two raters here, so the raters' own agreement cannot be measured.")
        return
    st.markdown("**Human ceiling: how well the experts agree with each other**")
    show_table(pd.DataFrame([
        _ceiling_row("Krippendorff's alpha, ordinal (judge vs the raters' median)", rubric.judge_human_alpha,
                     rubric.human_agreement),
        _ceiling_row("mean pairwise Cohen's kappa (judge vs each rater)", rubric.judge_rater_kappa,
                     rubric.human_pairwise_kappa)]))
    for sentence in view.ceiling_sentences:
        st.info(escape_markdown(sentence))
    st.caption("95% intervals resample whole items. The reading compares the intervals: overlapping means 'about "
               "as well', apart means better or worse.")


def _read_item(item_id: str) -> dict[str, str]:
    texts = cached(item_texts, dataset, item_id)
    st.markdown("**Question**")
    st.text(texts.get("question", "(not in the store)"))
    return texts


if isinstance(result, PairwiseCalibration):
    cols = st.columns(3)
    cols[0].metric("Correct in both orders", f"{result.both_orders_correct_rate:.2%}",
                   help="Pairs whose verdict matches the label in both orders, over every pair.")
    cols[0].caption(f"{result.both_orders_correct:,} of {result.pairs:,} pairs")
    cols[1].metric("Position consistency", f"{result.position_consistency:.2%}")
    cols[1].caption(f"{result.consistent_pairs:,} of {result.pairs - result.failed_pairs:,} pairs with both "
                    f"orders parsed")
    cols[2].metric("Pairs with a parse failure", f"{result.failed_pairs:,}")
    explain("kappa")
    explain("confusion_matrix")
    explain("precision_recall")
    for column, name in zip(st.columns(3), ORDER_TITLES, strict=True):
        with column:
            _agreement_summary(name, getattr(result, name))
    for tab, name in zip(st.tabs(list(ORDER_TITLES.values())), ORDER_TITLES, strict=True):
        with tab:
            _agreement_detail(name, getattr(result, name))
    wrong = cached(disagreeing_pairs, dataset, judge, scope)
    if view.offers_win_rate:  # people's labels that name the candidates
        ppi_win_rate_block(dataset, judge, scope, sorted(set(result.swap_aggregated.labels) - {"tie"}))
    st.subheader("Pairs where the judge and the human disagree")
    st.caption(disagreement_caption(len(wrong), pairwise=True, label=f"{words.short} label"))
    show_table(wrong)
    table_downloads(wrong, f"disagreements-{dataset}-{judge}", key="cal-wrong-pairs", judges=[judge])
    if not wrong.empty:
        item_id = st.selectbox("Read a pair in full", wrong["item_id"].head(1000).tolist())
        row = wrong[wrong["item_id"] == item_id].iloc[0]
        texts = _read_item(item_id)
        show_record(row)
        answers = {k.removeprefix("answer: "): v for k, v in texts.items() if k.startswith("answer: ")}
        for column, (candidate, answer) in zip(st.columns(max(1, len(answers))), answers.items(), strict=False):
            with column:
                st.code(candidate, language=None)
                st.text(answer)
elif isinstance(result, RubricCalibration):
    cols = st.columns(4)
    cols[0].metric("Cohen's kappa", f"{result.kappa:.3f}")
    cols[0].caption(f"95%: {result.kappa_ci_low:.3f} to {result.kappa_ci_high:.3f} ({result.kappa_interval})")
    cols[1].metric("Quadratic-weighted kappa", f"{result.weighted_kappa:.3f}")
    cols[1].caption(f"95%: {result.weighted_kappa_ci_low:.3f} to {result.weighted_kappa_ci_high:.3f} "
                    f"({result.weighted_kappa_interval})")
    cols[2].metric("Judge calls (n)", f"{result.n:,}")
    cols[2].caption(f"{result.items:,} items · {result.failed:,} unparsed calls left out")
    cols[3].metric("Pearson r", f"{result.pearson.statistic:.3f}")
    cols[3].caption(f"95%: {result.pearson.ci_low:.3f} to {result.pearson.ci_high:.3f} (item-bootstrap)")
    if result.interval_warning:
        st.warning(f"Caution: {escape_markdown(result.interval_warning)}.")
    _human_ceiling(result, who)
    explain("kappa_quadratic")
    left, right = st.columns(2)
    with left:
        figure = confusion_heatmap(result.levels, result.confusion, "Judge score vs labels' median",
                                   human_label=f"{words.axis} median", judges=[judge])
        st.plotly_chart(figure, width="stretch")
        chart_downloads(figure, f"confusion-{dataset}-{judge}", key="cal-confusion-rubric")
    with right:
        named = [("Pearson", result.pearson), ("Spearman", result.spearman), ("Kendall", result.kendall),
                 ("Pearson, item means", result.item_pearson), ("Spearman, item means", result.item_spearman)]
        st.plotly_chart(correlation_forest(named, judges=[judge]), width="stretch")
        st.caption("Per call against the raters' mean; the item-mean rows average the judge's calls on each item "
                   f"first. Method named on hover: {result.correlation_p_values}.")
    explain("pearson")
    per_class = pd.DataFrame([c.__dict__ for c in result.per_class])
    show_table(per_class, column_config=float_columns(per_class))
    if label_source == "human":  # the estimate is of a human mean; a reference judge's scores are no such thing
        ppi_score_block(dataset, judge, scope, result.items)
    geval_block(result.pooled_runs, judge)
    st.subheader("Calls where the judge's score differs from the labels' median")
    wrong = cached(disagreeing_trials, dataset, judge, scope)
    st.caption(disagreement_caption(len(wrong), pairwise=False))
    show_table(wrong)
    table_downloads(wrong, f"disagreements-{dataset}-{judge}", key="cal-wrong-trials", judges=[judge])
    if not wrong.empty:
        item_id = st.selectbox("Read an item in full", list(dict.fromkeys(wrong["item_id"].head(1000))))
        texts = _read_item(item_id)
        st.markdown("**Response being scored**")
        st.text(texts.get("response", "(not in the store)"))
        show_table(wrong[wrong["item_id"] == item_id])
