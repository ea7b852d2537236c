"""The provider registry: everything the CLI, the New run page, the preview, the price table and the engine know
about a judge provider, declared once per provider in ``providers/<name>.py``.

A provider module defines ``PROVIDER = Provider(...)`` and is listed in ``BUILT_IN``; the built-ins are loaded on
the first lookup (their modules import the judge clients, which import this registry). A provider registered
later (``register``) is offered and accepted everywhere in the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from judgebias_core.registry import Registry

if TYPE_CHECKING:
    from judgebias_core.engine.batch_types import BatchBackend
    from judgebias_core.run_types import JudgeClient
    from judgebias_core.store.handle import Store

# Registration order is the order the CLI's choices and the New run page's picker show.
BUILT_IN: tuple[str, ...] = ("simulated", "replay", "openai", "anthropic", "vllm", "ollama", "llamacpp")

# A client factory is given the opened ``Store`` (where a replay reads its recorded replies). Factories are given
# the run's ``RunSpec`` and ``RunSettings`` (protocols/spec.py), typed ``Any`` here because the spec checks its
# provider against this registry: naming them would close the circle spec -> providers -> spec
# (tests/test_import_graph.py). Each provider module types its own factories with them.
ClientFactory = Callable[["Store", Any, Any, "str | None"], "JudgeClient"]
BackendFactory = Callable[[Any, Any, "str | None"], "BatchBackend"]
# The RunSpec fields a provider's own settings give: (the settings' values by name, the run's seed) -> fields.
SpecFields = Callable[[Mapping[str, "float | str"], "int | None"], Mapping[str, object]]
# The models a provider offers as a pick on a dataset: (the store path, dataset id, **its settings' values).
ModelChoices = Callable[..., Sequence[str]]


@dataclass(frozen=True)
class SettingField:
    """A setting one provider needs beyond the common ones, described as data so that the New run page draws a
    widget and the CLI an option for it without naming the provider (judgebias_core never imports streamlit).
    ``choices``: a pick among these; else a number (a float ``default``; a slider from ``minimum`` to ``maximum``
    by ``step``) or a text. ``option``: the CLI's option (``--sim-q``); the value reaches ``Provider.spec_fields``
    under ``name``."""

    name: str
    option: str
    label: str
    help: str
    default: float | str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None

    def __post_init__(self) -> None:
        if not self.option.startswith("--"):
            raise ValueError(f"setting {self.name!r}: the CLI option starts with --, not {self.option!r}")
        if self.choices and self.default not in self.choices:
            raise ValueError(f"setting {self.name!r}: the default {self.default!r} is not among the choices")


class NamesAnEndpoint(Protocol):
    """What naming a judge's endpoint reads of a ``RunSpec``."""

    @property
    def provider(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def base_url(self) -> str | None: ...


@dataclass(frozen=True)
class Capabilities:
    """What a provider's runs may use; the page and the CLI offer only these."""

    live: bool = True  # calls sent one by one (``start_run``)
    batch: bool = False  # the provider's batch API (``start_batch_run``)
    structured_output: bool = False  # a JSON schema for the reply (``RunSpec.structured_output``)
    logprobs: bool = False  # score-token log-probabilities (``RunSpec.logprobs``, G-Eval)
    base_url: bool = False  # the page offers another endpoint (an OpenAI-compatible server)


def endpoint_description(spec: NamesAnEndpoint) -> str:
    """How the plan names a model behind an API before any client exists (no key needed)."""
    base_url = spec.base_url or get_provider(spec.provider).default_base_url
    return f"{spec.provider} {spec.model}" + (f" at {base_url}" if base_url else "")


@dataclass(frozen=True)
class Provider:
    """One judge provider. ``paid`` providers need a key, go through the price table, the spending cap and the
    response cache; ``prices`` is its part of the price table (USD per million input and output tokens).
    ``default_base_url``: where a run without ``--base-url`` sends its calls (a local server's usual address).
    ``official_base_urls``: the provider's own endpoints, the only ones (with no base URL at all) its stored key is
    sent to unless the operator lists another (``providers/endpoints.py``).
    ``local``: a server on the operator's machine, often one request at a time on a CPU: runs default to one call in
    flight, a long timeout and no retry of a timed-out request (``RunSettings.for_provider``).
    ``reply_constraint``: how ``--constrain-reply`` holds a reply to the template's answer format on this server
    (``judges/constraints.py``): ``grammar`` (llama.cpp GBNF), ``choice`` (vLLM guided choice) or ``json`` (a JSON
    schema in ``response_format``, read as structured output: Ollama); None: not offered.
    ``settings`` (under the heading ``settings_title``): what this provider needs besides the common settings; the
    page and the CLI draw them from here and ``spec_fields`` turns their values into the run's fields (raising
    ``InvalidArgument`` that names the setting on a bad value). ``model_choices``: the models are a pick among these
    (``models_label``) rather than typed (replay: the judges recorded on the dataset). ``caution``: a (headline,
    text) the page shows in a warning for a run of this provider (simulated: not a language model).
    ``missing_key_hint``: said after "set the key" when it is missing (where a key is not always needed)."""

    name: str
    label: str  # the New run page's wording
    default_models: tuple[str, ...]  # the first is the page's suggestion
    key_variable: str | None
    capabilities: Capabilities
    client: ClientFactory
    batch_backend: BackendFactory | None = None
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    paid: bool = True
    assumed_latency_s: float = 5.0  # seconds per call in the plan's time estimate
    judge_prefix: str = ""  # the judge's name in the store is prefix + model ("simulated:demo-judge")
    describe: Callable[[Any], str] = endpoint_description  # given the run's RunSpec
    default_base_url: str | None = None
    official_base_urls: tuple[str, ...] = ()
    local: bool = False
    reply_constraint: str | None = None
    settings: tuple[SettingField, ...] = ()
    settings_title: str = ""
    spec_fields: SpecFields | None = None
    model_choices: ModelChoices | None = None
    models_label: str = "Model(s)"
    caution: Callable[[Any], tuple[str, str]] | None = None  # given the run's RunSpec
    missing_key_hint: str = ""

    def __post_init__(self) -> None:
        if self.capabilities.batch != (self.batch_backend is not None):
            raise ValueError(f"provider {self.name!r}: capabilities.batch and batch_backend must agree")
        if self.paid and self.key_variable is None:
            raise ValueError(f"provider {self.name!r}: a paid provider names its key variable")
        if self.reply_constraint not in (None, "grammar", "choice", "json"):
            raise ValueError(f"provider {self.name!r}: unknown reply constraint {self.reply_constraint!r}")
        if bool(self.settings) != (self.spec_fields is not None):
            raise ValueError(f"provider {self.name!r}: settings and spec_fields go together")


def setting_values(provider: Provider, given: Mapping[str, float | str | None]) -> dict[str, float | str]:
    """The provider's settings by name: those ``given`` (not None), the declared defaults for the others."""
    values: dict[str, float | str] = {}
    for setting in provider.settings:
        value = given.get(setting.name)
        values[setting.name] = setting.default if value is None else value
    return values


def provider_spec_fields(provider: Provider, values: Mapping[str, float | str], seed: int | None) -> dict[str, object]:
    """The RunSpec fields the provider's settings give (none for a provider without settings)."""
    return dict(provider.spec_fields(values, seed)) if provider.spec_fields else {}


PROVIDERS: Registry[Provider] = Registry(
    "provider", tuple(f"judgebias_core.providers.{name}" for name in BUILT_IN), "PROVIDER")


def register(provider: Provider) -> Provider:
    """Add a provider; a name that is taken is refused (``unregister`` it first)."""
    return PROVIDERS.register(provider)


def unregister(name: str) -> None:
    PROVIDERS.unregister(name)


def get_provider(name: str) -> Provider:
    """The registered provider of that name (``InvalidArgument`` naming the known ones otherwise)."""
    return PROVIDERS.get(name)


def all_providers() -> tuple[Provider, ...]:
    return PROVIDERS.records()


def provider_names() -> tuple[str, ...]:
    return PROVIDERS.names()


def batch_provider_names() -> tuple[str, ...]:
    return tuple(p.name for p in all_providers() if p.capabilities.batch)


def key_variables() -> dict[str, str]:
    """Provider name -> the environment variable (or Streamlit secret) holding its API key."""
    return {p.name: p.key_variable for p in all_providers() if p.key_variable}
