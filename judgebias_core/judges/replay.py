"""Replay: answer from the recorded real replies of the bundled data, matched by keys, never by prompt text
(several MTBench candidates gave identical answers). A call with no recording gets no reply ("no recording")."""

from __future__ import annotations

import os
from typing import Any

from judgebias_core.errors import InvalidArgument, JudgeCallError
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.run_types import JudgeClient, JudgeReply, PlannedCall
from judgebias_core.store import run_queries

NO_RECORDING = "no recording"


def replay_description(model: str, study: str) -> str:
    return f"replay of {model}'s recorded replies (study {study}); no model is called"


class ReplayJudge(JudgeClient):
    """Keys: dataset, study (``spec.replay_study``), judge (``spec.model``), item, slot order, repetition."""

    provider = "replay"
    paid = False

    def __init__(self, path: str | os.PathLike[str], spec: RunSpec) -> None:
        self.model = spec.model
        self.name = spec.judge_name()
        self.study = spec.replay_study
        recorded = run_queries.recorded_replies(path, spec.dataset_id, spec.replay_study, spec.model)
        if recorded.empty:
            raise InvalidArgument(f"the store holds no recorded replies of {spec.model!r} on {spec.dataset_id} "
                                  f"(study {spec.replay_study!r}) to replay")
        self._replies = {
            (r.item_id, r.first_candidate, r.second_candidate, int(r.repetition)): r.raw_output
            for r in recorded.itertuples()
        }
        self.parser = str(recorded["parser"].iloc[0])

    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        first, second = (call.slots + ("", ""))[:2]
        return {"key": (call.item_id, first, second, call.repetition)}

    async def send(self, params: dict[str, Any]) -> JudgeReply:
        text = self._replies.get(params["key"])
        if text is None:
            raise JudgeCallError(NO_RECORDING, retryable=False)
        return JudgeReply(text=text)

    def describe(self) -> str:
        return replay_description(self.model, self.study)
