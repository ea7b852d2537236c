"""New run: pick a dataset, protocol and judge(s), see the plan (estimates), launch, follow the progress."""

from __future__ import annotations

import streamlit as st

from judgebias_core.access import RunRequest, limit_problems
from judgebias_core.analyses.datasets import dataset_summaries
from judgebias_core.engine.batch import BatchSettings, batch_cost
from judgebias_core.engine.preview import preview_run
from judgebias_core.judges.prices import plan_totals
from judgebias_core.prompts import default_template
from judgebias_core.protocols.plan_size import planned_call_count
from judgebias_core.protocols.spec import PAIR_PROTOCOLS, RUBRIC_PROTOCOLS, RunSettings, run_spec
from judgebias_core.providers import get_provider, provider_names, provider_spec_fields
from ui.access import current_access, operator_gate
from ui.plan_panel import show_swap_study_plan
from ui.run_panel import (
    NEW_RUN_DATASET_PARAM,
    RUN_SCOPES_KEY,
    key_needed,
    launch_runs,
    missing_key_message,
    show_progress,
    show_provider_settings,
)
from ui.share import code_span, escape_markdown
from ui.state import cached, load_or_stop, show_error, stop_on_error
from ui.tables import show_table
from ui.text import counted
from ui.upload_widgets import rubric_labels

PAIR_CHOICES = {"baseline": "each candidate against the baseline", "all": "all pairs of candidates"}

st.title("New run")
st.caption("Launch the runs that reveal position bias: rubric permutation and repeat runs, pairwise swap runs, "
           "list-wise runs and repetition runs. Every judgment lands in the store as it arrives.")
# The whole launch form is the operator's: a viewer reads why and how an operator logs in, and nothing is planned.
if not operator_gate("Launching a run"):
    st.stop()
access = current_access()
limits = access.config.limits

summaries = load_or_stop(dataset_summaries)

left, right = st.columns(2)
with left:
    dataset_ids = [s.id for s in summaries]
    # The Data page links here with ?nr_dataset=<id> after an upload.
    wanted = st.query_params.get(NEW_RUN_DATASET_PARAM)
    dataset = st.selectbox("Dataset", dataset_ids, index=dataset_ids.index(wanted) if wanted in dataset_ids else 0,
                           format_func=lambda i: next(f"{s.name} ({i})" for s in summaries if s.id == i))
    kind = next(s.dataset_kind for s in summaries if s.id == dataset)
    protocols = list(RUBRIC_PROTOCOLS) if kind == "pointwise" else [*PAIR_PROTOCOLS, "listwise"]
    protocol = st.selectbox("Protocol", protocols)
with right:
    provider = st.selectbox("Judge provider", provider_names(), format_func=lambda p: get_provider(p).label)
    provider_record = get_provider(provider)
    capabilities = provider_record.capabilities
    base_url = None
    setting_values = show_provider_settings(provider_record)
    if provider_record.model_choices is not None:
        offered = cached(provider_record.model_choices, dataset, **setting_values)
        if not offered:
            st.warning(f"{escape_markdown(provider_record.models_label)}: none to pick on {escape_markdown(dataset)}.")
            st.stop()
        models = st.multiselect(provider_record.models_label, offered, default=offered[:1], help="One run per judge.")
    else:
        typed = st.text_input(provider_record.models_label, ", ".join(provider_record.default_models[:1]),
                              help="Several models separated by commas: one run per model.")
        models = list(dict.fromkeys(m.strip() for m in typed.split(",") if m.strip()))
    batch = None
    if capabilities.batch:
        mode = st.radio("Mode", ["live", "batch"], horizontal=True, key="run_mode",
                        format_func=lambda m: {"live": "live calls", "batch": "batch API (about half price, "
                                               "results within 24 h)"}[m],
                        help="Batch mode hands the calls to the provider's batch API and polls until it ends.")
        if mode == "batch":
            cols = st.columns(3)
            poll = cols[0].number_input("Poll every (s)", 1.0, 3600.0, 30.0, 5.0)
            rounds = cols[1].number_input("Retry rounds", 0, 10, 3, help="Further batches for requests that came back "
                                          "errored or expired.")
            retry_live = cols[2].checkbox("Retry live", help="After those rounds, send what still has no reply as "
                                          "live calls.")
            batch = BatchSettings(poll_interval_s=poll, retry_rounds=int(rounds), retry_live=retry_live)
    structured = logprobs = constrain = False
    typed_key = extra_body = None
    if capabilities.base_url:
        base_url = st.text_input("Base URL (optional)", "", help="An OpenAI-compatible server, e.g. "
                                 "http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for Ollama.") or None
        if base_url and not key_needed(provider, base_url):
            typed_key = st.text_input(
                "API key for this base URL (optional, never stored)", "", type="password",
                help="Sent to this base URL only, for this launch. The stored key goes only to the provider's own "
                "endpoint and to base URLs listed in key_endpoints of the [judgebias] configuration.") or None
        extra_body = st.text_input(
            "Extra request fields (JSON, optional)", "", help="A JSON object merged into every request, e.g. "
            '{"top_k": 1}; stored with the run, so a resume sends the same.') or None
    if provider_record.reply_constraint:
        constrain = st.checkbox(
            "Constrain replies to the answer format", help="The server's own request field (llama.cpp grammar, "
            "vLLM guided choice, Ollama JSON schema) holds each reply to [RESULT] n or [[A]], so that a small "
            "local model's replies parse.")
    if capabilities.structured_output:
        structured = protocol != "listwise" and st.checkbox(
            "Structured output (JSON schema)", help="The reply must be JSON with a score or verdict field; "
            "supported by OpenAI and most OpenAI-compatible servers.")
    if capabilities.logprobs:
        logprobs = kind == "pointwise" and st.checkbox(
            "Expected score from log-probabilities (G-Eval)", help="Stores sum of s x P(s) over the score token's "
            "alternatives next to the sampled score, where the server returns log-probabilities.")

