"""Read a verdict or a score out of a judge's reply. Never guess: no match is a parse failure."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from judgebias_core.models import PARSE_FAILED, PARSE_OK, ParsedVerdict

# The exact rules of Shi et al.'s code for the bundled data; a looser rule changes published counts.
MTBENCH_PATTERN = re.compile(r"\[\[([ABCD])\]\]")
DEVBENCH_PATTERN = re.compile(r"(?:选择：|Choice: )([ABCD])")
PROMETHEUS_PATTERN = re.compile(r"\[RESULT\]\s*[:(\[]?\s*(-?\d+)")
LISTWISE_PATTERN = re.compile(r"\[\[([A-Z]|NONE)\]\]", re.IGNORECASE)

PAIR_VERDICTS = ("A", "B", "C")


def _failed(parser: str, reason: str) -> ParsedVerdict:
    return ParsedVerdict(value=None, status=PARSE_FAILED, parser=parser, reason=reason)


def _pair_letter(letter: str, parser: str, options: int) -> ParsedVerdict:
    allowed = PAIR_VERDICTS if options == 3 else PAIR_VERDICTS[:2]
    if letter not in allowed:
        return _failed(parser, f"verdict {letter!r} is not one of {', '.join(allowed)}")
    return ParsedVerdict(value=letter, status=PARSE_OK, parser=parser)


def parse_mtbench_verdict(reply: str | None, options: int = 3) -> ParsedVerdict:
    """MT-Bench pairwise format: the first ``[[A]]``, ``[[B]]`` or ``[[C]]`` (tie) in the reply."""
    if not reply:
        return _failed("mtbench", "empty reply")
    match = MTBENCH_PATTERN.search(reply)
    if match is None:
        return _failed("mtbench", "no [[A]], [[B]] or [[C]] in the reply")
    return _pair_letter(match.group(1), "mtbench", options)


def parse_devbench_choice(reply: str | None, options: int = 2) -> ParsedVerdict:
    """DevBench format: the first ``Choice: A`` / ``选择：A`` in the reply."""
    if not reply:
        return _failed("devbench", "empty reply")
    match = DEVBENCH_PATTERN.search(reply)
    if match is None:
        return _failed("devbench", "no 'Choice: A' or 'Choice: B' in the reply")
    return _pair_letter(match.group(1), "devbench", options)


def parse_prometheus_score(reply: str | None, scores: Sequence[int] = (1, 2, 3, 4, 5)) -> ParsedVerdict:
    """Prometheus format: the integer after the last ``[RESULT]``; it must be one of the rubric's scores."""
    if not reply:
        return _failed("prometheus", "empty reply")
    matches = PROMETHEUS_PATTERN.findall(reply)
    if not matches:
        return _failed("prometheus", "no '[RESULT] n' in the reply")
    score = int(matches[-1])
    if score not in scores:
        return _failed("prometheus", f"score {score} is not a level of the rubric ({min(scores)}-{max(scores)})")
    return ParsedVerdict(value=score, status=PARSE_OK, parser="prometheus")


def _json_object(reply: str) -> dict[str, object] | None:
    text = reply.strip()
    fenced = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def parse_json_verdict(reply: str | None, options: int = 3) -> ParsedVerdict:
    """Structured output: ``{"verdict": "A" | "B" | "C"}``."""
    obj = _json_object(reply or "")
    if obj is None:
        return _failed("json", "reply is not a JSON object")
    verdict = obj.get("verdict")
    if not isinstance(verdict, str):
        return _failed("json", "no string field 'verdict'")
    return _pair_letter(verdict.strip().upper(), "json", options)


def parse_json_score(reply: str | None, scores: Sequence[int] = (1, 2, 3, 4, 5)) -> ParsedVerdict:
    """Structured output: ``{"score": n}`` with n one of the rubric's scores."""
    obj = _json_object(reply or "")
    if obj is None:
        return _failed("json", "reply is not a JSON object")
    score = obj.get("score")
    if isinstance(score, bool) or not isinstance(score, int | str):
        return _failed("json", "no integer field 'score'")
    try:
        value = int(score)
    except ValueError:
        return _failed("json", f"score {score!r} is not an integer")
    if value not in scores:
        return _failed("json", f"score {value} is not a level of the rubric")
    return ParsedVerdict(value=value, status=PARSE_OK, parser="json")


def parse_listwise(reply: str | None, slots: int, allow_none: bool = False) -> ParsedVerdict:
    """List-wise format: the first ``[[X]]`` naming a slot letter, or ``[[NONE]]`` when allowed."""
    if not reply:
        return _failed("listwise", "empty reply")
    match = LISTWISE_PATTERN.search(reply)
    if match is None:
        return _failed("listwise", "no [[letter]] in the reply")
    token = match.group(1).upper()
    if token == "NONE":
        if allow_none:
            return ParsedVerdict(value="none", status=PARSE_OK, parser="listwise")
        return _failed("listwise", "'no clear winner' was not allowed")
    index = ord(token) - ord("A")
    if index >= slots:
        return _failed("listwise", f"slot {token} does not exist (only {slots} candidates)")
    return ParsedVerdict(value=token, status=PARSE_OK, parser="listwise")


PARSERS: dict[str, Callable[..., ParsedVerdict]] = {
    "mtbench": parse_mtbench_verdict,
    "devbench": parse_devbench_choice,
    "prometheus": parse_prometheus_score,
    "json": parse_json_verdict,
    "json-score": parse_json_score,
    "listwise": parse_listwise,
}
