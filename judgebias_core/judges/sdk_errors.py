"""Map the official SDKs' exceptions to ``JudgeCallError``: what may be retried, and after how long."""

from __future__ import annotations

import json
from typing import Any

from judgebias_core.errors import JudgeCallError
from judgebias_core.judges.base import redact

MAX_ERROR_CHARS = 300


def _retry_after(response: Any) -> float | None:
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return max(0.0, float(value) / divisor)
            except ValueError:
                continue
    return None


def call_error(error: BaseException, sdk: Any, secret: str) -> JudgeCallError:
    """Classify an exception raised by ``sdk`` (the ``openai`` or ``anthropic`` module); never quotes the key."""
    name = type(error).__name__
    message = redact(str(error), (secret,))[:MAX_ERROR_CHARS]
    if isinstance(error, sdk.APIStatusError):
        status = error.status_code
        retryable = status in (408, 409, 429) or status >= 500
        after = _retry_after(error.response) if status == 429 else None
        return JudgeCallError(f"{name} (HTTP {status}): {message}", retryable=retryable, retry_after=after)
    if isinstance(error, sdk.APITimeoutError | sdk.APIConnectionError):
        return JudgeCallError(f"{name}: {message}", retryable=True, timed_out=isinstance(error, sdk.APITimeoutError))
    if isinstance(error, sdk.APIResponseValidationError | json.JSONDecodeError):
        return malformed(error, secret)
    return JudgeCallError(f"{name}: {message}", retryable=False)


def malformed(error: BaseException, secret: str = "") -> JudgeCallError:
    """A reply whose body could not be read (truncated, not JSON, wrong shape): worth another attempt."""
    message = redact(str(error), (secret,))[:MAX_ERROR_CHARS]
    return JudgeCallError(f"malformed reply body ({type(error).__name__}): {message}", retryable=True)
