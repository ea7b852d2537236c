"""G-Eval style expected score from token log-probabilities: sum over valid scores s of s * P(s)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

RESULT_MARKER = "[RESULT]"
JSON_SCORE_MARKER = '"score"'


def score_token_logprobs(tokens: Sequence[tuple[str, Sequence[tuple[str, float]]]],
                         marker: str = RESULT_MARKER) -> dict[str, float] | None:
    """The top log-probabilities at the score token: the first number token after the last ``marker``.

    ``tokens`` are (token, [(alternative, logprob), ...]) in reply order. None when no such token exists, and None
    when the reply has no marker at all: a digit elsewhere ("between 1 and 5") is not the score.
    """
    starts, text = [], ""
    for token, _ in tokens:
        starts.append(len(text))
        text += token
    at = text.rfind(marker)
    if at < 0:
        return None
    begin = at + len(marker)
    for start, (token, alternatives) in zip(starts, tokens, strict=True):
        if start + len(token) > begin and token.strip().isdigit():
            return {alt: logprob for alt, logprob in alternatives} or {token: 0.0}
    return None


def expected_score(logprobs: Mapping[str, float] | None, scores: Sequence[int]) -> float | None:
    """sum_s s * P(s) over the rubric's scores, P renormalised over them; None when none of them is present."""
    if not logprobs:
        return None
    mass: dict[int, float] = {}
    for token, logprob in logprobs.items():
        stripped = token.strip()
        if stripped.isdigit() and int(stripped) in scores:
            mass[int(stripped)] = mass.get(int(stripped), 0.0) + math.exp(logprob)
    total = sum(mass.values())
    return sum(score * p for score, p in mass.items()) / total if total > 0 else None
