"""Streamlit pieces shared by the New run and Runs pages: provider keys from secrets, launch and resume (operators
only, within the dashboard's limits, recorded with who did it), live progress, cancel."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import streamlit as st

from judgebias_core.access import Access, RunRequest, check_run_limits, check_runs_at_once
from judgebias_core.analyses.runs import OperatorAction, running_runs_of
from judgebias_core.engine import read_progress, request_cancel
from judgebias_core.engine.background import launch_background
from judgebias_core.engine.batch import BatchSettings
from judgebias_core.engine.folder_identity import claim_run_folder
from judgebias_core.engine.overview import runs_overview
from judgebias_core.engine.progress import read_batch_line
from judgebias_core.errors import InvalidArgument, JudgebiasError, MissingApiKey
from judgebias_core.models import RunStatus
from judgebias_core.protocols.plan_size import planned_call_count
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import Provider, get_provider, key_variables
from judgebias_core.providers.endpoints import stored_key_allowed
from ui.access import current_access, record_operator_action, serving
from ui.navigation import link_run_analysis
from ui.share import code_span
from ui.state import current_store
from ui.text import counted, escape_markdown

# Query parameter of the New run page that preselects a dataset.
NEW_RUN_DATASET_PARAM = "nr_dataset"
# st.session_state key: run id -> (dataset id, protocol) of the runs launched in this session, for their links.
RUN_SCOPES_KEY = "active_run_scopes"


_LAUNCH_LOCK = threading.Lock()


def dollars(amount: float) -> str:
    """A run's cost: "$0.00" when nothing was billed, else to the hundredth of a cent."""
    return f"${amount:,.4f}" if amount else "$0.00"


def cost_label(amount: float, unpriced_calls: int) -> str:
    """A run's cost, "unknown" when replies of a model without a price were left out (never shown as $0)."""
    if not unpriced_calls:
        return dollars(amount)
    return f"{dollars(amount)} + unknown" if amount else "unknown"


def show_provider_settings(provider: Provider) -> dict[str, float | str]:
    """The widgets of a provider's own settings (``Provider.settings``, described as data in the core), in an
    expander under its ``settings_title``; their values by name."""
    if not provider.settings:
        return {}
    values: dict[str, float | str] = {}
    with st.expander(provider.settings_title, expanded=True):
        for setting in provider.settings:
            key = f"nr_{provider.name}_{setting.name}"
            if setting.choices:
                values[setting.name] = st.selectbox(setting.label, setting.choices, help=setting.help, key=key,
                                                    index=setting.choices.index(str(setting.default)))
            elif isinstance(setting.default, str):
                values[setting.name] = st.text_input(setting.label, setting.default, help=setting.help, key=key)
            elif setting.minimum is not None and setting.maximum is not None:
                values[setting.name] = st.slider(setting.label, setting.minimum, setting.maximum, setting.default,
                                                 setting.step, help=setting.help, key=key)
            else:
                values[setting.name] = st.number_input(setting.label, setting.minimum, setting.maximum,
                                                       setting.default, setting.step, help=setting.help, key=key)
    return values


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


def key_needed(provider: str, base_url: str | None) -> bool:
    """Does a launch need the provider's stored key? Not for a base URL it may not be sent to (that server gets a
    key typed for it, or none)."""
    return provider in key_variables() and stored_key_allowed(provider, base_url, serving().key_endpoints)


def missing_key_message(provider: str, base_url: str | None = None) -> str | None:
    """What to set before launching when the provider's API key is missing (None when it is there or not needed)."""
    variable = key_variables().get(provider)
    if variable is None or not key_needed(provider, base_url) or key_available(provider):
        return None
    message = (f"Launch needs an API key: set {variable} in the environment or in .streamlit/secrets.toml, then "
               "reload this page.")
    hint = get_provider(provider).missing_key_hint
    if hint:
        message += f" {hint}"
    return message


def check_launch(specs: Sequence[RunSpec], settings: RunSettings, planned: Sequence[int], access: Access) -> None:
    """InvalidArgument when the runs break the dashboard's limits (calls, repetitions, calls in flight, the spending
    cap of a served paid run, runs per operator at once)."""
    limits = access.config.limits
    for spec, calls in zip(specs, planned, strict=True):
        check_run_limits(RunRequest(planned_calls=calls, repetitions=spec.repeats, concurrency=settings.concurrency,
                                    max_cost_usd=settings.max_cost_usd, paid=get_provider(spec.provider).paid),
                         limits, access.served)
    if access.served:
        finished = finished_run_ids()
        with current_store().reader() as reader:
            going = running_runs_of(reader, access.actor, finished)
        check_runs_at_once(access.actor, going, len(specs), limits, access.served)


