"""CLI: ``run`` launches (or resumes) a judge run; progress on stderr, the outcome on stdout."""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict

from pydantic import ValidationError

from judgebias_core.cli.common import add_json_flag, emit, open_store, progress, read_input_file
from judgebias_core.engine import RunProgress, start_run
from judgebias_core.engine.batch import BatchSettings, batch_provider, describe_batches, start_batch_run
from judgebias_core.engine.folder_identity import adopt_run_folder
from judgebias_core.engine.launch import RunOutcome
from judgebias_core.errors import InvalidArgument, invalid_argument
from judgebias_core.protocols.spec import PROTOCOLS, RunSettings, RunSpec
from judgebias_core.providers import (
    SettingField,
    all_providers,
    batch_provider_names,
    get_provider,
    key_variables,
    provider_names,
    provider_spec_fields,
    setting_values,
)


def spec_from_args(args: argparse.Namespace) -> RunSpec:
    try:
        return _spec_from_args(args)
    except ValidationError as error:
        raise invalid_argument(error, "run settings") from None


def _spec_from_args(args: argparse.Namespace) -> RunSpec:
    provider = get_provider(args.provider)
    given = {setting.name: getattr(args, _dest(setting)) for setting in provider.settings}
    own_fields = provider_spec_fields(provider, setting_values(provider, given), args.seed)
    template = None
    if args.template:
        try:
            template = read_input_file(args.template, "--template").decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidArgument(f"{args.template} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    return RunSpec(
        dataset_id=args.dataset, protocol=args.protocol, provider=args.provider, model=args.model,
        base_url=args.base_url, temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
        repeats=args.repeats, orderings=args.orderings, options=args.options, pairs=args.pairs,
        listwise_size=args.listwise_size, allow_none=args.allow_none, rubric_id=args.rubric,
        limit_items=args.limit_items, template_text=template, structured_output=args.structured_output,
        logprobs=args.logprobs, extra_body=args.extra_body, constrain_reply=args.constrain_reply,
        limit_candidates=args.limit_candidates, **own_fields,
    )


def _dest(setting: SettingField) -> str:
    """The attribute argparse stores a provider setting's option under (``--sim-q`` -> ``sim_q``)."""
    return setting.option.removeprefix("--").replace("-", "_")


def _add_provider_settings(parser: argparse.ArgumentParser) -> None:
    """Each provider's own settings (``Provider.settings``) as options, one group per provider; left out, a
    setting takes its declared default."""
    for provider in all_providers():
        if not provider.settings:
            continue
        group = parser.add_argument_group(f"--provider {provider.name}: {provider.settings_title}")
        for setting in provider.settings:
            kind = str if setting.choices or isinstance(setting.default, str) else float
            group.add_argument(setting.option, dest=_dest(setting), type=kind, choices=setting.choices or None,
                               help=f"{setting.help} (default {setting.default})")


class _StderrProgress:
    """Prints a progress line at most every ``every_s`` seconds, and the last one."""

    def __init__(self, every_s: float = 1.0) -> None:
        self.every_s = every_s
        self.last = 0.0

    def __call__(self, p: RunProgress) -> None:
        now = time.monotonic()
        if p.status == "running" and now - self.last < self.every_s:
            return
        self.last = now
        left = f", about {p.seconds_left:.0f} s left" if p.seconds_left is not None else ""
        progress(f"{p.run_id}: {p.done}/{p.planned} calls ({p.completed} with a reply, {p.failed} failed, "
                 f"{p.parse_failures} unparseable, {p.cached} from cache), "
                 f"{cost_text(p.cost_usd, p.unpriced_calls)}{left} [{p.status}]")


