"""The provider registry: everything the CLI, the New run page, the preview, the price table and the engine know
about a judge provider, declared once per provider in ``providers/<name>.py``.

A provider module defines ``PROVIDER = Provider(...)`` and is listed in ``BUILT_IN``; the built-ins are loaded on
the first lookup (their modules import the judge clients, which import this registry). A provider registered
later (``register``) is offered and accepted everywhere in the same way.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from judgebias_core.errors import InvalidArgument

if TYPE_CHECKING:
    from judgebias_core.engine.batch_types import BatchBackend
    from judgebias_core.run_types import JudgeClient

# Registration order is the order the CLI's choices and the New run page's picker show.
BUILT_IN: tuple[str, ...] = ("simulated", "replay", "openai", "anthropic", "vllm", "ollama", "llamacpp")

# A factory is given the run's ``RunSpec`` and ``RunSettings`` (protocols/spec.py), typed ``Any`` here because the
# spec checks its provider against this registry: naming them would close the circle spec -> providers -> spec
# (tests/test_import_graph.py). Each provider module types its own factories with them.
ClientFactory = Callable[["str | os.PathLike[str]", Any, Any, "str | None"], "JudgeClient"]
BackendFactory = Callable[[Any, Any, "str | None"], "BatchBackend"]


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
    schema in ``response_format``, read as structured output: Ollama); None: not offered."""

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

    def __post_init__(self) -> None:
        if self.capabilities.batch != (self.batch_backend is not None):
            raise ValueError(f"provider {self.name!r}: capabilities.batch and batch_backend must agree")
        if self.paid and self.key_variable is None:
            raise ValueError(f"provider {self.name!r}: a paid provider names its key variable")
        if self.reply_constraint not in (None, "grammar", "choice", "json"):
            raise ValueError(f"provider {self.name!r}: unknown reply constraint {self.reply_constraint!r}")


_registry: dict[str, Provider] = {}
_built_ins_loaded = False


def _loaded() -> dict[str, Provider]:
    global _built_ins_loaded  # the one lazily filled registry
    if not _built_ins_loaded:
        _built_ins_loaded = True
        built_in = [importlib.import_module(f"judgebias_core.providers.{name}").PROVIDER for name in BUILT_IN]
        later = dict(_registry)
        _registry.clear()
        _registry.update({p.name: p for p in built_in} | later)
    return _registry


def register(provider: Provider) -> Provider:
    """Add a provider; a name that is taken is refused (``unregister`` it first)."""
    registry = _loaded()
    if provider.name in registry:
        raise InvalidArgument(f"provider {provider.name!r} is registered already")
    registry[provider.name] = provider
    return provider


def unregister(name: str) -> None:
    _loaded().pop(name, None)


def get_provider(name: str) -> Provider:
    """The registered provider of that name (``InvalidArgument`` naming the known ones otherwise)."""
    registry = _loaded()
    if name not in registry:
        raise InvalidArgument(f"unknown provider {name!r}; known: {', '.join(registry)}")
    return registry[name]


def all_providers() -> tuple[Provider, ...]:
    return tuple(_loaded().values())


def provider_names() -> tuple[str, ...]:
    return tuple(_loaded())


def batch_provider_names() -> tuple[str, ...]:
    return tuple(p.name for p in all_providers() if p.capabilities.batch)


def key_variables() -> dict[str, str]:
    """Provider name -> the environment variable (or Streamlit secret) holding its API key."""
    return {p.name: p.key_variable for p in all_providers() if p.key_variable}
