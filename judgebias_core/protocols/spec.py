"""What a run is: its dataset, protocol, judge and sampling settings (stored with the run as JSON)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judgebias_core.errors import InvalidArgument, invalid_argument
from judgebias_core.providers import all_providers, get_provider, provider_names

RunProtocol = Literal["rubric-permutation", "rubric-repeat", "pairwise-swap", "listwise", "repetition"]
PROTOCOLS: tuple[str, ...] = ("rubric-permutation", "rubric-repeat", "pairwise-swap", "listwise", "repetition")
RUBRIC_PROTOCOLS = ("rubric-permutation", "rubric-repeat")
PAIR_PROTOCOLS = ("pairwise-swap", "repetition")


class SimulatedParams(BaseModel):
    """The stated behaviour of the simulated judge (stored with the run and shown in the UI)."""

    model_config = ConfigDict(frozen=True)

    position_prob: float = Field(0.3, ge=0, le=1, description="q: probability of answering by position")
    position_weights: tuple[float, ...] = Field(
        (0.4, 0.2, 0.15, 0.15, 0.1),
        description="preference weight per slot or rubric position (1, 2, ...); the last value repeats",
    )
    noise: float = Field(0.6, ge=0, description="sd of the noise added to the content score")
    verbosity: float = Field(0.0, description="content bonus per 1,000 characters of answer (pairwise, list-wise)")
    tie_margin: float = Field(0.15, ge=0, description="3-option pairs: a content gap below this is a tie")
    seed: int = 0

    def describe(self) -> str:
        weights = ", ".join(f"{w:g}" for w in self.position_weights)
        return (f"simulated judge: with probability q={self.position_prob:g} it answers by position (weights "
                f"{weights}), else by content (human label where known, else a stable hash of the text) + noise "
                f"sd {self.noise:g}; verbosity {self.verbosity:g}/1k chars; seed {self.seed}")


class RunSpec(BaseModel):
    """Everything that defines a run's plan and its judge. Two equal specs plan the same calls."""

    model_config = ConfigDict(frozen=True)

    dataset_id: str
    protocol: RunProtocol
    provider: str  # a registered provider (``judgebias_core.providers``)
    model: str
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = None
    repeats: int | None = None  # rubric-repeat: default 2k; repetition: default 3
    orderings: str = "balanced"  # balanced | reverse | latin | all | a list such as 12345,54321
    options: int | None = None  # pairwise: 2 or 3; default 2 on devbench, else 3
    pairs: Literal["baseline", "all"] = "baseline"
    listwise_size: int = 3
    allow_none: bool = False
    rubric_id: str | None = None
    limit_items: int | None = None
    candidates: tuple[str, ...] | None = None  # keep only items (pointwise) or answers (pairwise) of these
    replay_study: str = "full"
    template_text: str | None = None  # None: the protocol's default template
    use_reference: bool | None = None  # rubric prompts: include the reference answer (default: when present,
    # except SummEval, whose references are not score-5 answers)
    simulated: SimulatedParams | None = None
    structured_output: bool = False  # providers with that capability: a JSON schema for the reply, parsed as JSON
    logprobs: bool = False  # providers with that capability, rubric runs: the G-Eval expected score
    # Fields added later: left out of the fingerprint at their defaults, so earlier runs keep their ids.
    extra_body: str | None = None  # a JSON object merged into every request (OpenAI-compatible servers)
    constrain_reply: bool = False  # local servers: hold replies to the answer format (judges/constraints.py)
    limit_candidates: int | None = Field(None, ge=1)  # pairwise: only the first N candidates besides the baseline

    @field_validator("provider")
    @classmethod
    def _registered(cls, name: str) -> str:
        if name not in provider_names():
            raise ValueError(f"unknown provider {name!r}; known: {', '.join(provider_names())}")
        return name

    @field_validator("base_url")
    @classmethod
    def _an_endpoint(cls, url: str | None) -> str | None:
        if url is not None:
            from judgebias_core.providers.endpoints import normalise_base_url  # noqa: PLC0415 - imports the registry

            try:
                normalise_base_url(url)
            except InvalidArgument as error:
                raise ValueError(str(error)) from None
        return url

    @field_validator("extra_body")
    @classmethod
    def _a_json_object(cls, text: str | None) -> str | None:
        if text is None or not text.strip():
            return None
        try:
            value = json.loads(text)
        except ValueError as error:
            raise ValueError(f"--extra-body is not JSON: {error}") from None
        if not isinstance(value, dict):
            raise ValueError("--extra-body must be a JSON object ({\"field\": value, ...})")
        reserved = sorted(set(value) & {"model", "messages", "stream"})
        if reserved:
            raise ValueError(f"--extra-body may not set {', '.join(reserved)} (the run sets them)")
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    def fingerprint(self) -> str:
        values = self.model_dump(mode="json")
        for name, default in _LATER_FIELDS.items():
            if values.get(name) == default:
                values.pop(name)
        return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:8]

    def reply_constraint(self) -> str | None:
        """The constraint the run sends with each request (``judges/constraints.py``), None when it asks for none;
        ``InvalidArgument`` when its provider offers none."""
        if not self.constrain_reply:
            return None
        style = get_provider(self.provider).reply_constraint
        if style is None:
            offered = ", ".join(p.name for p in all_providers() if p.reply_constraint) or "(none registered)"
            raise InvalidArgument(f"--constrain-reply is offered for the providers {offered}; for another server "
                                  "pass its own field with --extra-body")
        return style

    def json_reply(self) -> bool:
        """Are the run's replies JSON (structured output, or a JSON-schema constraint as Ollama takes it)?"""
        return self.structured_output or self.reply_constraint() == "json"

    def default_run_id(self) -> str:
        """A deterministic id: the same command names the same run, so running it again resumes it."""
        slug = re.sub(r"[^A-Za-z0-9.]+", "-", self.model).strip("-")
        return f"{self.dataset_id}-{self.protocol}-{self.provider}-{slug}-{self.fingerprint()}"

    def judge_name(self) -> str:
        """The judge's display name in the store: the model, labelled when simulated or replayed, and followed by
        ``@endpoint`` when it is served from a base URL that is neither official nor the provider's preset (so a
        server someone typed in can never pose as the provider's model)."""
        from judgebias_core.providers.endpoints import endpoint_label, names_endpoint  # noqa: PLC0415

        name = get_provider(self.provider).judge_prefix + self.model
        if self.base_url is not None and names_endpoint(self.provider, self.base_url):
            name += f"@{endpoint_label(self.base_url)}"
        return name


