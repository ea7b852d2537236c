"""The G-Eval expected-score block (issue 14): the expected score next to the parsed score of a rubric run.

Drawn by the Rubric bias page (``show_geval``, with the run's summary in hand) and by the Calibration page
(``geval_block``, from the run ids it pools). It reads through ``analyses.rubric.run_geval`` and draws only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from judgebias_core.analyses.rubric import CorrelationEstimate, GEvalSummary, run_geval
from judgebias_core.charts.rubric import geval_pull_figure
from judgebias_core.errors import NotFoundError
from ui.share import chart_downloads, code_span, explain, table_downloads
from ui.state import cached

NO_SCORE = "n/a"


def _value(value: float, signed: bool = False) -> str:
    return NO_SCORE if math.isnan(value) else (f"{value:+.3f}" if signed else f"{value:.3f}")


def _interval(estimate: CorrelationEstimate) -> str:
    low, high = estimate.pearson_ci
    return f"95% item-bootstrap CI {_value(low)} to {_value(high)} · n = {estimate.n} items"


def _correlations(summary: GEvalSummary) -> None:
    if summary.expected_vs_labels is None or summary.parsed_vs_labels is None or summary.difference is None:
        st.info("No human or reference-judge scores exist for these items, so there is nothing to correlate with.")
        return
    against = "human scores" if summary.label_source == "human" else "a reference judge (not human labels)"
    st.markdown(f"Per-item mean of each score, over the same {summary.compared:,} calls, against {against}:")
    columns = st.columns(3)
    for column, (name, estimate, signed) in zip(columns, (
            ("Expected score Pearson r", summary.expected_vs_labels, False),
            ("Parsed score Pearson r", summary.parsed_vs_labels, False),
            ("Expected minus parsed", summary.difference, True)), strict=True):
        column.metric(name, _value(estimate.pearson, signed), help=_interval(estimate))
        column.caption(f"{_interval(estimate)}; Spearman rho {_value(estimate.spearman, signed)}")


def _pulls(summary: GEvalSummary, name: str, judge: str) -> None:
    st.markdown("**Position pull**: per position, how many points the score moves per point of the option shown "
                "there, within an item (0 for a judge blind to the order). The expected score's profile next to "
                "the parsed score's.")
    if not summary.pulls:
        st.info(f"No position pull: {summary.pull_reason}.")
        return
    figure = geval_pull_figure(summary, judges=[judge])
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"geval-pull-{name}", key=f"geval-pull-chart-{name}")
    table = pd.DataFrame([{
        "position": p.position, "expected-score pull": p.expected,
        "expected 95% interval": "none (every item gives the same slope)" if p.expected_degenerate
        else f"{p.expected_ci[0]:.3f} to {p.expected_ci[1]:.3f}",
        "parsed-score pull": p.parsed,
        "parsed 95% interval": "none (every item gives the same slope)" if p.parsed_degenerate
        else f"{p.parsed_ci[0]:.3f} to {p.parsed_ci[1]:.3f}",
    } for p in summary.pulls])
    st.dataframe(table, hide_index=True, width="stretch")
    table_downloads(table, f"geval-pull-{name}", key=f"geval-pull-table-{name}", judges=[judge])


def show_geval(summary: GEvalSummary, run_id: str, judge: str) -> None:
    """The block for one run's summary: counts, correlation with the labels, position pull."""
    if not summary.available:
        st.info(f"No G-Eval expected score for run {code_span(run_id)}: {summary.reason}.")
        return
    if summary.simulated:
        st.caption("Simulated judge: its log-probabilities are simulated from its stated behaviour (the human label "
                   "plus noise, and the position weights), so the expected score follows the human label closely by "
                   "construction.")
    st.caption(f"Run {code_span(run_id)}: {summary.with_expected:,} of {summary.calls:,} calls carry an expected "
               f"score; {summary.compared:,} of them also parsed, on {summary.items:,} items"
               + (f"; {summary.expected_unparsed:,} calls have an expected score but no parsed one"
                  if summary.expected_unparsed else "")
               + f". Mean expected score {_value(summary.mean_expected)}, mean parsed score "
               f"{_value(summary.mean_parsed)}; per call Pearson r {_value(summary.call_pearson)} between them. "
               f"Intervals: {summary.interval_kind}, {summary.resamples:,} resamples, seed {summary.seed}.")
    _correlations(summary)
    _pulls(summary, run_id, judge)


def geval_block(run_ids: Sequence[str], judge: str) -> None:
    """The G-Eval block for every rubric run among ``run_ids`` (other runs are skipped)."""
    for run_id in run_ids:
        try:
            summary = cached(run_geval, run_id)
        except NotFoundError:
            continue  # not a rubric run
        st.subheader(f"G-Eval expected score: run {code_span(run_id)}")
        explain("g_eval_score")
        show_geval(summary, run_id, judge)