def _run(args: argparse.Namespace) -> int:
    spec = spec_from_args(args)
    try:
        settings = RunSettings.for_provider(spec.provider, concurrency=args.concurrency, max_cost_usd=args.max_cost,
                                            timeout_s=args.timeout, sdk_max_retries=args.sdk_retries,
                                            max_attempts=args.attempts, price_per_mtok=_price(args.price_per_mtok))
    except ValidationError as error:
        raise invalid_argument(error, "run settings") from None
    if args.mode == "batch":
        try:
            batch_provider(spec)
        except InvalidArgument:
            raise InvalidArgument(f"--mode batch needs --provider {' or '.join(batch_provider_names())} (their "
                                  f"batch APIs); {spec.provider!r} runs live only: drop --mode batch") from None
        try:
            batch = BatchSettings(poll_interval_s=args.poll_interval, retry_rounds=args.batch_retries,
                                  retry_live=args.retry_live, max_requests_per_batch=args.max_batch_requests)
        except ValidationError as error:
            raise invalid_argument(error, "batch settings") from None
        outcome = start_batch_run(open_store(args), spec, settings, batch, run_id=args.run_id,
                                  on_progress=_StderrProgress(), on_batches=lambda s: progress(describe_batches(s)),
                                  resubmit=args.resubmit)
    else:
        outcome = start_run(open_store(args), spec, settings, run_id=args.run_id, on_progress=_StderrProgress())
    emit(args, asdict(outcome) | {"summary": outcome.summary, "cost_usd": _known_cost(outcome)},
         f"run {outcome.run_id}: {outcome.summary}; {outcome.completed} of {outcome.planned} calls "
         f"with a reply ({outcome.parse_failures} unparseable), {outcome.failed} failed, "
         f"{cost_text(outcome.cost_usd, outcome.unpriced_calls)}{_estimate_note(outcome)}"
         f"{_left_note(outcome.left_without_reply)}")
    return 0 if outcome.status.ended_cleanly else 1