def run_spec(**values: object) -> RunSpec:
    """A ``RunSpec``; settings pydantic refuses raise ``InvalidArgument`` (what the CLI and pages show)."""
    try:
        return RunSpec.model_validate(values)
    except ValidationError as error:
        raise invalid_argument(error, "run settings") from None


_LATER_FIELDS: dict[str, object] = {"extra_body": None, "constrain_reply": False, "limit_candidates": None}


class RunSettings(BaseModel):
    """How a run executes; none of it changes which calls are planned."""

    model_config = ConfigDict(frozen=True)

    concurrency: int = Field(8, ge=1, le=512)
    max_cost_usd: float | None = None
    timeout_s: float = 60.0
    sdk_max_retries: int = 2  # the SDK's own retries (429 with Retry-After, 5xx, timeouts)
    max_attempts: int = 3  # rounds of the SDK's retries; the engine backs off between rounds (with jitter)
    backoff_base_s: float = 1.0
    flush_every: int = 200  # replies that trigger a store write before the interval is up
    flush_interval_s: float = 1.0  # at most this long between a reply and its store write
    # how long the store writer retries a batch the store refuses (busy, disk full) before the run stops interrupted
    store_retry_s: float = Field(120.0, gt=0)
    # send a timed-out request again: False for local servers, which go on computing a request whose client left
    retry_timeouts: bool = True
    # USD per million input and output tokens for this run (``--price-per-mtok``), over the price table; 0,0 says a
    # local server is free
    price_per_mtok: tuple[float, float] | None = None

    @classmethod
    def for_provider(cls, provider: str, **given: object) -> RunSettings:
        """The defaults that fit a provider, overridden by ``given`` (None values ignored). A local server (often one
        request at a time on a CPU) gets one call in flight, a 600 s timeout and no retry of a timed-out request:
        with 8 in flight and 60 s, requests time out while queued and are sent again while the server still
        computes them."""
        local = get_provider(provider).local
        defaults: dict[str, object] = {"concurrency": 1, "timeout_s": LOCAL_TIMEOUT_S, "sdk_max_retries": 0,
                                       "retry_timeouts": False} if local else {}
        return cls.model_validate(defaults | {k: v for k, v in given.items() if v is not None})


LOCAL_TIMEOUT_S = 600.0
