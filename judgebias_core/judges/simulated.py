"""A simulated judge for demos and tests. Its behaviour is stated (``SimulatedParams.describe``), stored with the
run, and everything it writes is labelled simulated.

With probability q it answers by position (a preference weight per slot or rubric position); otherwise by
content: the item's human score or label where known, else a stable hash of the text, plus noise, with an
optional preference for longer answers. Each call draws from its own generator seeded by (seed, call id), so a
call's answer does not depend on the order calls run in, and repetitions differ.

With ``RunSpec.logprobs`` a rubric reply also carries simulated top log-probabilities at the score token, from the
same stated model (no extra random draw, so the scores are those of a run without them): P(s) = q * (sum of the
position weights of the positions showing s) + (1 - q) * P(round(content + noise) = s), the noise Gaussian and the
content clipped to the scale as in the sampled score. They are simulated, like everything this judge writes.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from scipy.stats import norm

from judgebias_core.prompts.render import SLOT_LETTERS
from judgebias_core.protocols.spec import RunSpec, SimulatedParams
from judgebias_core.run_types import JudgeClient, JudgeReply, PlannedCall


def text_quality(text: str) -> float:
    """A stable pseudo-quality in [0, 1) from the text's hash (the content signal when no label is known)."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) / 2**32


def _weights(params: SimulatedParams, positions: int) -> np.ndarray:
    given = list(params.position_weights) or [1.0]
    values = np.array((given + [given[-1]] * positions)[:positions], dtype=float)
    return values / values.sum() if values.sum() > 0 else np.full(positions, 1 / positions)


def _rng(params: SimulatedParams, call_id: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{params.seed}\x1f{call_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _rubric_score(call: PlannedCall, params: SimulatedParams, rng: np.random.Generator) -> tuple[int, str]:
    ordering = call.ordering or tuple(sorted(call.scores))
    if rng.random() < params.position_prob:
        position = int(rng.choice(len(ordering), p=_weights(params, len(ordering))))
        return int(ordering[position]), f"answered by position {position + 1}"
    low, high = min(ordering), max(ordering)
    base = _content_base(call, low, high)
    score = int(np.clip(np.rint(base + rng.normal(0, params.noise)), low, high))
    return score, "answered by content"


def _content_base(call: PlannedCall, low: int, high: int) -> float:
    return call.human_score if call.human_score is not None else low + (high - low) * text_quality(call.contents[0])


def rubric_score_logprobs(call: PlannedCall, params: SimulatedParams) -> dict[str, float]:
    """Simulated top log-probabilities of the score token: the stated model's probability of each score."""
    ordering = call.ordering or tuple(sorted(call.scores))
    scores = sorted(ordering)
    low, high = scores[0], scores[-1]
    base = _content_base(call, low, high)
    if params.noise > 0:
        upper = np.array([norm.cdf(s + 0.5, base, params.noise) if s < high else 1.0 for s in scores])
        lower = np.array([norm.cdf(s - 0.5, base, params.noise) if s > low else 0.0 for s in scores])
        content = upper - lower
    else:
        content = np.array([float(s == int(np.clip(np.rint(base), low, high))) for s in scores])
    weights = _weights(params, len(ordering))
    by_position = np.array([weights[ordering.index(s)] for s in scores])
    probability = params.position_prob * by_position + (1 - params.position_prob) * content
    return {str(s): float(np.log(p)) for s, p in zip(scores, probability, strict=True) if p > 0}


def _slot_choice(call: PlannedCall, params: SimulatedParams, rng: np.random.Generator) -> tuple[str, str]:
    slots = len(call.slots)
    if rng.random() < params.position_prob:
        return SLOT_LETTERS[int(rng.choice(slots, p=_weights(params, slots)))], "answered by position"
    if call.human_preference in call.slots:
        return SLOT_LETTERS[call.slots.index(call.human_preference)], "answered by the human label"
    if call.human_preference == "tie" and call.options == 3:
        return "C", "answered by the human label"
    quality = np.array([text_quality(t) + params.verbosity * len(t) / 1000 for t in call.contents])
    quality = quality + rng.normal(0, params.noise * 0.25, size=slots)
    best = int(np.argmax(quality))
    if call.call_kind == "pairwise" and call.options == 3 and abs(quality[0] - quality[1]) < params.tie_margin:
        return "C", "answered by content (close: tie)"
    return SLOT_LETTERS[best], "answered by content"


def simulated_reply(call: PlannedCall, params: SimulatedParams) -> str:
    """The simulated judge's reply to one call, in the format its template asks for."""
    rng = _rng(params, call.call_id)
    if call.call_kind == "rubric":
        score, how = _rubric_score(call, params, rng)
        return f"Feedback: (simulated judge, {how}.) [RESULT] {score}"
    letter, how = _slot_choice(call, params, rng)
    return f"(Simulated judge, {how}.) [[{letter}]]"


class SimulatedJudge(JudgeClient):
    """Answers instantly and for free; never a real model."""

    provider = "simulated"
    simulated = True
    paid = False

    def __init__(self, spec: RunSpec) -> None:
        self.model = spec.model
        self.name = spec.judge_name()
        self.params = spec.simulated or SimulatedParams()
        self.logprobs = spec.logprobs
        self._calls: dict[str, PlannedCall] = {}

    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        self._calls[call.call_id] = call
        return {"call_id": call.call_id}

    async def send(self, params: dict[str, Any]) -> JudgeReply:
        call = self._calls.pop(params["call_id"])
        logprobs = rubric_score_logprobs(call, self.params) if self.logprobs and call.call_kind == "rubric" else None
        return JudgeReply(text=simulated_reply(call, self.params), score_logprobs=logprobs)

    def describe(self) -> str:
        return self.params.describe()
