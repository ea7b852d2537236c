"""The judge-assisted estimate blocks of the Calibration page (a candidate's human win rate on pairwise runs, the
human mean score on rubric runs; issue 14): what the judge's verdicts or scores are worth as a stand-in for people's
labels. Every sentence comes from the view (``analyses.ppi_view``: the report and ``metrics ppi --json`` read the
same one); this module draws the widgets, the reading, the chart, the table and the fold."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.calibration import FEW_LABELS, PredictionPoweredMeanScore, default_label_fraction
from judgebias_core.analyses.ppi_view import PPIView, ppi_view, too_few_items_sentence
from judgebias_core.charts.calibration import ppi_forest
from judgebias_core.errors import InvalidArgument
from judgebias_core.wording.verdict import DECIDED
from ui.share import chart_downloads, escape_markdown
from ui.state import cached, stop_on_error
from ui.tables import show_table
from ui.verdict import verdict_lines_markdown

SHARE_LABEL = "Share of items with a human label kept"
SCORE_SHARE_LABEL = "Share of items with a human score kept"


def _view_or_say_why(share_label: str, *args: object) -> PPIView | None:
    """``ppi_view(*args)``; when the share leaves too few labelled or unlabelled items, the reason in words (the
    rest of the page still draws) and None."""
    with stop_on_error():  # any other named error: its message, and the page's run ends, as load_or_stop does
        try:
            return cached(ppi_view, *args)
        except InvalidArgument as error:  # the share chosen, not the store: say which control changes it
            st.info(too_few_items_sentence(share_label))
            with st.expander(DECIDED):
                st.caption(escape_markdown(str(error)))
            return None
    raise AssertionError("unreachable: stop_on_error ends the run")


def ppi_win_rate_block(dataset: str, judge: str, scope: str | None, candidates: list[str]) -> None:
    """Candidate, share and seed, then the estimate of the candidate's human win rate for the judge's runs in
    ``scope`` (None: every run)."""
    st.subheader("What the judge's verdicts are worth: people's win rate from a few labels")
    left, middle, right = st.columns(3)
    chosen = left.selectbox("Candidate", candidates, key="cal_ppi_candidate")
    share = middle.slider(SHARE_LABEL, 0.02, 0.5, 0.1, 0.01, key="cal_ppi_share")
    seed = right.number_input("Seed of the labelled sample", min_value=0, value=0, step=1, key="cal_ppi_seed")
    view = _view_or_say_why(SHARE_LABEL, dataset, judge, chosen, None, scope, float(share), int(seed))
    if view is not None:
        ppi_reading(view, f"ppi-{dataset}-{judge}", "cal-ppi")


def ppi_score_block(dataset: str, judge: str, scope: str | None, items: int) -> None:
    """Share slider and seed, then the estimate of the human mean score for the judge's runs in ``scope`` (None:
    every run) on ``items`` labelled items."""
    st.subheader("What the judge's scores are worth: people's mean score from a few labels")
    left, right = st.columns(2)
    share = left.slider(SCORE_SHARE_LABEL, 0.05, 0.5, default_label_fraction(items), 0.01,
                        key="cal_ppi_score_share",
                        help=f"Below {FEW_LABELS} labelled items the result carries a caution: its interval rests on few "
                        "independent units and can cover less often than 95%.")
    seed = right.number_input("Seed of the labelled sample", min_value=0, value=0, step=1, key="cal_ppi_score_seed")
    view = _view_or_say_why(SCORE_SHARE_LABEL, dataset, judge, None, None, scope, float(share), int(seed))
    if view is not None:
        ppi_reading(view, f"ppi-score-{dataset}-{judge}", "cal-ppi-score")


def ppi_reading(view: PPIView, name: str, key: str) -> None:
    """The plain reading (what it says, how sure, what to do), the caution, the three estimates as a chart and a
    table, and the method in the fold "How this was decided"."""
    if view.simulated_note:
        st.warning(escape_markdown(view.simulated_note), icon=":material/science:")
    st.info(verdict_lines_markdown(view.verdict))
    if view.result.caveat:
        st.warning(f"Caution: {view.result.caveat}.")  # core text without markdown, shown as the CLI prints it
    figure = ppi_forest(view.result, judges=[view.judge])
    st.plotly_chart(figure, width="stretch", key=key)
    chart_downloads(figure, name, key=key)
    value = "mean score" if isinstance(view.result, PredictionPoweredMeanScore) else "win rate"
    e = view.result.estimate
    show_table([{"estimate": label, value: row.estimate, "95% low": row.low, "95% high": row.high,
                 "items (n)": row.n, "what it is": row.label}
                for label, row in (("prediction-powered", e.ppi), ("human labels only", e.human_only),
                                   ("judge only", e.judge_only))],
               column_config={c: st.column_config.NumberColumn(format="%.3f") for c in (value, "95% low", "95% high")})
    with st.expander(DECIDED):
        for line in view.verdict.lines:
            st.caption(f"**{escape_markdown(line.heading)}:** {escape_markdown(line.rule)}")
