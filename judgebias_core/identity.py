"""Names and ids every layer shares: a model's family from its name, and short deterministic ids."""

from __future__ import annotations

import hashlib
import re

_FAMILY_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"^(gpt|o\d|chatgpt|text-davinci|davinci)", "openai"),
    (r"^claude", "anthropic"),
    (r"^(gemini|palm|bard)", "google"),
    (r"^(llama|codellama|meta-llama)", "meta"),
    (r"^(mistral|mixtral|codestral)", "mistral"),
    (r"^(qwen)", "alibaba"),
    (r"^(vicuna)", "lmsys"),
    (r"^(auto-j)", "auto-j"),
    (r"^(prometheus)", "prometheus"),
    (r"^(deepseek)", "deepseek"),
)


def model_family(name: str) -> str:
    """A model's family from its name (gpt-4-0613 -> openai); 'other' when unknown."""
    lowered = name.lower().split("/")[-1]
    for pattern, family in _FAMILY_PATTERNS:
        if re.search(pattern, lowered):
            return family
    return "other"


def stable_id(*parts: object) -> str:
    """A short deterministic id from its parts, for idempotent writes."""
    text = "\x1f".join("" if part is None else str(part) for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]
