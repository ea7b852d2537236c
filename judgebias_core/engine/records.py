"""A call's reply record (the journal line resume depends on), its ``judge_calls`` row (parse included), and the
cache key."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from judgebias_core.judges.geval import expected_score
from judgebias_core.models import NO_REPLY, PARSE_OK, ParsedVerdict
from judgebias_core.parsing import PARSERS, parse_json_score, parse_listwise, parse_prometheus_score
from judgebias_core.protocols.orderings import chosen_position
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.run_types import PlannedCall


@dataclass(frozen=True)
class RunContext:
    """What every row of one run shares."""

    run_id: str
    judge: str
    template_id: str
    parser: str
    allow_none: bool = False


@dataclass(frozen=True)
class ReplyRecord:
    """What one call got, live or batch: the reply text (None: no reply, ``error`` says why), usage, cost and
    where it came from. One journal line each (``to_json``); never holds a key."""

    call_id: str
    text: str | None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_ms: float | None = None
    cost_usd: float | None = 0.0  # None: unknown (a model missing from the price table), never guessed as 0
    cached: bool = False  # answered from the response cache (or an identical call of the same run)
    cache_key: str | None = None
    attempts: int | None = None
    batch: bool = False  # came back in a provider batch
    error: str | None = None
    score_logprobs: dict[str, float] | None = None  # top log-probabilities at the score token (G-Eval)
    at: float = field(default_factory=time.time)

    @property
    def answered(self) -> bool:
        return self.text is not None

    def for_call(self, call_id: str, key: str) -> ReplyRecord:
        """This reply given to another call with the same cache key: free, instant, marked cached (a failure is
        passed on as it is)."""
        if self.text is None:
            return replace(self, call_id=call_id)
        return ReplyRecord(call_id, self.text, self.input_tokens, self.output_tokens, latency_ms=0.0, cached=True,
                           cache_key=key, score_logprobs=self.score_logprobs)

    def to_json(self) -> str:
        values = {"call_id": self.call_id, "text": self.text, "input_tokens": self.input_tokens,
                  "output_tokens": self.output_tokens, "latency_ms": self.latency_ms, "cost_usd": self.cost_usd,
                  "cached": self.cached, "cache_key": self.cache_key, "attempts": self.attempts,
                  "batch": self.batch or None, "error": self.error, "score_logprobs": self.score_logprobs,
                  "at": self.at}
        return json.dumps({k: v for k, v in values.items() if v is not None or k in ("text", "cost_usd")},
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> ReplyRecord:
        """A journal line back (lines of earlier versions too: missing fields take their defaults, unknown ones
        are ignored); ``ValueError`` when the line is not a record."""
        values = json.loads(line)
        if not isinstance(values, dict) or not isinstance(values.get("call_id"), str):
            raise ValueError("not a reply record")
        return cls(call_id=values["call_id"], text=values.get("text"), input_tokens=values.get("input_tokens"),
                   output_tokens=values.get("output_tokens"), latency_ms=values.get("latency_ms"),
                   cost_usd=values.get("cost_usd", 0.0), cached=bool(values.get("cached")),
                   cache_key=values.get("cache_key"), attempts=values.get("attempts"),
                   batch=bool(values.get("batch")), error=values.get("error"),
                   score_logprobs=values.get("score_logprobs"), at=values.get("at") or 0.0)


def int_or_none(value: object) -> int | None:
    """A stored count as int, None for NULL or NaN."""
    return None if value is None or value != value else int(value)  # type: ignore[call-overload]  # NaN != NaN


def cached_records(found: pd.DataFrame) -> dict[str, ReplyRecord]:
    """Response-cache rows (``run_queries.cached_replies``) by cache key, as records to hand out with
    ``ReplyRecord.for_call``."""
    return {r.cache_key: ReplyRecord("", r.raw_output, int_or_none(r.input_tokens), int_or_none(r.output_tokens),
                                     cached=True, cache_key=r.cache_key,
                                     score_logprobs=json.loads(r.score_logprobs) if isinstance(
                                         r.score_logprobs, str) else None)
            for r in found.itertuples()}


def cache_key(spec: RunSpec, call: PlannedCall) -> str:
    """Provider, model, endpoint, sampling parameters, request fields (``--extra-body``, ``--constrain-reply``; only
    when set, so earlier keys stay as they were), the full prompt and the repetition index."""
    parts = [spec.provider, spec.model, spec.base_url or "", spec.temperature, spec.max_tokens, spec.seed,
             spec.structured_output, spec.logprobs, call.system, call.user, call.repetition]
    if spec.extra_body or spec.constrain_reply:
        parts.append([spec.extra_body, spec.constrain_reply])
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()


def parse_reply(call: PlannedCall, text: str | None, context: RunContext) -> ParsedVerdict:
    if call.call_kind == "rubric":
        if context.parser == "json-score":
            return parse_json_score(text, call.scores)
        return parse_prometheus_score(text, call.scores)
    if call.call_kind == "listwise":
        return parse_listwise(text, len(call.slots), context.allow_none)
    return PARSERS[context.parser](text, options=call.options or 3)


def call_row(call: PlannedCall, record: ReplyRecord, context: RunContext) -> dict[str, Any]:
    """The stored row of one call: its reply record parsed; a record with no text is a 'no reply' row."""
    text = record.text
    row: dict[str, Any] = {
        "call_id": call.call_id, "run_id": context.run_id, "dataset_id": call.dataset_id, "study": context.run_id,
        "judge": context.judge, "item_id": call.item_id, "kind": call.call_kind, "repetition": call.repetition,
        "options": call.options, "slots": list(call.slots) or None,
        "first_candidate": call.slots[0] if call.slots else None,
        "second_candidate": call.slots[1] if len(call.slots) > 1 else None,
        "order_label": call.order_label, "ordering": list(call.ordering) if call.ordering else None,
        "rubric_id": call.rubric_id, "template_id": context.template_id, "prompt": call.prompt,
        "raw_output": text, "verdict": None, "score": None, "chosen_position": None,
        "input_tokens": record.input_tokens, "output_tokens": record.output_tokens,
        "latency_ms": record.latency_ms, "cost_usd": record.cost_usd, "cached": record.cached,
        "expected_score": expected_score(record.score_logprobs, call.scores) if call.call_kind == "rubric" else None,
    }
    if text is None:
        return row | {"parse_status": NO_REPLY, "parser": context.parser, "error": record.error}
    parsed = parse_reply(call, text, context)
    row |= {"parse_status": parsed.status, "parser": parsed.parser, "error": parsed.reason or None}
    if parsed.status == PARSE_OK:
        if call.call_kind == "rubric":
            row["score"] = int(parsed.value)  # type: ignore[arg-type]
            row["chosen_position"] = chosen_position(call.ordering or (), int(parsed.value))  # type: ignore[arg-type]
        else:
            row["verdict"] = str(parsed.value)
    return row
