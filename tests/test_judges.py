"""Judge clients: the real SDKs against the fake server, error classification, keys, simulated and replay."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from judgebias_core.errors import InvalidArgument, JudgeCallError, MissingApiKey
from judgebias_core.judges import make_client
from judgebias_core.judges.anthropic_client import AnthropicJudge
from judgebias_core.judges.openai_client import OpenAIJudge
from judgebias_core.judges.prices import estimate_plan, price_of
from judgebias_core.judges.replay import NO_RECORDING
from judgebias_core.judges.simulated import simulated_reply
from judgebias_core.parsing import parse_mtbench_verdict, parse_prometheus_score
from judgebias_core.protocols.spec import RunSettings, RunSpec, SimulatedParams
from judgebias_core.run_types import PlannedCall
from judgebias_core.store.handle import Store
from tests.fake_provider import FakeProvider, FakeRequest, FakeResponse, Fault

SECRET = "sk-test-SECRET0123456789abcdef"
FAST = RunSettings(timeout_s=0.5, sdk_max_retries=0)


def rubric_call(call_id: str = "c1", ordering: tuple[int, ...] = (1, 2, 3, 4, 5), human: float | None = 4.0,
                repetition: int = 1) -> PlannedCall:
    return PlannedCall(call_id=call_id, run_id="r", dataset_id="d", item_id="i", call_kind="rubric",
                       repetition=repetition, system="Judge fairly.", user="Score it. [RESULT] n",
                       ordering=ordering, scores=(1, 2, 3, 4, 5), contents=("a summary",), human_score=human)


def pair_call(call_id: str = "p1", options: int = 3, preference: str | None = None) -> PlannedCall:
    return PlannedCall(call_id=call_id, run_id="r", dataset_id="d", item_id="i", call_kind="pairwise", repetition=1,
                       system="sys", user="which? [[A]]", slots=("x", "y"), order_label="original",
                       options=options, contents=("short", "a much longer answer"), human_preference=preference)


def send(client: object, call: PlannedCall) -> object:
    async def go() -> object:
        try:
            return await client.send(client.request_params(call))  # type: ignore[attr-defined]
        finally:
            await client.aclose()  # type: ignore[attr-defined]

    return asyncio.run(go())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_sdks_parse_the_fake_servers_replies_with_usage(provider: str, fake_provider: FakeProvider,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    url = fake_provider.openai_url if provider == "openai" else fake_provider.anthropic_url
    spec = RunSpec(dataset_id="d", protocol="rubric-repeat", provider=provider, model="m", base_url=url, seed=7,
                   temperature=0.5, max_tokens=64)
    client = (OpenAIJudge if provider == "openai" else AnthropicJudge)(spec, FAST, key=SECRET)
    reply = send(client, rubric_call())
    assert parse_prometheus_score(reply.text).value == 4
    assert reply.input_tokens and reply.input_tokens > 0 and reply.output_tokens and reply.output_tokens > 0
    body = fake_provider.requests[-1].body
    assert body["temperature"] == 0.5 and body["max_tokens"] == 64 and body["model"] == "m"
    if provider == "openai":
        assert body["seed"] == 7 and body["messages"][0] == {"role": "system", "content": "Judge fairly."}
    else:
        assert body["system"] == "Judge fairly." and "seed" not in body
    assert SECRET in fake_provider.requests[-1].headers["authorization"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("fault", "retry_after"), [("429", 1.0), ("500", None), ("timeout", None),
                                                   ("truncated", None), ("garbage", None)])
def test_faults_are_retryable_errors(provider: str, fault: str, retry_after: float | None,
                                     fake_provider: FakeProvider) -> None:
    url = fake_provider.openai_url if provider == "openai" else fake_provider.anthropic_url
    spec = RunSpec(dataset_id="d", protocol="rubric-repeat", provider=provider, model="m", base_url=url)
    client = (OpenAIJudge if provider == "openai" else AnthropicJudge)(
        spec, RunSettings(timeout_s=0.3, sdk_max_retries=0), key=SECRET)
    fake_provider.inject(Fault(fault, retry_after=retry_after or 0, delay_s=1.0))  # type: ignore[arg-type]
    with pytest.raises(JudgeCallError) as raised:
        send(client, rubric_call())
    assert raised.value.retryable
    assert raised.value.retry_after == retry_after
    assert SECRET not in str(raised.value)


def test_a_rejected_key_is_not_retried_and_never_quoted(fake_provider: FakeProvider) -> None:
    def unauthorised(request: FakeRequest) -> FakeResponse:
        quoted = request.headers.get("authorization", "")
        body = {"error": {"message": f"Incorrect API key provided: {quoted[7:]}", "type": "invalid_request_error"}}
        return FakeResponse(401, json.dumps(body).encode(), {"content-type": "application/json"})

    fake_provider.add_route("POST", "/v1/chat/completions", unauthorised)
    spec = RunSpec(dataset_id="d", protocol="rubric-repeat", provider="openai", model="m",
                   base_url=fake_provider.openai_url)
    with pytest.raises(JudgeCallError) as raised:
        send(OpenAIJudge(spec, FAST, key=SECRET), rubric_call())
    assert not raised.value.retryable and "401" in str(raised.value)
    assert SECRET not in str(raised.value) and SECRET[:12] not in repr(raised.value)


@pytest.mark.parametrize(("provider", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")])
def test_a_missing_key_names_the_variable(provider: str, variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(variable, raising=False)
    spec = RunSpec(dataset_id="d", protocol="rubric-repeat", provider=provider, model="m")
    with pytest.raises(MissingApiKey, match=variable):
        make_client(Store.open("unused.duckdb"), spec, FAST)


def test_simulated_judge_by_content_follows_the_human_score() -> None:
    params = SimulatedParams(position_prob=0.0, noise=0.0)
    for ordering in [(1, 2, 3, 4, 5), (5, 4, 3, 2, 1), (3, 4, 5, 1, 2)]:
        reply = simulated_reply(rubric_call(ordering=ordering, human=3.8), params)
        assert parse_prometheus_score(reply).value == 4 and "simulated" in reply.lower()


def test_simulated_judge_by_position_picks_the_weighted_position() -> None:
    params = SimulatedParams(position_prob=1.0, position_weights=(0, 0, 1, 0, 0))
    for ordering in [(1, 2, 3, 4, 5), (5, 4, 3, 2, 1)]:
        reply = simulated_reply(rubric_call(ordering=ordering), params)
        assert parse_prometheus_score(reply).value == ordering[2]
    first_slot = SimulatedParams(position_prob=1.0, position_weights=(1, 0))
    assert parse_mtbench_verdict(simulated_reply(pair_call(), first_slot)).value == "A"


def test_simulated_judge_is_seeded_and_repetitions_are_independent() -> None:
    params = SimulatedParams(position_prob=0.5, noise=1.0, seed=3)
    first = [simulated_reply(rubric_call(call_id=f"c{i}"), params) for i in range(30)]
    assert first == [simulated_reply(rubric_call(call_id=f"c{i}"), params) for i in range(30)]
    assert len(set(first)) > 1
    other_seed = SimulatedParams(position_prob=0.5, noise=1.0, seed=4)
    assert first != [simulated_reply(rubric_call(call_id=f"c{i}"), other_seed) for i in range(30)]


def test_simulated_pairwise_uses_the_human_label_and_ties() -> None:
    params = SimulatedParams(position_prob=0.0)
    assert parse_mtbench_verdict(simulated_reply(pair_call(preference="y"), params)).value == "B"
    assert parse_mtbench_verdict(simulated_reply(pair_call(preference="tie"), params)).value == "C"
    verbose = SimulatedParams(position_prob=0.0, noise=0.0, verbosity=100.0, tie_margin=0.0)
    assert parse_mtbench_verdict(simulated_reply(pair_call(), verbose)).value == "B"


def test_replay_answers_by_keys_and_says_when_nothing_was_recorded(bundled_db_master: Path) -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="replay", model="gpt-4-0613")
    client = make_client(Store.open(bundled_db_master), spec, FAST)
    recorded = PlannedCall(call_id="x", run_id="r", dataset_id="mtbench", item_id="81", call_kind="pairwise",
                           repetition=1, system="", user="", slots=("vicuna-13b-v1.3", "alpaca-13b"), options=3)
    assert parse_mtbench_verdict(send(client, recorded).text).status == "ok"
    missing = PlannedCall(call_id="y", run_id="r", dataset_id="mtbench", item_id="81", call_kind="pairwise",
                          repetition=2, system="", user="", slots=("vicuna-13b-v1.3", "alpaca-13b"), options=3)
    with pytest.raises(JudgeCallError, match=NO_RECORDING):
        send(client, missing)
    with pytest.raises(InvalidArgument, match="no recorded replies"):
        make_client(Store.open(bundled_db_master), spec.model_copy(update={"model": "not-a-judge"}), FAST)


def test_price_table_override_and_estimates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"my-local-model": [2.0, 4.0]}))
    monkeypatch.setenv("JUDGEBIAS_PRICES", str(table))
    assert price_of("my-local-model").cost(1_000_000, 500_000) == pytest.approx(4.0)
    assert price_of("gpt-4o-mini") is not None and price_of("unknown-model") is None
    estimate = estimate_plan([400, 800], "my-local-model", max_tokens=100, concurrency=2, latency_s=1.0)
    assert estimate.input_tokens == 300 and estimate.output_tokens == 100 and estimate.seconds == 1.0
    assert estimate.cost_usd == pytest.approx((300 * 2 + 100 * 4) / 1e6)


def test_expected_score_from_the_score_tokens_logprobs() -> None:
    import math

    from judgebias_core.judges.geval import expected_score, score_token_logprobs

    tokens = [("Score 5 is not", [("x", 0.0)]), (" it.", []), (" [RESULT]", []),
              (" 4", [(" 4", math.log(0.5)), (" 2", math.log(0.25)), ("9", math.log(0.2)), (" A", -1.0)])]
    logprobs = score_token_logprobs(tokens)
    assert logprobs is not None and set(logprobs) == {" 4", " 2", "9", " A"}
    # 9 is not a level and "A" not a number: P renormalised over {4: 0.5, 2: 0.25}
    assert expected_score(logprobs, (1, 2, 3, 4, 5)) == pytest.approx((4 * 0.5 + 2 * 0.25) / 0.75)
    assert score_token_logprobs([("no number here", [])]) is None and expected_score(None, (1, 2)) is None
