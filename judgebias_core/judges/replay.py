"""Replay: answer from the recorded real replies of the bundled data, matched by keys, never by prompt text
(several MTBench candidates gave identical answers). A call with no recording gets no reply ("no recording")."""

from __future__ import annotations

from typing import Any

import pandas as pd

from judgebias_core.errors import InvalidArgument, JudgeCallError
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.run_types import JudgeClient, JudgeReply, PlannedCall

NO_RECORDING = "no recording"


def replay_description(model: str, study: str) -> str:
    return f"replay of {model}'s recorded replies (study {study}); no model is called"


class ReplayJudge(JudgeClient):
    """Keys: dataset, study (``spec.replay_study``), judge (``spec.model``), item, slot order, repetition."""

    provider = "replay"
    paid = False

    def __init__(self, recorded: pd.DataFrame, spec: RunSpec) -> None:
        """``recorded``: the judge's recorded replies in the study (``run_queries.recorded_replies``), read by the
        provider's client factory."""
        self.model = spec.model
        self.name = spec.judge_name()
        self.study = spec.replay_study
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
