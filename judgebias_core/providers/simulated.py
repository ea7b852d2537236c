"""The simulated judge: a stated random behaviour, free and instant, never a real model."""

from __future__ import annotations

import os

from judgebias_core.judges.simulated import SimulatedJudge
from judgebias_core.protocols.spec import RunSettings, RunSpec, SimulatedParams
from judgebias_core.providers import Capabilities, Provider
from judgebias_core.run_types import JudgeClient


def _client(path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings, key: str | None) -> JudgeClient:
    return SimulatedJudge(spec)


def _describe(spec: RunSpec) -> str:
    return (spec.simulated or SimulatedParams()).describe()


PROVIDER = Provider(
    name="simulated", label="simulated (demo judge, not a model)", default_models=("demo-judge",),
    key_variable=None, capabilities=Capabilities(logprobs=True), client=_client, paid=False, assumed_latency_s=0.002,
    judge_prefix="simulated:", describe=_describe,
)