with st.expander("Protocol settings", expanded=True):
    cols = st.columns(4)
    limit = cols[0].number_input("First N items (0 = all)", min_value=0, value=10, step=1)
    rubric_id = orderings = None
    repeats = options = None
    pairs, listwise_size, allow_none = "baseline", 3, False
    if kind == "pointwise":
        rubrics = rubric_labels(dataset)
        choices = ["(each item's own rubric)", *rubrics]
        picked = cols[1].selectbox("Rubric", choices, format_func=lambda r: rubrics.get(r, r))
        rubric_id = None if picked == choices[0] else picked
        if protocol == "rubric-permutation":
            orderings = cols[2].text_input("Orderings", "balanced", help="balanced (2k), reverse, latin, all, "
                                           "or a list such as 12345,54321")
        else:
            repeats = cols[2].number_input("Repeats (0 = 2k)", min_value=0, value=0, step=1) or None
    else:
        options = cols[1].selectbox("Options", [3, 2],
                                    format_func=lambda o: f"{o} ({'tie allowed' if o == 3 else 'no tie'})")
        if protocol == "listwise":
            listwise_size = cols[2].number_input("Candidates per list", min_value=2, max_value=8, value=3)
            allow_none = cols[3].checkbox("Allow 'no clear winner'")
        else:
            # Without a baseline candidate only "all pairs" can be planned: offer it alone, and say why.
            has_baseline = next(s.baseline_candidate for s in summaries if s.id == dataset) is not None
            pairs = cols[2].selectbox("Pairs", ["baseline", "all"] if has_baseline else ["all"],
                                      format_func=PAIR_CHOICES.get,
                                      help=None if has_baseline else "This dataset names no baseline candidate, "
                                      "so every pair of its candidates is judged.")
            if protocol == "repetition":
                repeats = cols[3].number_input("Repetitions R", min_value=2, value=3,
                                               max_value=limits.max_repetitions if access.served else None)

with st.expander("Sampling, concurrency and spending cap"):
    cols = st.columns(5)
    temperature = cols[0].number_input("Temperature", 0.0, 2.0, 0.0, 0.1)
    max_tokens = cols[1].number_input("Max tokens", 16, 8192, 1024, 16)
    seed_text = cols[2].text_input("Seed (optional)", "")
    concurrency = cols[3].number_input("Calls in flight", 1, limits.max_concurrency if access.served else 256,
                                       1 if provider_record.local else min(8, limits.max_concurrency),
                                       help="Local servers default to 1: most compute one request at a time.")
    cap_required = access.served and provider_record.paid
    cap = cols[4].number_input("Spending cap, USD" if cap_required else "Spending cap, USD (0 = none)", 0.0,
                               limits.max_cost_usd_per_run if cap_required else None,
                               value=min(5.0, limits.max_cost_usd_per_run) if cap_required else 0.0, step=1.0,
                               help=f"Required on this served dashboard, at most ${limits.max_cost_usd_per_run:,.2f}."
                               if cap_required else "The run stops before a call would pass it.")
seed = int(seed_text) if seed_text.strip().lstrip("-").isdigit() else None
if seed_text.strip() and seed is None:
    st.error(f"Seed: {code_span(seed_text)} is not a whole number; leave it empty for no seed.")
    st.stop()

template_kind = "rubric" if kind == "pointwise" else ("listwise" if protocol == "listwise" else "pairwise")
default_text = default_template(template_kind, options or 3).text
with st.expander("Prompt template (editable)"):
    st.caption("Fields in `{{double braces}}` are filled per call. The run stores the exact text and its sha256.")
    edited = st.text_area("Template", default_text, height=260, label_visibility="collapsed")
if not models:
    st.info("Choose at least one judge.")
    st.stop()
run_id_text = st.text_input("Run id (optional; the same id resumes a run)", "", disabled=len(models) > 1,
                            help="With several judges each run gets its id from its settings.")

