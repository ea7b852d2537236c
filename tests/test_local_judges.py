"""Local OpenAI-compatible judges against the fake provider: the request fields that reach the server
(llama.cpp grammar, vLLM guided choice, Ollama JSON schema, --extra-body), local defaults, per-attempt latency,
--limit-candidates, the G-Eval parser and Bias Cost with nothing to recommend."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from judgebias_core.cli import main
from judgebias_core.engine import start_run
from judgebias_core.errors import InvalidArgument
from judgebias_core.judges.constraints import gbnf
from judgebias_core.judges.geval import score_token_logprobs
from judgebias_core.metrics.bias_cost_bootstrap import bias_cost_ranking
from judgebias_core.metrics.rubric import ScorePositionTable
from judgebias_core.protocols.plan_size import planned_call_count
from judgebias_core.protocols.plans import build_plan
from judgebias_core.protocols.spec import LOCAL_TIMEOUT_S, RunSettings, RunSpec, run_spec
from judgebias_core.providers.endpoints import endpoint_label
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page
from tests.engine_helpers import QUICK, calls_of, rubric_spec
from tests.fake_provider import FakeProvider, Fault

RUBRIC_GRAMMAR = 'root ::= "[RESULT] 1" | "[RESULT] 2" | "[RESULT] 3" | "[RESULT] 4" | "[RESULT] 5"'


@pytest.fixture(scope="module")
def local_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("local") / "local.duckdb"
    shutil.copy(bundled_db_master, path)
    return path


def local_spec(fake: FakeProvider, model: str, provider: str = "llamacpp", **changes: object) -> RunSpec:
    return rubric_spec(fake, model, provider=provider, **({"base_url": fake.openai_url} | changes))


def chat_bodies(fake: FakeProvider) -> list[dict[str, object]]:
    return [r.body for r in fake.requests if r.path == "/v1/chat/completions"]


def test_llamacpp_run_sends_the_grammar_and_extra_body_on_every_request(local_db: Path,
                                                                        fake_provider: FakeProvider) -> None:
    spec = local_spec(fake_provider, "smollm2", provider="llamacpp", constrain_reply=True,
                       extra_body='{"top_k": 1, "cache_prompt": false}')
    outcome = start_run(Store.open(local_db), spec, QUICK, run_id="t-grammar")
    assert (outcome.planned, outcome.completed, outcome.parse_failures) == (20, 20, 0)
    bodies = chat_bodies(fake_provider)
    assert len(bodies) == 20
    assert {b["grammar"] for b in bodies} == {RUBRIC_GRAMMAR}
    assert all(b["top_k"] == 1 and b["cache_prompt"] is False for b in bodies)
    calls = calls_of(local_db, "t-grammar")
    assert set(calls["judge"]) == {f"smollm2@{endpoint_label(fake_provider.openai_url)}"}
    assert calls["cost_usd"].isna().all()  # a local server's cost is unknown until the operator prices it


def test_an_unpriced_model_costs_unknown_never_zero(local_db: Path, fake_provider: FakeProvider,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unpriced0123456789")
    monkeypatch.setenv("JUDGEBIAS_DB", str(local_db))
    args = ["--db", str(local_db), "run", "--dataset", "summeval", "--protocol", "rubric-permutation",
            "--provider", "openai", "--model", "no-such-model", "--base-url", fake_provider.openai_url,
            "--limit-items", "1", "--concurrency", "2"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "cost unknown (10 replies of a model without a price" in captured.out and "$0.0000" not in captured.out
    run_id = next(r for r in _runs_json(local_db, capsys) if r["model"] == "no-such-model")
    assert (run_id["cost_usd"], run_id["unpriced_calls"], run_id["completed"]) == (None, 10, 10)
    assert calls_of(local_db, run_id["run_id"])["cost_usd"].isna().all()
    at = open_page("runs.py")
    shown = at.dataframe[0].value.set_index("run_id").loc[run_id["run_id"]]
    assert shown["cost"] == "unknown"
    priced_args = [a if a != "no-such-model" else "another-model" for a in args]  # not from the response cache
    assert main([*priced_args, "--price-per-mtok", "1,2", "--json"]) == 0
    priced = json.loads(capsys.readouterr().out)
    assert priced["unpriced_calls"] == 0 and priced["cost_usd"] > 0
    assert main(["--db", str(local_db), "run", "--dataset", "summeval", "--protocol", "rubric-permutation",
                 "--provider", "llamacpp", "--model", "free", "--base-url", fake_provider.openai_url,
                 "--limit-items", "1", "--price-per-mtok", "0,0", "--json"]) == 0
    free = json.loads(capsys.readouterr().out)
    assert (free["cost_usd"], free["unpriced_calls"]) == (0.0, 0)


def _runs_json(db: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    assert main(["--db", str(db), "runs", "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_run_extra_body_from_the_cli_reaches_the_server(local_db: Path, fake_provider: FakeProvider,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    grammar = 'root ::= "[[" [AB] "]]"'
    assert main(["--db", str(local_db), "run", "--dataset", "mtbench", "--protocol", "pairwise-swap",
                 "--provider", "llamacpp", "--model", "m", "--base-url", fake_provider.openai_url, "--options", "2",
                 "--limit-items", "2", "--limit-candidates", "1", "--extra-body", json.dumps({"grammar": grammar}),
                 "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["planned"] == 4 and outcome["completed"] == 4
    assert [b["grammar"] for b in chat_bodies(fake_provider)] == [grammar] * 4


def test_vllm_swap_run_sends_guided_choice_and_limit_candidates_keeps_it_small(local_db: Path,
                                                                                fake_provider: FakeProvider) -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="vllm", model="qwen",
                   base_url=fake_provider.openai_url, limit_items=2, limit_candidates=1, constrain_reply=True)
    assert Store(local_db).read(planned_call_count, spec) == 4 == len(Store(local_db).read(build_plan, spec).calls)
    unlimited = spec.model_copy(update={"limit_candidates": None})
    assert Store(local_db).read(planned_call_count, unlimited) == len(Store(local_db).read(build_plan, unlimited).calls) > 4
    outcome = start_run(Store.open(local_db), spec, QUICK, run_id="t-guided")
    assert (outcome.completed, outcome.parse_failures) == (4, 0)
    assert [b["guided_choice"] for b in chat_bodies(fake_provider)] == [["[[A]]", "[[B]]", "[[C]]"]] * 4
    calls = calls_of(local_db, "t-guided")
    assert len({c for pair in calls["slots"] for c in pair}) == 2  # the baseline and one other candidate


def test_ollama_constraint_is_a_json_schema_with_the_score_first(local_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.reply_with(lambda prompt, body: '{"score": 3, "feedback": "fine"}')
    spec = local_spec(fake_provider, "llama3.1:8b", provider="ollama", constrain_reply=True, limit_items=1)
    outcome = start_run(Store.open(local_db), spec, QUICK, run_id="t-ollama")
    assert (outcome.completed, outcome.parse_failures) == (10, 0)
    body = chat_bodies(fake_provider)[0]
    schema = body["response_format"]["json_schema"]["schema"]  # type: ignore[index]
    assert list(schema["properties"]) == ["score", "feedback"] and "grammar" not in body
    assert set(calls_of(local_db, "t-ollama")["score"]) == {3}


def test_constraints_refused_where_the_server_kind_is_unknown(local_db: Path, fake_provider: FakeProvider) -> None:
    with pytest.raises(InvalidArgument, match="--constrain-reply is offered for the providers vllm, ollama"):
        Store(local_db).read(build_plan, rubric_spec(fake_provider, "gpt-4o-mini", constrain_reply=True))
    with pytest.raises(InvalidArgument, match="custom --template"):
        Store(local_db).read(build_plan, local_spec(fake_provider, "m", provider="llamacpp", constrain_reply=True,
                                         template_text="Score it. {{response}}"))
    with pytest.raises(InvalidArgument, match="for pairwise runs"):
        Store(local_db).read(build_plan, local_spec(fake_provider, "m", provider="llamacpp", limit_candidates=1))


@pytest.mark.parametrize(("text", "message"), [("{not json", "not JSON"), ("[1, 2]", "must be a JSON object"),
                                               ('{"messages": []}', "may not set messages")])
def test_extra_body_must_be_a_json_object_of_other_fields(text: str, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        run_spec(dataset_id="summeval", protocol="rubric-permutation", provider="llamacpp", model="m",
                 extra_body=text)


def test_new_fields_at_their_defaults_leave_earlier_run_ids_alone() -> None:
    spec = RunSpec(dataset_id="summeval", protocol="rubric-permutation", provider="openai", model="gpt-4o-mini")
    earlier = {k: v for k, v in spec.model_dump(mode="json").items()
               if k not in ("extra_body", "constrain_reply", "limit_candidates")}
    assert spec.fingerprint() == hashlib.sha256(json.dumps(earlier, sort_keys=True).encode()).hexdigest()[:8]
    assert spec.model_copy(update={"constrain_reply": True}).fingerprint() != spec.fingerprint()


def test_gbnf_grammar_lists_exactly_the_answers() -> None:
    assert gbnf(["[[A]]", "[[B]]"]) == 'root ::= "[[A]]" | "[[B]]"'


def test_local_providers_default_to_one_call_a_long_timeout_and_no_sdk_retries() -> None:
    local = RunSettings.for_provider("llamacpp")
    assert (local.concurrency, local.timeout_s, local.sdk_max_retries, local.retry_timeouts) == (
        1, LOCAL_TIMEOUT_S, 0, False)
    assert RunSettings.for_provider("llamacpp", concurrency=3, timeout_s=None).concurrency == 3
    assert RunSettings.for_provider("openai") == RunSettings()


def test_a_timed_out_request_to_a_local_server_is_not_sent_again(local_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.inject(Fault("timeout", delay_s=1.5))
    settings = RunSettings.for_provider("llamacpp", timeout_s=0.4, backoff_base_s=0.01, flush_interval_s=0.2)
    spec = local_spec(fake_provider, "m-timeout", provider="llamacpp", limit_items=1)
    outcome = start_run(Store.open(local_db), spec, settings, run_id="t-local-timeout")
    assert (outcome.planned, outcome.failed, fake_provider.request_count) == (10, 1, 10)
    assert "Timeout" in calls_of(local_db, "t-local-timeout")["error"].dropna().iloc[0]


def test_latency_is_one_attempts_not_the_retries_before_it(local_db: Path, fake_provider: FakeProvider) -> None:
    fake_provider.inject(Fault("500"))
    settings = QUICK.model_copy(update={"concurrency": 1, "backoff_base_s": 0.6})  # >= 0.3 s between attempts
    outcome = start_run(Store.open(local_db), local_spec(fake_provider, "m-latency", provider="llamacpp", limit_items=1),
                        settings, run_id="t-latency")
    assert outcome.completed == 10 and fake_provider.request_count == 11
    assert calls_of(local_db, "t-latency")["latency_ms"].max() < 250


def test_geval_without_a_score_marker_has_no_expected_score() -> None:
    tokens = [("Scores", []), (" between", []), (" 1", [(" 1", -0.1)]), (" and", []), (" 5", [(" 5", -0.1)])]
    assert score_token_logprobs(tokens) is None
    assert score_token_logprobs([*tokens, (" [RESULT]", []), (" 4", [(" 4", -0.2)])]) == {" 4": -0.2}


def _table(counts: np.ndarray) -> ScorePositionTable:
    total = counts.sum(axis=0)
    rows = tuple(tuple(float(x) / row.sum() for x in row) if row.sum() else None for row in total)
    return ScorePositionTable((1, 2, 3), tuple(tuple(int(x) for x in row) for row in total), rows)


def test_bias_cost_lists_nothing_without_parsed_trials_and_recommends_nothing_for_a_constant_judge() -> None:
    candidates = [(1, 2, 3), (3, 2, 1), (2, 3, 1)]
    empty = np.zeros((2, 3, 3), dtype=int)
    nothing = bias_cost_ranking(_table(empty), empty, candidates, resamples=50, seed=1)
    assert (nothing.defined, nothing.ranking, nothing.recommended) == (False, (), None)
    constant = np.zeros((2, 3, 3), dtype=int)
    constant[0, 0] = (1, 1, 1)  # item 1: score 1 at every position it was shown
    constant[1, 1] = (0, 2, 1)  # item 2: score 2, wherever it stood
    same = bias_cost_ranking(_table(constant), constant, candidates, resamples=50, seed=1)
    assert not same.defined and same.recommended is None and "same score whatever the ordering" in str(same.reason)