def finished_run_ids() -> list[str]:
    """Runs the store still marks running whose process has ended (their progress file says so)."""
    with current_store().reader() as reader:  # not cached: the progress files change without the store
        runs = runs_overview(reader)
    stale = runs[(runs["origin"] == "engine") & (runs["status"] != RunStatus.RUNNING)]
    return stale["run_id"].tolist()


def launch_runs(provider: str, specs: Sequence[RunSpec], settings: RunSettings, run_ids: Sequence[str],
                batch: BatchSettings | None = None, typed_key: str | None = None,
                action: OperatorAction = "launch") -> None:
    """Button callback: launch each run in the background (through the batch API with ``batch``; callbacks run
    before the script, so a rerun of the page cannot lose the click), for an operator only and within the limits,
    recording who launched it; what stopped it is left in ``st.session_state['launch_error']``. ``typed_key``:
    a key typed for the specs' base URL (sent there only, never stored)."""
    access = current_access()
    if not access.is_operator:
        st.session_state["launch_error"] = InvalidArgument(f"Launching a run is for operators. {access.why_viewer()}")
        return
    variable = key_variables().get(provider)
    if variable and not typed_key and key_needed(provider, specs[0].base_url) and not key_available(provider):
        st.session_state["launch_error"] = MissingApiKey(variable)
        return
    # Check and record as one step: two sessions of one operator clicking Launch at once (Streamlit runs every
    # session in a thread of this process) must not both pass the runs-at-once limit. The recorded launch counts
    # as a run going until its child writes the run (store/access_queries.py).
    with _LAUNCH_LOCK:
        try:
            store = current_store()
            claim_run_folder(store)  # a run folder written for another store is refused here, not in the child
            with store.reader() as reader:
                planned = [planned_call_count(reader, spec) for spec in specs]
            check_launch(specs, settings, planned, access)
        except JudgebiasError as error:
            st.session_state["launch_error"] = error
            return
        record_operator_action(action, run_ids)
    keys = provider_keys()
    for spec, run_id in zip(specs, run_ids, strict=True):
        launch_background(current_store(), spec, settings, run_id, keys, batch, typed_key or None,
                          access.config.key_endpoints)
    st.session_state["active_runs"] = list(run_ids)
    st.session_state[RUN_SCOPES_KEY] = {run_id: (spec.dataset_id, spec.protocol)
                                        for spec, run_id in zip(specs, run_ids, strict=True)}
    st.toast(f"{counted(len(run_ids), 'run')} launched in the background.")


def show_progress(run_id: str, scope: tuple[str, str] | None = None) -> None:
    """Progress bar and counts of a run, read from the file its process keeps (refreshes every second); with the
    run's (dataset id, protocol), a link to its analysis once it has ended with replies."""

    @st.fragment(run_every=1.0)
    def _panel() -> None:
        progress = read_progress(current_store(), run_id)
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
        cols[3].metric("Cost so far", cost_label(progress.cost_usd, progress.unpriced_calls),
                       help="From the provider's reported usage and the price table; "
                       f"{progress.cached:,} calls came from the response cache at no cost; "
                       f"{progress.unpriced_calls:,} replies of a model without a price have an unknown cost.")
        left = progress.seconds_left
        cols[4].metric("Time left", "—" if left is None else f"{left:,.0f} s", help="At the rate so far.")
        if scope is not None and progress.status != "running" and progress.completed:
            link_run_analysis(run_id, *scope)
        batches = read_batch_line(current_store(), run_id)
        if batches:
            st.caption(f"Batch mode: {escape_markdown(batches)}")
        if progress.status == "running" and current_access().is_operator:
            st.button("Cancel run", key=f"cancel-{run_id}", help="Stops after the calls in flight; everything "
                      "received is kept. Launch it again to resume.", on_click=cancel_run, args=(run_id,))
        elif progress.status == "running":
            st.caption("Cancelling a run is for operators.")

    _panel()


def cancel_run(run_id: str) -> None:
    """Button callback: ask the run's process to stop (operators only), recording who asked."""
    access = current_access()
    if not access.is_operator:
        return
    record_operator_action("cancel", [run_id])
    request_cancel(current_store(), run_id)
