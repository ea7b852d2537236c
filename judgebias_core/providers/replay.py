"""Replay: the recorded real replies of the bundled data, matched by keys; no model is called."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from judgebias_core.judges.replay import ReplayJudge, replay_description
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import Capabilities, Provider, SettingField
from judgebias_core.run_types import JudgeClient
from judgebias_core.store import run_queries

if TYPE_CHECKING:
    from judgebias_core.store.handle import Store, StoreReader


def _client(store: Store, spec: RunSpec, settings: RunSettings, key: str | None) -> JudgeClient:
    """The replay judge, given the recorded replies it answers from (one read of the store)."""
    with store.reader() as reader:
        recorded = run_queries.recorded_replies(reader, spec.dataset_id, spec.replay_study, spec.model)
    return ReplayJudge(recorded, spec)


def _describe(spec: RunSpec) -> str:
    return replay_description(spec.model, spec.replay_study)


def recorded_judges(reader: StoreReader, dataset_id: str, study: str = "full") -> list[str]:
    """The judges whose recorded replies on the dataset and study can be replayed: the models a run may pick."""
    return run_queries.replay_judges(reader, dataset_id, study)


def _spec_fields(values: Mapping[str, float | str], seed: int | None) -> dict[str, object]:
    return {"replay_study": str(values["study"])}


# No default model: the page offers the judges recorded on the chosen dataset and study.
PROVIDER = Provider(
    name="replay", label="replay recorded real replies", default_models=(), key_variable=None,
    capabilities=Capabilities(), client=_client, paid=False, assumed_latency_s=0.002, judge_prefix="replay:",
    describe=_describe,
    settings=(SettingField("study", "--replay-study", "Recorded study", "the recorded study whose replies are "
                           "replayed (default full)", "full", choices=("full", "repetition")),),
    settings_title="Recorded replies", spec_fields=_spec_fields, model_choices=recorded_judges,
    models_label="Recorded judge(s)",
)
