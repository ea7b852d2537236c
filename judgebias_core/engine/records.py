"""From a planned call and its reply record to a ``judge_calls`` row (parse included), and the cache key."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from judgebias_core.judges.geval import expected_score
from judgebias_core.models import NO_REPLY, PARSE_OK, ParsedVerdict
from judgebias_core.parsing import PARSERS, parse_json_score, parse_listwise, parse_prometheus_score
from judgebias_core.protocols.orderings import chosen_position
from judgebias_core.protocols.plans import PlannedCall
from judgebias_core.protocols.spec import RunSpec


@dataclass(frozen=True)
class RunContext:
    """What every row of one run shares."""

    run_id: str
    judge: str
    template_id: str
    parser: str
    allow_none: bool = False


def cache_key(spec: RunSpec, call: PlannedCall) -> str:
    """Provider, model, endpoint, sampling parameters, the full prompt and the repetition index."""
    parts = [spec.provider, spec.model, spec.base_url or "", spec.temperature, spec.max_tokens, spec.seed,
             spec.structured_output, spec.logprobs, call.system, call.user, call.repetition]
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()


def parse_reply(call: PlannedCall, text: str | None, context: RunContext) -> ParsedVerdict:
    if call.kind == "rubric":
        if context.parser == "json-score":
            return parse_json_score(text, call.scores)
        return parse_prometheus_score(text, call.scores)
    if call.kind == "listwise":
        return parse_listwise(text, len(call.slots), context.allow_none)
    return PARSERS[context.parser](text, options=call.options or 3)


def call_row(call: PlannedCall, record: dict[str, Any], context: RunContext) -> dict[str, Any]:
    """The stored row of one call: its reply record parsed; a record with no text is a 'no reply' row."""
    text = record.get("text")
    row: dict[str, Any] = {
        "call_id": call.call_id, "run_id": context.run_id, "dataset_id": call.dataset_id, "study": context.run_id,
        "judge": context.judge, "item_id": call.item_id, "kind": call.kind, "repetition": call.repetition,
        "options": call.options, "slots": list(call.slots) or None,
        "first_candidate": call.slots[0] if call.slots else None,
        "second_candidate": call.slots[1] if len(call.slots) > 1 else None,
        "order_label": call.order_label, "ordering": list(call.ordering) if call.ordering else None,
        "rubric_id": call.rubric_id, "template_id": context.template_id, "prompt": call.prompt,
        "raw_output": text, "verdict": None, "score": None, "chosen_position": None,
        "input_tokens": record.get("input_tokens"), "output_tokens": record.get("output_tokens"),
        "latency_ms": record.get("latency_ms"), "cost_usd": record.get("cost_usd"),
        "cached": bool(record.get("cached", False)),
        "expected_score": expected_score(record.get("score_logprobs"), call.scores) if call.kind == "rubric" else None,
    }
    if text is None:
        return row | {"parse_status": NO_REPLY, "parser": context.parser, "error": record.get("error")}
    parsed = parse_reply(call, text, context)
    row |= {"parse_status": parsed.status, "parser": parsed.parser, "error": parsed.reason or None}
    if parsed.status == PARSE_OK:
        if call.kind == "rubric":
            row["score"] = int(parsed.value)  # type: ignore[arg-type]
            row["chosen_position"] = chosen_position(call.ordering or (), int(parsed.value))  # type: ignore[arg-type]
        else:
            row["verdict"] = str(parsed.value)
    return row
