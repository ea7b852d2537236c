"""What every judge client shares beyond its interface (``run_types.JudgeClient``): redaction of keys in the
texts it hands back."""

from __future__ import annotations

import re

from judgebias_core.judges.redact import scrub_text

_KEY_LIKE = re.compile(r"(sk|key|ak)-[A-Za-z0-9_\-*]{6,}")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """The text with every secret and anything shaped like an API key replaced (SDK errors quote key prefixes)."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    return _KEY_LIKE.sub("[redacted]", scrub_text(text))
