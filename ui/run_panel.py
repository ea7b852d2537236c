"""Streamlit pieces shared by the New run and Runs pages: provider keys from secrets, live progress, cancel."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import streamlit as st

from judgebias_core.engine import read_progress, request_cancel
from judgebias_core.engine.background import launch_background
from judgebias_core.engine.batch import BatchSettings
from judgebias_core.engine.progress import read_batch_line
from judgebias_core.errors import MissingApiKey
from judgebias_core.models import RunStatus
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import key_variables
from ui.navigation import link_run_analysis
from ui.share import code_span
from ui.state import db_path
from ui.text import counted, escape_markdown

TERMINAL = tuple(status for status in RunStatus if status.terminal)
# Query parameter of the New run page that preselects a dataset.
NEW_RUN_DATASET_PARAM = "nr_dataset"
# st.session_state key: run id -> (dataset id, protocol) of the runs launched in this session, for their links.
RUN_SCOPES_KEY = "active_run_scopes"


def dollars(amount: float) -> str:
    """A run's cost: "$0.00" when nothing was billed, else to the hundredth of a cent."""
    return f"${amount:,.4f}" if amount else "$0.00"


def parse_position_weights(text: str) -> tuple[float, ...]:
    """The simulated judge's position weights from "0.4,0.2,0.15"; a ValueError says what is wrong with them."""
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise ValueError("give at least one weight, such as 0.4,0.2,0.15,0.15,0.1")
    weights: list[float] = []
    for position, part in enumerate(parts, start=1):
        try:
            weight = float(part)
        except ValueError:
            raise ValueError(f"weight {position} ({part!r}) is not a number; write numbers separated by commas, "
                             "such as 0.4,0.2,0.15,0.15,0.1") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"weight {position} ({part}) must be zero or more")
        weights.append(weight)
    if not sum(weights):
        raise ValueError("at least one weight must be above zero")
    return tuple(weights)


def provider_keys() -> dict[str, str]:
    """API keys from Streamlit secrets (the environment is inherited anyway); never shown or stored."""
    keys: dict[str, str] = {}
    for variable in key_variables().values():
        try:
            value = st.secrets.get(variable)
        except Exception:  # noqa: BLE001 - no secrets file is the common case
            value = None
        if value:
            keys[variable] = str(value)
    return keys


def key_available(provider: str) -> bool:
    variable = key_variables().get(provider)
    return variable is None or bool(os.environ.get(variable) or provider_keys().get(variable))


def missing_key_message(provider: str, base_url: str | None = None) -> str | None:
    """What to set before launching when the provider's API key is missing (None when it is there or not needed)."""
    variable = key_variables().get(provider)
    if variable is None or key_available(provider):
        return None
    message = (f"Launch needs an API key: set {variable} in the environment or in .streamlit/secrets.toml, then "
               "reload this page.")
    if provider == "openai":
        message += (" A local OpenAI-compatible server (vLLM, Ollama) ignores the key but the client needs one: "
                    f"set {variable} to any placeholder text, such as local.")
    return message


def launch_runs(provider: str, specs: Sequence[RunSpec], settings: RunSettings, run_ids: Sequence[str],
                batch: BatchSettings | None = None) -> None:
    """Button callback: launch each run in the background (through the batch API with ``batch``; callbacks run
    before the script, so a rerun of the page cannot lose the click); a missing key is left in
    ``st.session_state['launch_error']``."""
    variable = key_variables().get(provider)
    if variable and not key_available(provider):
        st.session_state["launch_error"] = MissingApiKey(variable)
        return
    keys = provider_keys()
    for spec, run_id in zip(specs, run_ids, strict=True):
        launch_background(db_path(), spec, settings, run_id, keys, batch)
    st.session_state["active_runs"] = list(run_ids)
    st.session_state[RUN_SCOPES_KEY] = {run_id: (spec.dataset_id, spec.protocol)
                                        for spec, run_id in zip(specs, run_ids, strict=True)}
    st.toast(f"{counted(len(run_ids), 'run')} launched in the background.")


def show_progress(run_id: str, scope: tuple[str, str] | None = None) -> None:
    """Progress bar and counts of a run, read from the file its process keeps (refreshes every second); with the
    run's (dataset id, protocol), a link to its analysis once it has ended with replies."""

    @st.fragment(run_every=1.0)
    def _panel() -> None:
        progress = read_progress(db_path(), run_id)
        if progress is None:
            st.info(f"Run {code_span(run_id)} is starting…")
            return
        done = progress.completed + progress.failed
        st.progress(done / progress.planned if progress.planned else 1.0,
                    text=f"{code_span(run_id)}: {done:,} of {progress.planned:,} calls · {progress.status}")
        cols = st.columns(5)
        cols[0].metric("With a reply", f"{progress.completed:,}", help="Calls with a stored reply, unparseable "
                       "ones included.")
        cols[1].metric("Failed", f"{progress.failed:,}", help="No reply after every retry.")
        cols[2].metric("Unparseable", f"{progress.parse_failures:,}", help="Replies no verdict could be read from.")
        cols[3].metric("Cost so far", dollars(progress.cost_usd), help="From the provider's reported usage and "
                       f"the price table; {progress.cached:,} calls came from the response cache at no cost.")
        left = progress.seconds_left
        cols[4].metric("Time left", "—" if left is None else f"{left:,.0f} s", help="At the rate so far.")
        if scope is not None and progress.status != "running" and progress.completed:
            link_run_analysis(run_id, *scope)
        batches = read_batch_line(db_path(), run_id)
        if batches:
            st.caption(f"Batch mode: {escape_markdown(batches)}")
        if progress.status == "running":
            st.button("Cancel run", key=f"cancel-{run_id}", help="Stops after the calls in flight; everything "
                      "received is kept. Launch it again to resume.", on_click=request_cancel,
                      args=(db_path(), run_id))

    _panel()
