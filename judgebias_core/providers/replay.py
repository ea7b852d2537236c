"""Replay: the recorded real replies of the bundled data, matched by keys; no model is called."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgebias_core.judges.replay import ReplayJudge, replay_description
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import Capabilities, Provider
from judgebias_core.run_types import JudgeClient

if TYPE_CHECKING:
    from judgebias_core.store.handle import Store


def _client(store: Store, spec: RunSpec, settings: RunSettings, key: str | None) -> JudgeClient:
    """The replay judge, given the recorded replies it answers from (one read of the store)."""
    from judgebias_core.store import run_queries  # noqa: PLC0415 - the store's queries only when a replay runs

    with store.reader() as reader:
        recorded = run_queries.recorded_replies(reader, spec.dataset_id, spec.replay_study, spec.model)
    return ReplayJudge(recorded, spec)


def _describe(spec: RunSpec) -> str:
    return replay_description(spec.model, spec.replay_study)


# No default model: the page offers the judges recorded on the chosen dataset.
PROVIDER = Provider(
    name="replay", label="replay recorded real replies", default_models=(), key_variable=None,
    capabilities=Capabilities(), client=_client, paid=False, assumed_latency_s=0.002, judge_prefix="replay:",
    describe=_describe,
)
