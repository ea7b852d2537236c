"""The G-Eval expected-score block (issue 14): the expected score next to the parsed score of a rubric run.

Drawn by the Rubric bias page (``show_geval``, with its view's words and the run's summary) and by the Calibration
page (``geval_block``, from the run ids it pools, through ``analyses.rubric.run_geval_view``). Every sentence comes
from ``judgebias_core.wording.geval_words``; this module draws only.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from judgebias_core.analyses.rubric import GEvalSummary, run_geval_view
from judgebias_core.charts.rubric import geval_pull_figure
from judgebias_core.errors import NotFoundError
from judgebias_core.wording.geval_words import NO_LABELS, PULL_INTRO, GEvalWords
from ui.share import chart_downloads, code_span, explain, table_downloads
from ui.state import cached


def _correlations(words: GEvalWords) -> None:
    if words.against is None:
        st.info(NO_LABELS)
        return
    st.markdown(words.against)
    for column, metric in zip(st.columns(len(words.correlations)), words.correlations, strict=True):
        column.metric(metric.label, metric.value, help=metric.help)
        column.caption(metric.caption)


def _pulls(summary: GEvalSummary, words: GEvalWords, judge: str) -> None:
    st.markdown(PULL_INTRO)
    if words.pull_missing is not None:
        st.info(words.pull_missing)
        return
    name = words.run_id
    figure = geval_pull_figure(summary, judges=[judge])
    st.plotly_chart(figure, width="stretch")
    chart_downloads(figure, f"geval-pull-{name}", key=f"geval-pull-chart-{name}")
    table = pd.DataFrame([{"position": p.position, "expected-score pull": p.expected,
                           "expected 95% interval": p.expected_interval, "parsed-score pull": p.parsed,
                           "parsed 95% interval": p.parsed_interval} for p in words.pulls])
    st.dataframe(table, hide_index=True, width="stretch")
    table_downloads(table, f"geval-pull-{name}", key=f"geval-pull-table-{name}", judges=[judge])


def show_geval(summary: GEvalSummary, words: GEvalWords, judge: str) -> None:
    """The block for one run: counts, correlation with the labels, position pull."""
    if words.unavailable is not None:
        st.info(words.unavailable)
        return
    if words.simulated_note is not None:
        st.caption(words.simulated_note)
    if words.sentence is not None:
        st.markdown(words.sentence)
    st.caption(words.counts or "")
    _correlations(words)
    _pulls(summary, words, judge)


def geval_block(run_ids: Sequence[str], judge: str) -> None:
    """The G-Eval block for every rubric run among ``run_ids`` (other runs are skipped)."""
    for run_id in run_ids:
        try:
            view = cached(run_geval_view, run_id)
        except NotFoundError:
            continue  # not a rubric run
        st.subheader(f"G-Eval expected score: run {code_span(run_id)}")
        explain("g_eval_score")
        show_geval(view.summary, view.words, judge)
