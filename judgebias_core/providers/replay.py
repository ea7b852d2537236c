"""Replay: the recorded real replies of the bundled data, matched by keys; no model is called."""

from __future__ import annotations

import os

from judgebias_core.judges.replay import ReplayJudge, replay_description
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import Capabilities, Provider
from judgebias_core.run_types import JudgeClient


def _client(path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings, key: str | None) -> JudgeClient:
    return ReplayJudge(path, spec)


def _describe(spec: RunSpec) -> str:
    return replay_description(spec.model, spec.replay_study)


# No default model: the page offers the judges recorded on the chosen dataset.
PROVIDER = Provider(
    name="replay", label="replay recorded real replies", default_models=(), key_variable=None,
    capabilities=Capabilities(), client=_client, paid=False, assumed_latency_s=0.002, judge_prefix="replay:",
    describe=_describe,
)
