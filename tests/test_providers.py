"""The provider registry: the built-ins as they were declared across the code before, and a provider added by
registering one module's worth of declarations (a fake, registered in this test only) reaching the CLI's choices,
the preview, the plan and a finished run without any other edit."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judgebias_core.cli import build_parser, main
from judgebias_core.engine import start_run
from judgebias_core.engine.batch import make_backend, start_batch_run
from judgebias_core.engine.preview import preview_run
from judgebias_core.errors import InvalidArgument, MissingApiKey
from judgebias_core.judges import make_client
from judgebias_core.judges.prices import price_of
from judgebias_core.protocols.plans import build_plan
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import (
    PROVIDERS,
    Capabilities,
    Provider,
    SettingField,
    all_providers,
    batch_provider_names,
    get_provider,
    key_variables,
    provider_names,
    register,
    unregister,
)
from judgebias_core.providers.keys import api_key
from judgebias_core.run_types import JudgeClient, JudgeReply, PlannedCall
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page
from tests.engine_helpers import QUICK, query
from tests.fake_provider import FakeProvider

FAKE = "echo-judge"


class EchoJudge(JudgeClient):
    """Answers every rubric call with the lowest score of its scale, every pair with the first slot."""

    provider = FAKE
    paid = False

    def __init__(self, spec: RunSpec) -> None:
        self.model = spec.model
        self.name = spec.judge_name()

    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        return {"lowest": min(call.scores)} if call.call_kind == "rubric" else {}

    async def send(self, params: dict[str, Any]) -> JudgeReply:
        return JudgeReply(text=f"Feedback: echo. [RESULT] {params['lowest']}" if params else "[[A]]")


def _echo_client(path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings, key: str | None) -> JudgeClient:
    return EchoJudge(spec)


@pytest.fixture
def echo_provider() -> Iterator[Provider]:
    provider = register(Provider(name=FAKE, label="echo (test)", default_models=("echo-1",), key_variable=None,
                                 capabilities=Capabilities(), client=_echo_client, paid=False,
                                 assumed_latency_s=0.5, judge_prefix="echo:", describe=lambda s: f"echo {s.model}"))
    try:
        yield provider
    finally:
        unregister(FAKE)


# What the fake's own setting was given, per spec built (the CLI and the page draw it from the record alone).
_tones: list[object] = []


def _tone_fields(values: Any, seed: int | None) -> dict[str, object]:
    _tones.append(values["tone"])
    return {}


TONED = Provider(name="toned-echo", label="toned echo (test)", default_models=("echo-2",), key_variable=None,
                 capabilities=Capabilities(), client=_echo_client, paid=False, judge_prefix="toned:",
                 settings=(SettingField("tone", "--echo-tone", "Echo tone", "how the echo sounds", "flat",
                                        choices=("flat", "loud")),),
                 settings_title="Echo behaviour", spec_fields=_tone_fields)


def test_a_provider_with_its_own_setting_is_offered_by_the_cli_and_the_new_run_page(
        bundled_db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    _tones.clear()
    with PROVIDERS.registered(TONED):
        with pytest.raises(SystemExit):
            main(["run", "--help"])
        run_help = capsys.readouterr().out  # the fake's option under its own heading
        assert "--provider toned-echo: Echo behaviour" in run_help and "--echo-tone {flat,loud}" in run_help
        assert main(["run", "--dataset", "summeval", "--protocol", "rubric-repeat", "--provider", "toned-echo",
                     "--model", "echo-2", "--limit-items", "1", "--repeats", "2", "--echo-tone", "loud",
                     "--json"]) == 0
        outcome = json.loads(capsys.readouterr().out)
        assert (outcome["status"], outcome["completed"]) == ("complete", 2)
        assert _tones == ["loud"]

        at = open_page("new_run.py")
        picker = next(box for box in at.selectbox if box.label == "Judge provider")
        assert "toned-echo" in picker.options or "toned echo (test)" in picker.options
        picker.set_value("toned-echo").run()
        assert not at.exception
        tone = next(box for box in at.selectbox if box.label == "Echo tone")
        assert tone.value == "flat" and _tones[-1] == "flat"
        tone.set_value("loud").run()
        assert not at.exception and _tones[-1] == "loud"
        assert next(t for t in at.text_input if t.label == "Model(s)").value == "echo-2"
        assert {m.label: m.value for m in at.metric}["Cost"] == "$0.00"
    assert "toned-echo" not in provider_names()


def test_the_built_in_providers_keep_what_was_spread_over_the_code() -> None:
    assert provider_names() == ("simulated", "replay", "openai", "anthropic", "vllm", "ollama", "llamacpp")
    assert batch_provider_names() == ("openai", "anthropic")
    assert key_variables() == {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
    assert [p.name for p in all_providers() if p.paid] == ["openai", "anthropic"]
    assert {p.name: p.default_models[:1] for p in all_providers()} == {
        "simulated": ("demo-judge",), "replay": (), "openai": ("gpt-4o-mini",),
        "anthropic": ("claude-3-5-haiku-latest",), "vllm": ("Qwen/Qwen2.5-7B-Instruct",),
        "ollama": ("llama3.1:8b",), "llamacpp": ("local-model",)}
    assert [p.name for p in all_providers() if p.local] == ["vllm", "ollama", "llamacpp"]
    assert {p.name: p.reply_constraint for p in all_providers() if p.reply_constraint} == {
        "vllm": "choice", "ollama": "json", "llamacpp": "grammar"}
    openai, anthropic = get_provider("openai").capabilities, get_provider("anthropic").capabilities
    assert openai.structured_output and openai.logprobs and not anthropic.structured_output
    assert price_of("gpt-4o-mini") is not None and price_of("claude-3-5-haiku-latest") is not None
    spec = RunSpec(dataset_id="d", protocol="listwise", provider="simulated", model="demo-judge")
    assert spec.judge_name() == "simulated:demo-judge"
    assert spec.model_copy(update={"provider": "openai"}).judge_name() == "demo-judge"


def test_an_unknown_provider_is_refused_with_the_known_ones_named() -> None:
    with pytest.raises(ValueError, match="unknown provider 'nope'; known: simulated, replay, openai, anthropic, vllm"):
        RunSpec(dataset_id="d", protocol="listwise", provider="nope", model="m")
    with pytest.raises(InvalidArgument, match="unknown provider"):
        get_provider("nope")
    with pytest.raises(InvalidArgument, match="registered already"):
        register(get_provider("openai"))


def test_a_provider_declaration_must_be_consistent() -> None:
    with pytest.raises(ValueError, match="batch"):
        Provider(name="x", label="x", default_models=(), key_variable=None, capabilities=Capabilities(batch=True),
                 client=_echo_client, paid=False)
    with pytest.raises(ValueError, match="key variable"):
        Provider(name="x", label="x", default_models=(), key_variable=None, capabilities=Capabilities(),
                 client=_echo_client)


def test_a_registered_provider_reaches_the_cli_the_preview_the_plan_and_a_run(
        echo_provider: Provider, bundled_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parsed = build_parser().parse_args(["run", "--dataset", "summeval", "--protocol", "rubric-repeat",
                                        "--provider", FAKE, "--model", "echo-1"])
    assert parsed.provider == FAKE

    spec = RunSpec(dataset_id="summeval", protocol="rubric-repeat", provider=FAKE, model="echo-1", limit_items=2,
                   repeats=2)
    plan = Store(bundled_db).read(build_plan, spec, None)
    assert len(plan.calls) == 4
    preview = Store(bundled_db).read(preview_run, spec, RunSettings(concurrency=2))
    assert preview.calls == 4 and preview.judge_description == "echo echo-1" and preview.price_known
    assert preview.estimate.cost_usd == 0.0 and preview.estimate.seconds == pytest.approx(4 * 0.5 / 2)

    args = ["--db", str(bundled_db), "run", "--dataset", "summeval", "--protocol", "rubric-repeat", "--provider",
            FAKE, "--model", "echo-1", "--limit-items", "2", "--repeats", "2", "--json"]
    assert main(args) == 0
    outcome = json.loads(capsys.readouterr().out)
    assert (outcome["status"], outcome["planned"], outcome["completed"], outcome["failed"]) == ("complete", 4, 4, 0)
    rows = query(bundled_db, "SELECT DISTINCT judge, score, chosen_position IS NOT NULL FROM judge_calls "
                 "WHERE run_id = ?", [outcome["run_id"]])
    assert rows == [("echo:echo-1", 1, True)]
    assert query(bundled_db, "SELECT provider FROM runs WHERE run_id = ?", [outcome["run_id"]]) == [(FAKE,)]


def test_batch_mode_and_keys_follow_the_declared_capabilities(echo_provider: Provider, bundled_db: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    spec = RunSpec(dataset_id="summeval", protocol="rubric-repeat", provider=FAKE, model="echo-1", limit_items=1)
    with pytest.raises(InvalidArgument, match="batch mode needs provider openai or anthropic, not 'echo-judge'"):
        start_batch_run(Store.open(bundled_db), spec)
    with pytest.raises(InvalidArgument, match="batch mode needs provider"):
        make_backend(spec, RunSettings())
    with pytest.raises(InvalidArgument, match="takes no API key"):
        api_key(FAKE)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingApiKey, match="ANTHROPIC_API_KEY"):
        make_client(Store.open(bundled_db), spec.model_copy(update={"provider": "anthropic"}), RunSettings())
    assert isinstance(make_client(Store.open(bundled_db), spec, RunSettings()), EchoJudge)


def test_a_local_server_preset_needs_no_key_and_defaults_its_endpoint(
        bundled_db: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = RunSpec(dataset_id="summeval", protocol="rubric-repeat", provider="vllm", model="Qwen/Qwen2.5-7B-Instruct",
                   limit_items=1, repeats=2, max_tokens=50)
    assert Store(bundled_db).read(preview_run, spec, RunSettings()).judge_description == (
        "vllm Qwen/Qwen2.5-7B-Instruct at http://localhost:8000/v1")
    assert make_client(Store.open(bundled_db), spec, RunSettings()).describe() == (
        "OpenAI-compatible chat completions (vLLM server (OpenAI-compatible)), model Qwen/Qwen2.5-7B-Instruct at "
        "http://localhost:8000/v1")
    outcome = start_run(Store.open(bundled_db), spec.model_copy(update={"base_url": fake_provider.openai_url}), QUICK)
    assert (outcome.status, outcome.completed, outcome.failed, outcome.cost_usd) == ("complete", 2, 0, 0.0)
    assert fake_provider.requests[-1].headers["authorization"] == "Bearer no-key"
    # served from another endpoint than the preset's, the judge's name carries it (providers/endpoints.py)
    served_at = fake_provider.openai_url.split("://", 1)[1].rstrip("/")
    assert query(bundled_db, "SELECT DISTINCT judge, family FROM judges WHERE judge LIKE 'Qwen/%'") == [
        (f"Qwen/Qwen2.5-7B-Instruct@{served_at}", "alibaba")]
