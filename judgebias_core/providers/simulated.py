"""The simulated judge: a stated random behaviour, free and instant, never a real model."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import ValidationError

from judgebias_core.errors import InvalidArgument, invalid_argument
from judgebias_core.judges.simulated import SimulatedJudge
from judgebias_core.protocols.spec import RunSettings, RunSpec, SimulatedParams
from judgebias_core.providers import Capabilities, Provider, SettingField
from judgebias_core.run_types import JudgeClient

if TYPE_CHECKING:
    from judgebias_core.store.handle import Store

DEFAULT_WEIGHTS = "0.4,0.2,0.15,0.15,0.1"



def _client(store: Store, spec: RunSpec, settings: RunSettings, key: str | None) -> JudgeClient:
    return SimulatedJudge(spec)


def _describe(spec: RunSpec) -> str:
    return (spec.simulated or SimulatedParams()).describe()


def _caution(spec: RunSpec) -> tuple[str, str]:
    return "Simulated judge", f"not a language model; {_describe(spec).removeprefix('simulated judge: ')}"


def parse_position_weights(text: str) -> tuple[float, ...]:
    """The simulated judge's position weights from "0.4,0.2,0.15"; a ValueError says what is wrong with them."""
    parts = [part.strip() for part in text.split(",")]
    if not any(parts):
        raise ValueError(f"give at least one weight, such as {DEFAULT_WEIGHTS}")
    weights = []
    for position, part in enumerate(parts, start=1):
        try:
            weight = float(part)
        except ValueError:
            raise ValueError(f"weight {position} ({part!r}) is not a number; write numbers separated by commas, "
                             f"such as {DEFAULT_WEIGHTS}") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"weight {position} ({part}) must be zero or more")
        weights.append(weight)
    if not sum(weights):
        raise ValueError("at least one weight must be above zero")
    return tuple(weights)


def _spec_fields(values: Mapping[str, float | str], seed: int | None) -> dict[str, object]:
    try:
        weights = parse_position_weights(str(values["position_weights"]))
    except ValueError as problem:
        raise InvalidArgument(f"Position weights: {problem}") from None
    try:
        params = SimulatedParams(position_prob=float(values["position_prob"]), position_weights=weights,
                                 noise=float(values["noise"]), verbosity=float(values["verbosity"]), seed=seed or 0)
    except ValidationError as error:
        raise invalid_argument(error, "simulated judge") from None
    return {"simulated": params}


SETTINGS = (
    SettingField("position_prob", "--sim-q", "q: answers by position", "probability of answering by position",
                 0.3, minimum=0.0, maximum=1.0, step=0.05),
    SettingField("position_weights", "--sim-position-weights", "Position weights",
                 f"weights per position, e.g. {DEFAULT_WEIGHTS}", DEFAULT_WEIGHTS),
    SettingField("noise", "--sim-noise", "Content noise (sd)", "sd of the content noise", 0.6, minimum=0.0,
                 maximum=2.0, step=0.1),
    SettingField("verbosity", "--sim-verbosity", "Verbosity bonus per 1k chars", "bonus per 1,000 characters",
                 0.0, minimum=0.0, maximum=1.0, step=0.05),
)

PROVIDER = Provider(
    name="simulated", label="simulated (demo judge, not a model)", default_models=("demo-judge",),
    key_variable=None, capabilities=Capabilities(logprobs=True), client=_client, paid=False, assumed_latency_s=0.002,
    judge_prefix="simulated:", describe=_describe, settings=SETTINGS, settings_title="Simulated judge behaviour",
    spec_fields=_spec_fields, caution=_caution,
)