def _price(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    try:
        given, taken = (float(part) for part in text.split(","))
    except ValueError:
        raise InvalidArgument(f"--price-per-mtok takes INPUT,OUTPUT in USD per million tokens (e.g. 0.15,0.60 or "
                              f"0,0 for a free local server), not {text!r}") from None
    if given < 0 or taken < 0:
        raise InvalidArgument("--price-per-mtok: prices cannot be negative")
    return given, taken


def _known_cost(outcome: RunOutcome) -> float | None:
    return None if outcome.unpriced_calls else outcome.cost_usd


def cost_text(cost_usd: float, unpriced_calls: int) -> str:
    """"$0.0123", or "cost unknown" with the unpriced replies named (never $0 for a model without a price)."""
    if not unpriced_calls:
        return f"${cost_usd:.4f}"
    known = f"; ${cost_usd:.4f} for the priced ones" if cost_usd else ""
    return (f"cost unknown ({unpriced_calls} replies of a model without a price{known}: give one with "
            "--price-per-mtok)")


def _estimate_note(outcome: RunOutcome) -> str:
    if not outcome.unanswered_sends:
        return ""
    return (f" (of which ${outcome.cost_estimated_usd:.4f} estimated for {outcome.unanswered_sends} requests an "
            "interruption cut off after sending)")


def _adopt_run_folder(args: argparse.Namespace) -> int:
    store = open_store(args)
    journals = adopt_run_folder(store)
    emit(args, {"run_folder": str(store.run_folder), "journals": journals},
         f"the run folder {store.run_folder} now belongs to the store {store.path} ({journals} journals): the same `run` "
         "command (or Resume) stores each run's journaled replies here")
    return 0


def _left_note(left: tuple[tuple[str, int], ...]) -> str:
    """What a batch session left without a reply, and why (the same run id sends those calls again)."""
    if not left:
        return ""
    reasons = ", ".join(f"{count} {why}" for why, count in left)
    return f"; {sum(c for _, c in left)} left without a reply ({reasons}): run the same command again to retry them"


def _constrained() -> str:
    return ", ".join(p.name for p in all_providers() if p.reply_constraint)


def _having(capability: str) -> str:
    """The providers with a capability, for help texts ("openai, anthropic")."""
    return ", ".join(p.name for p in all_providers() if getattr(p.capabilities, capability))


def adopt_run_folder_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("A run folder (runs/<store name>/ beside the store: journals, progress) records the store it "
        "was written for, and a run on another store refuses it. This makes the folder this store's on purpose "
        "(e.g. the store was rebuilt from a backup): the next session of each run replays its journal here.")
    add_json_flag(parser)
    parser.set_defaults(handler=_adopt_run_folder)


def run_arguments(parser: argparse.ArgumentParser) -> None:
    batch_names = ", ".join(batch_provider_names())
    parser.description = ("Plan a run, send its calls to a judge, store every judgment as it arrives. Running the same "
        "command (or --run-id) again resumes: the journal is replayed and only missing calls are sent. "
        f"--mode batch ({batch_names}) sends the calls through the provider's batch API at about half the "
        f"price and polls until it ends. Keys come from {' / '.join(key_variables().values())} only.")
    parser.add_argument("--dataset", required=True, help="dataset id (see `datasets`)")
    parser.add_argument("--protocol", required=True, choices=PROTOCOLS, help="which calls to plan")
    parser.add_argument("--provider", required=True, choices=provider_names(), help="who judges")
    parser.add_argument("--model", required=True, help="model name (replay: the recorded judge, e.g. gpt-4-0613)")
    parser.add_argument("--base-url", help="OpenAI-compatible server (vLLM, Ollama, LM Studio) or API endpoint")
    local = ", ".join(p.name for p in all_providers() if p.local)
    parser.add_argument("--concurrency", type=int,
                        help=f"calls in flight (default 8; local servers {local}: 1)")
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    parser.add_argument("--max-tokens", type=int, default=1024, help="reply token limit (default 1024)")
    parser.add_argument("--seed", type=int, help="sampling seed where the provider takes one (and the simulated judge)")
    parser.add_argument("--repeats", type=int, help="rubric-repeat: repeats (default 2k); repetition: R (default 3)")
    parser.add_argument("--orderings", default="balanced",
                        help="balanced | reverse | latin | all, or a list such as 12345,54321 (default balanced)")
    parser.add_argument("--options", type=int, choices=(2, 3), help="pairwise: 3 allows a tie (default 3; devbench 2)")
    parser.add_argument("--pairs", choices=("baseline", "all"), default="baseline",
                        help="pairs against the dataset's baseline candidate, or all pairs")
    parser.add_argument("--listwise-size", type=int, default=3, help="list-wise: candidates per list (default 3)")
    parser.add_argument("--allow-none", action="store_true", help="list-wise: allow 'no clear winner'")
    parser.add_argument("--rubric", help="rubric id (default: the item's own; SummEval: summeval-coherence)")
    parser.add_argument("--max-cost", type=float, help="spending cap in USD: the run stops cleanly before it")
    parser.add_argument("--price-per-mtok", metavar="IN,OUT",
                        help="USD per million input and output tokens for this run, over the price table (0,0 for a "
                        "free local server); without a price a model's cost is stored and shown as unknown")
    parser.add_argument("--limit-items", type=int, help="only the first N items in stored order")
    parser.add_argument("--limit-candidates", type=int,
                        help="pairwise protocols: only the first N candidates by name besides the baseline (with "
                        "--limit-items 2 and 1 candidate, a swap run is 4 calls)")
    parser.add_argument("--run-id", help="run id (default: derived from the settings, so a rerun resumes)")
    parser.add_argument("--template", help="a file with the prompt template to use instead of the default")
    parser.add_argument("--structured-output", action="store_true",
                        help=f"{_having('structured_output')}: ask for a JSON reply following a schema (score "
                        "or verdict), parsed as JSON")
    parser.add_argument("--logprobs", action="store_true",
                        help=f"{_having('logprobs')} rubric runs: store the G-Eval expected score (from the "
                        "score token's log-probabilities)")
    parser.add_argument("--constrain-reply", action="store_true",
                        help=f"{_constrained()}: hold each reply to the template's answer format ([RESULT] n, "
                        "[[A]]) with the server's own request field (llama.cpp grammar, vLLM guided_choice, Ollama "
                        "JSON schema), so that a small local model's replies parse")
    parser.add_argument("--extra-body", metavar="JSON",
                        help="OpenAI-compatible servers: a JSON object merged into every request (e.g. "
                        "'{\"grammar\": \"root ::= ...\"}' or '{\"top_k\": 1}'); stored with the run, so a "
                        "resume sends the same")
    parser.add_argument("--timeout", type=float,
                        help=f"per-request timeout in seconds (default 60; local servers {local}: 600)")
    parser.add_argument("--sdk-retries", type=int,
                        help=f"the SDK's own retries per attempt (default 2; local servers {local}: 0, and a "
                        "timed-out request is not sent again while the server may still compute it)")
    parser.add_argument("--attempts", type=int, default=3, help="engine attempts, with backoff between (default 3)")
    batch = parser.add_argument_group(f"batch mode ({batch_names}: their batch APIs, about half the live price)")
    batch.add_argument("--mode", choices=("live", "batch"), default="live",
                       help="live calls, or one or more provider batches polled until they end (default live)")
    batch.add_argument("--poll-interval", type=float, default=30.0, help="seconds between batch polls (default 30)")
    batch.add_argument("--batch-retries", type=int, default=3,
                       help="further batch rounds for requests a batch returned errored or expired (default 3)")
    batch.add_argument("--retry-live", action="store_true",
                       help="after those rounds, send what still has no reply as live calls")
    batch.add_argument("--resubmit", action="store_true",
                       help="on resume, when the provider holds several batches that could be the one an interrupted "
                       "session created, submit those calls again instead of stopping (may pay for them twice)")
    batch.add_argument("--max-batch-requests", type=int,
                       help="requests per batch (default: the provider's limit, 50,000 or 100,000)")
    _add_provider_settings(parser)
    add_json_flag(parser)
    parser.set_defaults(handler=_run)
