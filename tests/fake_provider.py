"""A loopback fake of the OpenAI chat-completions and Anthropic Messages wire formats, for tests and benches.

The real SDKs are pointed at it (``base_url``) and parse its replies into their own ``ChatCompletion`` and
``Message`` types, usage included. Replies are scriptable (``reply_with``), faults are injected in order
(``inject``: 429 with Retry-After, 500, timeouts, truncated or garbage JSON), and every request is recorded.
Routes are a table (``add_route``), so another module can add endpoints (e.g. the batch APIs) without editing
this one. ``python -m tests.fake_provider --latency 0.2`` serves in its own process and prints its port.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qsl

FaultKind = Literal["429", "500", "timeout", "truncated", "garbage"]


@dataclass(frozen=True)
class FakeRequest:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: Any  # parsed JSON, or None
    received_at: float = field(default_factory=time.monotonic)
    raw: bytes = field(default=b"", repr=False)  # the body as sent (a multipart file upload is not JSON)
    query: dict[str, str] = field(default_factory=dict)  # the URL's query parameters (list endpoints)


@dataclass(frozen=True)
class FakeResponse:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    retry_after: float = 0.0  # 429
    delay_s: float = 2.0  # timeout: how long the server waits before answering


Handler = Callable[[FakeRequest], FakeResponse]
ReplyFn = Callable[[str, dict[str, Any]], str]


def default_reply(prompt: str, body: dict[str, Any]) -> str:
    """A valid judge reply for the prompt's format: a Prometheus score or an MT-Bench verdict."""
    if "[RESULT]" in prompt:
        return "Feedback: the response is adequate. [RESULT] 4"
    return "Assistant A answers more directly. [[A]]"


def _json(payload: Any, status: int = 200, headers: dict[str, str] | None = None, delay_s: float = 0.0) -> FakeResponse:
    return FakeResponse(status, json.dumps(payload).encode(), {"content-type": "application/json", **(headers or {})},
                        delay_s)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default listen backlog is 5: a run opening 32 connections at once had some of its SYNs
    # dropped and resent a second later, a stall no provider's front end shows.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that vanish mid-request (killed runs, timeouts) are expected here: no traceback."""


class FakeProvider:
    """The server and its script. Use as a context manager, or ``start()`` / ``stop()``."""

    def __init__(self, latency_s: float = 0.0, reply: ReplyFn = default_reply, echo_headers: bool = False) -> None:
        self.latency_s = latency_s
        self.reply_fn = reply
        # like a proxy that quotes the request back: every reply starts with the request's headers (keys included)
        self.echo_headers = echo_headers
        # alternatives at a number token of a reply (log-probabilities), for G-Eval expected scores
        self.score_logprobs: dict[str, float] = {" 4": math.log(0.6), " 3": math.log(0.3), " 5": math.log(0.1)}
        self.requests: list[FakeRequest] = []
        self.routes: dict[tuple[str, str], Handler] = {
            ("POST", "/v1/chat/completions"): self._openai_chat,
            ("POST", "/v1/messages"): self._anthropic_messages,
        }
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- script ----
    def add_route(self, method: str, path: str, handler: Handler) -> None:
        self.routes[(method.upper(), path)] = handler

    def reply_with(self, reply: ReplyFn) -> None:
        self.reply_fn = reply

    def inject(self, *faults: Fault) -> None:
        """Faults answered, in order, to the next requests (one fault per request)."""
        with self._lock:
            self._faults.extend(faults)

    def next_fault(self) -> Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    # ---- addresses ----
    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ---- wire formats ----
    def _reply_text(self, prompt: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> str:
        text = self.reply_fn(prompt, body)
        if self.echo_headers and headers is not None:
            return f"Request headers: {json.dumps(headers)}\n{text}"
        return text

    def _openai_chat(self, request: FakeRequest) -> FakeResponse:
        body = request.body or {}
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        text = self._reply_text(prompt, body, request.headers)
        prompt_tokens, completion_tokens = max(1, len(prompt) // 4), max(1, len(text) // 4)
        return _json({
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop",
                         "logprobs": self._logprobs(text) if body.get("logprobs") else None}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }, delay_s=self.latency_s)

    def _logprobs(self, text: str) -> dict[str, Any]:
        """Word tokens with log-probability 0, except number tokens: ``score_logprobs`` as their alternatives."""
        content = []
        for token in re.findall(r"\s*[^\s\d]+|\s*\d+|\s+", text):
            alternatives = self.score_logprobs if token.strip().isdigit() else {token: 0.0}
            top = [{"token": t, "logprob": lp, "bytes": None} for t, lp in alternatives.items()]
            content.append({"token": token, "logprob": alternatives.get(token, -0.5), "bytes": None,
                            "top_logprobs": top})
        return {"content": content, "refusal": None}

    def _anthropic_messages(self, request: FakeRequest) -> FakeResponse:
        body = request.body or {}
        system = body.get("system") or ""
        prompt = "\n".join([system] + [str(m.get("content", "")) for m in body.get("messages", [])])
        text = self._reply_text(prompt, body, request.headers)
        return _json({
            "id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
            "model": body.get("model", "fake"), "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": max(1, len(prompt) // 4), "output_tokens": max(1, len(text) // 4)},
        }, delay_s=self.latency_s)

    def respond(self, request: FakeRequest) -> FakeResponse:
        """The response to one request: the next injected fault, else the route's handler."""
        with self._lock:
            self.requests.append(request)
        handler = self.routes.get((request.method, request.path))
        if handler is None:
            return _json({"error": {"type": "not_found", "message": request.path}}, status=404)
        fault = self.next_fault()
        if fault is None:
            return handler(request)
        if fault.kind == "429":
            return _json({"error": {"type": "rate_limit_error", "message": "slow down"}}, 429,
                         {"retry-after": f"{fault.retry_after:g}", "x-should-retry": "true"})
        if fault.kind == "500":
            return _json({"error": {"type": "api_error", "message": "internal error"}}, 500)
        if fault.kind == "timeout":
            late = handler(request)
            return FakeResponse(late.status, late.body, late.headers, delay_s=fault.delay_s)
        good = handler(request).body
        body = good[: len(good) // 2] if fault.kind == "truncated" else b"<html>not json at all"
        return FakeResponse(200, body, {"content-type": "application/json"})

    # ---- server ----
    def start(self) -> FakeProvider:
        provider = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, so SDK connection pools reuse connections

            def setup(self) -> None:
                super().setup()
                # no Nagle delay on replies: with delayed ACKs it adds ~40 ms to a keep-alive request
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                path, _, query = self.path.partition("?")
                headers = {k.lower(): v for k, v in self.headers.items()}
                response = provider.respond(FakeRequest(self.command, path, headers, body, raw=raw,
                                                        query=dict(parse_qsl(query))))
                if response.delay_s:
                    time.sleep(response.delay_s)
                try:
                    self.send_response(response.status)
                    for name, value in response.headers.items():
                        self.send_header(name, value)
                    self.send_header("content-length", str(len(response.body)))
                    self.end_headers()
                    self.wfile.write(response.body)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up (timeout test)

            do_POST = _serve  # noqa: N815 - http.server's naming
            do_GET = _serve  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence per-request logs
                return

        self._server = _QuietServer(("127.0.0.1", 0), _Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="fake-provider",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the fake provider until killed; prints its port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every reply")
    args = parser.parse_args()
    provider = FakeProvider(latency_s=args.latency).start()
    print(provider.port, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
