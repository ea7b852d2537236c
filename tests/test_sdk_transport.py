"""The judges' direct happy path keeps the SDK's retry behaviour attempt for attempt (judges/sdk_transport.py)."""

from __future__ import annotations

import asyncio

import pytest

from judgebias_core.errors import JudgeCallError
from judgebias_core.judges.openai_client import OpenAIJudge
from judgebias_core.protocols.spec import RunSettings, RunSpec
from tests.fake_provider import FakeProvider, FakeRequest, FakeResponse, Fault
from tests.test_judges import SECRET, rubric_call, send


def _judge(provider: FakeProvider, retries: int, logprobs: bool = False) -> OpenAIJudge:
    spec = RunSpec(dataset_id="d", protocol="rubric-repeat", provider="openai", model="m",
                   base_url=provider.openai_url, logprobs=logprobs)
    return OpenAIJudge(spec, RunSettings(timeout_s=0.5, sdk_max_retries=retries), key=SECRET)


@pytest.mark.parametrize("retries", [0, 1, 2])
def test_a_failing_call_makes_one_request_plus_the_sdks_retries(retries: int, fake_provider: FakeProvider) -> None:
    fake_provider.inject(*[Fault("500")] * 5)
    with pytest.raises(JudgeCallError, match="500") as raised:
        send(_judge(fake_provider, retries), rubric_call())
    assert raised.value.retryable and fake_provider.request_count == 1 + retries


def test_a_retried_429_waits_its_retry_after_then_gets_the_reply(fake_provider: FakeProvider) -> None:
    fake_provider.inject(Fault("429", retry_after=0.6))
    reply = send(_judge(fake_provider, 2), rubric_call())
    first, second = fake_provider.requests
    assert reply.text.endswith("[RESULT] 4") and second.received_at - first.received_at >= 0.55  # type: ignore[attr-defined]
    assert second.headers["authorization"] == first.headers["authorization"] == f"Bearer {SECRET}"


def test_a_status_the_sdk_does_not_retry_is_sent_once(fake_provider: FakeProvider) -> None:
    fake_provider.add_route("POST", "/v1/chat/completions",
                            lambda request: FakeResponse(400, b'{"error": {"message": "bad"}}',
                                                         {"content-type": "application/json"}))
    with pytest.raises(JudgeCallError, match="400") as raised:
        send(_judge(fake_provider, 2), rubric_call())
    assert not raised.value.retryable and fake_provider.request_count == 1


def test_the_direct_path_sends_the_sdks_headers_and_reads_usage_and_logprobs(fake_provider: FakeProvider) -> None:
    reply = send(_judge(fake_provider, 0, logprobs=True), rubric_call())
    request: FakeRequest = fake_provider.requests[-1]
    assert request.headers["x-stainless-lang"] == "python" and request.headers["content-type"] == "application/json"
    assert reply.input_tokens and reply.output_tokens  # type: ignore[attr-defined]
    assert set(reply.score_logprobs) == {" 3", " 4", " 5"}  # type: ignore[attr-defined]


def test_a_dead_server_is_a_retryable_connection_error() -> None:
    with FakeProvider() as provider:
        judge = _judge(provider, 0)
    with pytest.raises(JudgeCallError, match="Connection") as raised:
        asyncio.run(judge.send(judge.request_params(rubric_call())))
    assert raised.value.retryable