with stop_on_error():
    base_spec = run_spec(dataset_id=dataset, protocol=protocol, provider=provider, model=models[0], base_url=base_url,
                   temperature=temperature, max_tokens=int(max_tokens), seed=seed, repeats=repeats,
                   orderings=orderings or "balanced", options=options, pairs=pairs, listwise_size=int(listwise_size),
                   allow_none=allow_none, rubric_id=rubric_id, limit_items=int(limit) or None,
                   template_text=edited if edited != default_text else None, structured_output=structured,
                   logprobs=logprobs, extra_body=extra_body, constrain_reply=constrain,
                   **provider_spec_fields(provider_record, setting_values, seed))
    settings = RunSettings.for_provider(provider, concurrency=int(concurrency), max_cost_usd=cap or None)
    specs = [base_spec.model_copy(update={"model": m}) for m in models]
    chosen_id = run_id_text.strip() or None if len(models) == 1 else None
    # Counted before any plan is built: a plan over the limit is refused without filling the server's memory.
    planned = [cached(planned_call_count, spec) for spec in specs]
    over = [problem for spec, calls in zip(specs, planned, strict=True) for problem in limit_problems(
        RunRequest(planned_calls=calls, repetitions=spec.repeats, concurrency=settings.concurrency,
                   max_cost_usd=settings.max_cost_usd, paid=provider_record.paid), limits, access.served)]
    if over:
        st.error("Over this dashboard's limits: " + escape_markdown("; ".join(dict.fromkeys(over))) + ". Change the "
                 "settings above (an operator sets the limits in the [judgebias] configuration).")
        st.stop()
    previews = [cached(preview_run, spec, settings, chosen_id) for spec in specs]
if provider_record.caution is not None:
    headline, details = provider_record.caution(base_spec)
    st.warning(f"**{escape_markdown(headline)}**: {escape_markdown(details)}.")

st.subheader("Plan")
estimate = plan_totals([p.estimate for p in previews])
free_judge = not provider_record.paid
cols = st.columns(2 if free_judge else 6 if capabilities.batch else 5)
cols[0].metric("Judge calls", f"{estimate.calls:,}", help=f"{counted(len(previews), 'run')} over "
               f"{counted(previews[0].items, 'item')}.")
if free_judge:
    cols[1].metric("Cost", "$0.00", help="No request leaves this machine.")
    st.caption("A replayed or simulated judge sends no request: no tokens are spent, nothing is billed and the run "
               "takes seconds, so token and time estimates are not shown.")
else:
    cols[1].metric("Input tokens (estimate)", f"{estimate.input_tokens:,}", help="Characters / 4.")
    cols[2].metric("Output tokens (estimate)", f"{estimate.output_tokens:,}", help="Half the max tokens per call.")
    cols[3].metric("Cost (estimate)", "unknown" if estimate.cost_usd is None else f"${estimate.cost_usd:,.2f}",
                   help="From the editable price table (JUDGEBIAS_PRICES); the real cost uses the provider's usage.")
    if capabilities.batch:
        in_batch = batch_cost(estimate)
        cols[5].metric("Cost in batch mode (estimate)", "unknown" if in_batch is None else f"${in_batch:,.2f}",
                       help="The provider's batch API bills half the live price; results come within 24 hours.")
    cols[4].metric("Time (estimate)", "up to 24 h" if batch else f"{estimate.seconds / 60:,.1f} min",
                   help="The provider's batch window." if batch else f"At {int(concurrency)} calls in flight per "
                   "judge and an assumed latency per call; judges run side by side.")
st.caption("Figures before a run are estimates; after it, the provider's reported usage.")
show_swap_study_plan(base_spec, settings)
show_table(
    [{"run id": p.run_id, "calls": p.calls, "template": p.template_name,
      **({} if free_judge else {"cost (estimate, USD)": p.estimate.cost_usd}),
      "already in the store": p.existing_status or "", "judge": p.judge_description}
     for p in previews],
)
unpriced = [s.model for s, p in zip(specs, previews, strict=True) if not p.price_known]
if unpriced:
    st.info(f"The price table does not know {escape_markdown(', '.join(unpriced))}: cost cannot be estimated or capped.")
if any(p.existing_status for p in previews):
    st.info("A run that exists already is resumed on launch: only its missing calls are sent.")
with st.expander("First prompt of the plan"):
    st.text(previews[0].sample_prompt)

missing_key = missing_key_message(provider, base_url)
if missing_key:
    st.error(missing_key)
st.button("Launch run" if len(specs) == 1 else f"Launch {len(specs)} runs", type="primary", key="launch_runs",
          on_click=launch_runs, args=(provider, specs, settings, [p.run_id for p in previews], batch, typed_key),
          disabled=missing_key is not None)
if "launch_error" in st.session_state:
    show_error(st.session_state.pop("launch_error"))

active = st.session_state.get("active_runs", [])
if active:
    st.subheader("Progress")
    st.caption("Runs go on in their own processes if you close this tab; follow them on the Runs page.")
    scopes = st.session_state.get(RUN_SCOPES_KEY, {})
    for run_id in active:
        show_progress(run_id, scopes.get(run_id))
