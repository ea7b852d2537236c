"""Report: choose a dataset, judges and runs; build one HTML file to send to people who do not code."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.datasets import dataset_summaries
from judgebias_core.analyses.runs import dataset_judges, dataset_runs
from judgebias_core.report import ReportRequest, build_report, render_html
from ui.share import escape_markdown, permalink_hint, synced_multiselect, synced_selectbox
from ui.state import cached, load_or_stop, stop_on_error
from ui.verdict import verdict_block

st.title("Report")
st.markdown(
    "One file to send to people who do not code: a summary in plain sentences, the charts (they work offline, "
    "no network needed to open the file), the tables with the counts behind every rate, how each number was "
    "measured, and where the data came from. Text from datasets and judges is shown as written, never run."
)

summaries = load_or_stop(dataset_summaries)
if not summaries:
    st.info("The store holds no dataset yet.")
    st.stop()

names = {s.id: s.name for s in summaries}
# Plain ids as options: a bound widget keeps the option as displayed in the URL (?dataset=mtbench).
dataset_id = synced_selectbox("Dataset", list(names), key="dataset")
st.caption(escape_markdown(names[dataset_id]))
judges_frame = cached(dataset_judges, dataset_id)
runs_frame = cached(dataset_runs, dataset_id)
if judges_frame.empty:
    st.info("No judge has judged this dataset yet: launch a run from the New run page, then come back.")
    st.stop()
calls_of = dict(zip(judges_frame["judge"], judges_frame["calls"], strict=True))
left, right = st.columns(2)
with left:
    judges = synced_multiselect("Judges (none chosen: every judge)", list(calls_of), key="judges",
                                placeholder="every judge", help="Calls per judge: " + escape_markdown(
                                    ", ".join(f"{j} {n:,}" for j, n in calls_of.items())))
with right:
    run_calls = dict(zip(runs_frame["run_id"], runs_frame["calls"], strict=True))
    runs = synced_multiselect("Runs (none chosen: every run)", list(run_calls), key="runs",
                              placeholder="every run", help="Calls per run: " + escape_markdown(
                                  ", ".join(f"{r} {n:,}" for r, n in run_calls.items())))
permalink_hint()

request = ReportRequest(dataset_id=dataset_id, judges=tuple(judges), runs=tuple(runs))
if st.button("Build the report", type="primary", icon=":material/description:"):
    st.session_state["report_request"] = request
if st.session_state.get("report_request") != request:
    st.caption("Building takes a few seconds: every metric is computed afresh from the store.")
    st.stop()

with stop_on_error(), st.spinner("Computing every section…"):
    report = cached(build_report, request)
    document = render_html(report)

st.download_button("Download the report (HTML)", data=document, file_name=f"judgebias-report-{dataset_id}.html",
                   mime="text/html", type="primary", icon=":material/download:", on_click="ignore")
st.caption(f"Sections: {escape_markdown(', '.join(s.title for s in report.sections) or 'none')} · "
           f"{sum(len(s.figures) for s in report.sections)} charts · "
           f"{sum(len(s.tables) for s in report.sections)} tables · {len(document) / 1e6:.1f} MB")
st.subheader("In short")
for sentence in (s for section in report.sections for s in section.headline):
    st.markdown(f"- {escape_markdown(sentence)}")
if not report.sections:
    st.info("No judge has results on this selection yet.")
for note in report.skipped:
    st.caption(escape_markdown(note))
verdicts = [verdict for section in report.sections for verdict in section.verdicts]
if verdicts:
    with st.expander(f"The report's verdicts ({len(verdicts)}), as the analysis pages show them"):
        verdict_block(verdicts, title="Verdicts")
