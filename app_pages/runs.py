"""Runs: every run with status, counts and cost; open one to see its parameters, template and replies."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from judgebias_core.analyses.runs import actions_on, run_calls_sample, run_record
from judgebias_core.engine.batch import BatchSettings
from judgebias_core.engine.overview import run_parameters, runs_overview
from judgebias_core.protocols.spec import RunSettings, RunSpec
from ui.access import operator_gate
from ui.navigation import link_run_analysis, run_analysis_url
from ui.run_panel import cost_label, dollars, launch_runs, show_progress
from ui.share import code_span, escape_markdown
from ui.state import cached, load_or_stop, show_error
from ui.tables import show_table

st.title("Runs")
runs = load_or_stop(runs_overview)

st.caption("completed = calls with a stored reply (unparseable ones included); failed = no reply after every "
           "retry; cost from the providers' reported usage, plus an estimate for requests an interruption cut off "
           "after sending. A run marked complete whose stored calls fall short of its plan reads incomplete. "
           "Simulated runs are marked.")
shown = runs.assign(judge=runs["judge"].fillna("(several)"),
                    simulated=runs["simulated"].map({True: "simulated", False: ""}),
                    cost=[cost_label(float(r.cost_usd), int(r.unpriced_calls)) for r in runs.itertuples()],
                    analysis=[run_analysis_url(r.run_id, r.dataset, r.protocol, r.study)
                              if r.completed and r.status != "running" else None for r in runs.itertuples()])
show_table(
    shown[["run_id", "analysis", "dataset", "protocol", "provider", "judge", "simulated", "summary", "planned",
           "completed", "failed", "parse_failures", "cost", "created_at"]],
    column_config={"cost": st.column_config.TextColumn("cost (USD)", help="unknown: replies of a model without "
                                                       "a price (give one with --price-per-mtok)"),
                   "summary": st.column_config.TextColumn("status"),
                   "analysis": st.column_config.LinkColumn(
                       "open in", display_text=r"^(\w+)_bias", help="The run's analysis page, with its dataset and "
                       "run chosen: pairwise = Pairwise bias, rubric = Rubric bias.")},
)

if runs.empty:
    st.info("No run yet. Launch one from the New run page.")
    st.stop()
run_id = st.selectbox("Open run", runs["run_id"].tolist(), index=len(runs) - 1)
record = cached(run_record, run_id)
row = runs[runs["run_id"] == run_id].iloc[0]
params = run_parameters(record.get("params") if record else None)
if row["simulated"]:
    behaviour = str(params.get("judge_description", "")).removeprefix("simulated judge: ")
    st.warning("**Simulated judge**: these judgments were made by a simulated judge, not a language model. "
               + escape_markdown(behaviour[:1].upper() + behaviour[1:]))

st.markdown(f"**Status:** {escape_markdown(row['summary'])} · dataset {code_span(row['dataset'])} · protocol "
            f"{code_span(row['protocol'])} · judge "
            f"{code_span(row['judge'] if isinstance(row['judge'], str) else '(several)')}")
cols = st.columns(4)
cols[0].metric("Planned calls", f"{int(row['planned']) if pd.notna(row['planned']) else 0:,}")
cols[1].metric("With a reply", f"{int(row['completed']):,}", help="Unparseable replies included.")
cols[2].metric("Failed", f"{int(row['failed']):,}", help=f"{int(row['parse_failures']):,} replies did not parse.")
estimated = float(row["cost_estimated_usd"])
cols[3].metric("Cost", cost_label(float(row["cost_usd"]), int(row["unpriced_calls"])), help=(
    f"{int(row['unpriced_calls']):,} replies of a model without a price have an unknown cost, left out of the "
    "sum. " * bool(row["unpriced_calls"]) + (
    f"Includes {dollars(estimated)} estimated for {int(row['unanswered_sends']):,} requests an interruption cut "
    "off after sending (billed by the provider, reply never received; sent again on resume)." if estimated else
    "From the providers' reported usage and the price table.")))

if int(row["completed"]) and row["status"] != "running":
    link_run_analysis(run_id, row["dataset"], row["protocol"], row["study"])
if row["origin"] == "engine":
    if row["status"] == "running":
        show_progress(run_id, (row["dataset"], row["protocol"]))
    elif row["resumable"] and "spec" in params:
        spec = RunSpec.model_validate(params["spec"])
        if row["summary"].startswith("incomplete"):
            st.warning("This run was marked complete, but the store holds fewer of its calls than planned. Resume "
                       "stores the missing replies from the run's journal (no request is sent for them).")
        if operator_gate("Resuming a run"):
            st.button("Resume run", help="Stores journaled replies the store lacks, then sends only the calls with "
                      "no stored reply.", key=f"resume-{run_id}",
                      on_click=launch_runs, args=(spec.provider, [spec],
                                                  RunSettings.model_validate(params.get("settings") or {}), [run_id],
                                                  BatchSettings.model_validate(params["batch"]) if params.get("batch")
                                                  else None, None, "resume"))
        if "launch_error" in st.session_state:
            show_error(st.session_state.pop("launch_error"))
actions = cached(actions_on, run_id)
if not actions.empty:
    st.caption("Operators' actions on this run: " + "; ".join(
        f"{a.action} by {code_span(a.actor)} at {a.acted_at:%Y-%m-%d %H:%M} UTC" for a in actions.itertuples()))

with st.expander("Parameters", expanded=True):
    st.json(params, expanded=1)
if record and isinstance(record.get("template_text"), str):
    with st.expander(f"Prompt template (sha256 {record['template_id'][:12]}…)"):
        st.text(record["template_text"])
calls = cached(run_calls_sample, run_id)
with st.expander(f"First {len(calls):,} stored calls"):
    show_table(calls)
