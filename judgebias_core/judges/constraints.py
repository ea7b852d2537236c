"""Reply constraints for local OpenAI-compatible servers (``--constrain-reply``), and the request fields a run adds.

A small local model rarely ends its reply with the template's answer format (``[RESULT] n``, ``[[A]]``) unless the
server is told to: each server kind takes such a constraint per request, in its own field.

- ``grammar`` (llama.cpp's ``llama-server``): a GBNF grammar whose only sentences are the valid answers,
  e.g. ``root ::= "[RESULT] 1" | ... | "[RESULT] 5"`` or ``root ::= "[[A]]" | "[[B]]" | "[[C]]"``.
- ``choice`` (vLLM): ``guided_choice``, the list of valid answers.
- ``json`` (Ollama): a JSON schema in ``response_format``; the reply is read as structured output (``json``/
  ``json-score`` parsers), as ``--structured-output`` would.

The constrained reply is the answer alone (no feedback or explanation): what the position-bias measures need.
``--extra-body`` (``RunSpec.extra_body``) adds any other field to every request (the OpenAI SDK's ``extra_body``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from judgebias_core.errors import InvalidArgument
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.run_types import PlannedCall


def answers(call: PlannedCall, allow_none: bool = False) -> list[str]:
    """Every valid answer of a call in the default templates' formats."""
    if call.call_kind == "rubric":
        return [f"[RESULT] {score}" for score in call.scores]
    if call.call_kind == "listwise":
        return [f"[[{chr(ord('A') + i)}]]" for i in range(len(call.slots))] + (["[[NONE]]"] if allow_none else [])
    return [f"[[{letter}]]" for letter in ("A", "B", "C")[: call.options or 3]]


def gbnf(choices: Sequence[str]) -> str:
    """A GBNF grammar whose sentences are exactly ``choices`` (JSON string quoting is GBNF's literal syntax)."""
    return "root ::= " + " | ".join(json.dumps(choice) for choice in choices)


def constraint_fields(spec: RunSpec, call: PlannedCall) -> dict[str, Any]:
    """The request fields that hold a call's reply to its answer format (empty when the run asks for none, or when
    structured output's JSON schema constrains it already)."""
    style = spec.reply_constraint()
    if style is None or spec.structured_output or style == "json":
        return {}
    if spec.template_text:
        raise InvalidArgument("--constrain-reply holds replies to the default templates' answer formats; a custom "
                              "--template needs its own constraint in --extra-body")
    choices = answers(call, spec.allow_none)
    if style == "grammar":
        return {"grammar": gbnf(choices)}
    return {"guided_choice": choices}


def extra_fields(spec: RunSpec) -> dict[str, Any]:
    """``--extra-body`` as a dict (validated as a JSON object when the spec was made)."""
    return dict(json.loads(spec.extra_body)) if spec.extra_body else {}
