"""Compare judges: every judge configuration of a dataset (or dataset group) side by side, and which one to use."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.scorecard_view import scorecard_datasets, scorecard_view
from judgebias_core.charts.scorecard import scorecard_chart
from ui.navigation import link_page
from ui.share import (
    chart_downloads,
    escape_markdown,
    explain,
    permalink_hint,
    report_button,
    synced_selectbox,
    table_downloads,
)
from ui.state import load_or_stop
from ui.tables import show_table
from ui.text import code_span, counted

st.title("Compare judges")
st.caption("Which judge should I use? Every judge configuration (judge x prompting strategy or study x protocol) "
           "of one dataset side by side: accuracy against the labels with item-clustered intervals, position bias, "
           "length bias, parse failures and cost, the paired difference from the best configuration, and a "
           "recommendation.")
choices, default = load_or_stop(scorecard_datasets)
if not choices:
    st.info("No pairwise judge calls in the store yet: upload a pairwise log (Data page) or launch a swap run.")
    link_page("data.py", "Open the Data page")
    st.stop()
names = dict(choices)
dataset = synced_selectbox("Dataset", list(names), key="cj_dataset", index=default)
st.caption(f"{escape_markdown(names[dataset])}")
permalink_hint()
view = load_or_stop(scorecard_view, dataset)
card = view.card
if view.simulated_notice:
    st.warning(escape_markdown(view.simulated_notice), icon=":material/science:")

st.subheader("Recommendation")
# The plain first sentence with its count, then the figures and the rule behind it.
recommendation = view.text
if view.recommended:
    st.success(escape_markdown(recommendation))
elif card.has_labels:
    st.warning(escape_markdown(recommendation))
else:
    st.info(escape_markdown(recommendation))
    labelled = ", ".join(code_span(d) for d in card.labelled_datasets) or "none yet"
    st.markdown(f"Datasets with labels in this store: {labelled}. To add labels to these items, upload them as "
                "pairs with a preference column on the Data page.")
    link_page("data.py", "Upload labels (Data page)")
    link_page("calibration.py", "Agreement with people (Calibration)")
if len(card.datasets) > 1:
    st.caption(f"Group of {counted(len(card.datasets), 'dataset')}: {escape_markdown(', '.join(card.datasets))}. "
               "Pairs pooled; items stay distinct and are resampled as clusters.")
elif card.rows:
    report_button(dataset, key="cj-report")

figure = scorecard_chart(card.rows, card.best, card.recommendation.label)
st.plotly_chart(figure, width="stretch", key="cj-chart")
st.caption(escape_markdown(view.chart_caption))
chart_downloads(figure, f"scorecard-{dataset}", key="cj-chart")

st.subheader(f"Judge configurations ({len(card.rows)})")
table = view.table
show_table(table)
table_downloads(table, f"scorecard-{dataset}", key="cj-table")
st.caption(escape_markdown(view.accuracy_note))
for note in view.cost_notes:
    st.caption(f"Cost: {escape_markdown(note)}")
explain("scorecard_accuracy")
explain("flip_rate")
