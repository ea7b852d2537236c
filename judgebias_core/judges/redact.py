"""Keys never stored: every reply record is scrubbed of the current API keys before it is journaled or written.

A proxy or an OpenAI-compatible server may echo the request headers into its reply, so a key can arrive inside
``raw_output`` (and from there the response cache, the journal and exports). ``scrub_record`` replaces, in every
string of a record, the keys this process knows (the providers' environment variables, any ``*_API_KEY``
variable, and keys given in settings, registered by ``remember_secret``) and any token-shaped value of an
``Authorization`` / ``x-api-key`` / ``api-key`` header, by ``MARKER``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from typing import Any, TypeVar

RecordT = TypeVar("RecordT")

MARKER = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values (a test's "x") would blank out ordinary words
KEY_VARIABLE_SUFFIX = "_API_KEY"
# a header value as echoed in JSON, HTTP or Python reprs: name, separator, optional scheme, then a token
_HEADER_VALUE = re.compile(
    r"(?i)((?:authorization|x-api-key|api-key)[\"']?\s*[:=]\s*[\"']?(?:bearer\s+|basic\s+)?)"
    r"([A-Za-z0-9._~+/=\-]{16,})")

_remembered: set[str] = set()
_lock = threading.Lock()


def remember_secret(secret: str | None) -> None:
    """A key given other than through the environment (a Streamlit secret, a ``key=`` argument)."""
    if secret and len(secret) >= MIN_SECRET_CHARS:
        with _lock:
            _remembered.add(secret)


def current_secrets() -> tuple[str, ...]:
    """The keys to scrub, longest first (so a key that contains another is replaced whole)."""
    from_env = {value for name, value in os.environ.items() if name.upper().endswith(KEY_VARIABLE_SUFFIX)}
    with _lock:
        known = from_env | _remembered
    return tuple(sorted((s for s in known if len(s) >= MIN_SECRET_CHARS), key=len, reverse=True))


def scrub_text(text: str, secrets: tuple[str, ...] | None = None) -> str:
    """``text`` with every known key and every echoed auth-header value replaced by ``MARKER``."""
    for secret in current_secrets() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, MARKER)
    return _HEADER_VALUE.sub(lambda m: m.group(1) + MARKER, text)


def scrub_record(record: RecordT) -> RecordT:
    """A copy of a reply record (a dataclass such as ``ReplyRecord``, or a dict) with every string in it, nested
    ones included, scrubbed."""
    secrets = current_secrets()
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        values = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
        changed = {name: new for name, value in values.items() if (new := _scrub_value(value, secrets)) != value}
        return dataclasses.replace(record, **changed) if changed else record
    if isinstance(record, dict):
        return {key: _scrub_value(value, secrets) for key, value in record.items()}  # type: ignore[return-value]
    raise TypeError(f"not a reply record: {type(record).__name__}")


def _scrub_value(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return scrub_text(value, secrets)
    if isinstance(value, dict):
        return {scrub_text(k, secrets) if isinstance(k, str) else k: _scrub_value(v, secrets)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_scrub_value(v, secrets) for v in value)
    return value
