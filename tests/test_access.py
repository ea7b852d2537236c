"""Roles, keys and run limits of a served dashboard (issue 26): the rules in judgebias_core/access.py and
providers/endpoints.py, the run process's environment, and the plan's size counted before it is built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgebias_core.access import (
    RunLimits,
    RunRequest,
    ServingConfig,
    check_run_limits,
    check_runs_at_once,
    decide_access,
    is_loopback,
    limit_problems,
    serving_config,
)
from judgebias_core.engine.background import child_environment
from judgebias_core.errors import InvalidArgument
from judgebias_core.protocols.plan_size import planned_call_count
from judgebias_core.protocols.plans import build_plan
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.providers.endpoints import (
    KEY_ENDPOINTS_VARIABLE,
    NO_KEY,
    TYPED_KEY_VARIABLE,
    normalise_base_url,
    stored_key_allowed,
)
from judgebias_core.providers.keys import api_key
from judgebias_core.store.access_queries import actions_on, record_actions, running_runs_of
from judgebias_core.store.connection import transaction
from judgebias_core.store.handle import Store
from judgebias_core.store.run_queries import set_run_status
from tests.engine_helpers import SECRET

OPERATORS = ServingConfig(operators=("ops@example.org", "sub-42"))
LOGGED_IN = {"is_logged_in": True, "email": "ops@example.org", "sub": "sub-1", "name": "Ops"}


@pytest.mark.parametrize(("address", "loopback"), [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.3.4.5", True), ("0.0.0.0", False),
    ("", False), (None, False), ("10.1.2.3", False), ("judgebias.internal", False), ("::", False)])
def test_only_a_loopback_address_keeps_the_dashboard_local(address: str | None, loopback: bool) -> None:
    assert is_loopback(address) is loopback


def test_the_local_user_is_the_operator_and_every_visitor_of_a_served_dashboard_a_viewer() -> None:
    local = decide_access(ServingConfig(), "127.0.0.1", False, None)
    assert local.is_operator and not local.served and local.actor == "local"
    for served in (decide_access(ServingConfig(), "0.0.0.0", False, None),
                   decide_access(ServingConfig(served=True), "127.0.0.1", False, None),  # behind a reverse proxy
                   decide_access(OPERATORS, "127.0.0.1", True, {"is_logged_in": False})):  # login configured
        assert served.served and not served.is_operator
        assert "view-only" in served.why_viewer() or "log in" in served.why_viewer()
    # Claims count only where login is configured (nothing else can set them).
    assert not decide_access(OPERATORS, "0.0.0.0", False, LOGGED_IN).is_operator


def test_operators_are_listed_by_email_or_subject_id() -> None:
    by_email = decide_access(OPERATORS, "0.0.0.0", True, LOGGED_IN)
    assert by_email.is_operator and by_email.actor == "ops@example.org"
    by_subject = decide_access(OPERATORS, "0.0.0.0", True, {"is_logged_in": True, "sub": "sub-42"})
    assert by_subject.is_operator and by_subject.actor == "sub-42"
    someone = decide_access(OPERATORS, "0.0.0.0", True, {"is_logged_in": True, "email": "guest@example.org"})
    assert not someone.is_operator and "guest@example.org" in someone.why_viewer()


def test_a_wrong_configuration_is_named() -> None:
    assert serving_config(None) == ServingConfig()
    with pytest.raises(InvalidArgument, match=r"\[judgebias\].*max_calls"):
        serving_config({"max_calls": 3})
    with pytest.raises(InvalidArgument, match="limits.max_concurrency"):
        serving_config({"limits": {"max_concurrency": 0}})
    assert serving_config({"limits": {"max_repetitions": 4}}).limits.max_repetitions == 4


def _request(**changes: object) -> RunRequest:
    values: dict[str, object] = {"planned_calls": 100, "repetitions": None, "concurrency": 8, "max_cost_usd": 5.0,
                                 "paid": True} | changes
    return RunRequest(**values)  # type: ignore[arg-type]


def test_limits_a_visitor_cannot_move() -> None:
    limits = RunLimits()
    assert limit_problems(_request(), limits, served=True) == []
    assert limit_problems(_request(planned_calls=1_440_000), limits, served=True)[0].startswith(
        "the plan has 1,440,000 calls")
    assert "repetitions" in limit_problems(_request(repetitions=3000), limits, served=True)[0]
    assert "in flight" in limit_problems(_request(concurrency=256), limits, served=True)[0]
    assert "spending cap" in limit_problems(_request(max_cost_usd=None), limits, served=True)[0]
    assert "above the most" in limit_problems(_request(max_cost_usd=737.0), limits, served=True)[0]
    assert limit_problems(_request(max_cost_usd=None, paid=False), limits, served=True) == []
    # A local dashboard keeps only the plan's size (the server's memory).
    assert limit_problems(_request(concurrency=256, max_cost_usd=None, repetitions=50), limits, served=False) == []
    assert limit_problems(_request(planned_calls=10**6), limits, served=False)
    with pytest.raises(InvalidArgument, match="over the dashboard's limits"):
        check_run_limits(_request(concurrency=100, max_cost_usd=None), limits, served=True)
    check_runs_at_once("ops", 1, 1, limits, served=True)
    with pytest.raises(InvalidArgument, match="at most 2 at once"):
        check_runs_at_once("ops", 1, 12, limits, served=True)
    check_runs_at_once("local", 5, 12, limits, served=False)


def test_a_base_url_is_normalised_and_odd_ones_refused() -> None:
    assert normalise_base_url("HTTPS://API.OpenAI.com:443/v1/") == "https://api.openai.com/v1"
    assert normalise_base_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    for bad in ("file:///etc/passwd", "ftp://x/v1", "http://user:pw@host/v1", "http://host/v1?k=1", "127.0.0.1"):
        with pytest.raises(InvalidArgument):
            normalise_base_url(bad)


def test_a_stored_key_goes_only_to_the_official_or_a_listed_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv(KEY_ENDPOINTS_VARIABLE, raising=False)
    assert api_key("openai", None, None) == SECRET
    assert api_key("openai", None, "https://api.openai.com/v1/") == SECRET
    assert api_key("openai", None, "http://127.0.0.1:9/v1") == NO_KEY
    assert api_key("openai", "sk-typed-for-it", "http://127.0.0.1:9/v1") == "sk-typed-for-it"
    assert not stored_key_allowed("anthropic", "https://api.openai.com/v1")  # one provider's endpoint, not another's
    monkeypatch.setenv(KEY_ENDPOINTS_VARIABLE, "http://127.0.0.1:9/v1/, https://vllm.internal/v1")
    assert api_key("openai", None, "http://127.0.0.1:9/v1") == SECRET
    assert api_key("openai", None, "http://127.0.0.1:10/v1") == NO_KEY


def test_a_judge_at_another_endpoint_is_named_with_it() -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="openai", model="gpt-4o-mini")
    assert spec.judge_name() == "gpt-4o-mini"
    assert spec.model_copy(update={"base_url": "https://api.openai.com/v1"}).judge_name() == "gpt-4o-mini"
    assert spec.model_copy(update={"base_url": "http://10.0.0.5:8000/v1/"}).judge_name() == (
        "gpt-4o-mini@10.0.0.5:8000/v1")
    with pytest.raises(ValueError, match="http:// or https://"):
        RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="openai", model="m", base_url="gopher://x")


def test_the_run_process_gets_only_the_keys_its_endpoint_may_receive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-other-0123456789")
    monkeypatch.delenv(KEY_ENDPOINTS_VARIABLE, raising=False)
    spec = RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="openai", model="gpt-4o-mini")
    official = child_environment(spec)
    assert official["OPENAI_API_KEY"] == SECRET and "ANTHROPIC_API_KEY" not in official
    elsewhere = spec.model_copy(update={"base_url": "http://127.0.0.1:9/v1"})
    env = child_environment(elsewhere, {"OPENAI_API_KEY": "sk-from-secrets-0123456789"}, typed_key="sk-typed-1")
    assert "OPENAI_API_KEY" not in env and env[TYPED_KEY_VARIABLE] == "sk-typed-1"
    listed = child_environment(elsewhere, {"OPENAI_API_KEY": "sk-from-secrets-0123456789"},
                               key_endpoints=["http://127.0.0.1:9/v1"])
    assert listed["OPENAI_API_KEY"] == "sk-from-secrets-0123456789"
    assert listed[KEY_ENDPOINTS_VARIABLE] == "http://127.0.0.1:9/v1"
    assert os.environ["OPENAI_API_KEY"] == SECRET  # this process keeps its own


SPECS = st.builds(
    dict,
    dataset_id=st.sampled_from(["mtbench", "devbench", "autoj", "summeval"]),
    limit_items=st.sampled_from([None, 1, 3, 7]),
    pairs=st.sampled_from(["baseline", "all"]),
    repeats=st.sampled_from([None, 2, 4]),
    listwise_size=st.integers(2, 5),
    orderings=st.sampled_from(["balanced", "reverse", "latin"]),
    candidates=st.sampled_from([None, ("gpt-4",), ("M11", "M22")]),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=SPECS, pairwise=st.sampled_from(["pairwise-swap", "repetition", "listwise"]),
       rubric=st.sampled_from(["rubric-permutation", "rubric-repeat"]))
def test_the_plan_size_is_counted_exactly_before_the_plan_is_built(bundled_db_master: Path, values: dict[str, object],
                                                                   pairwise: str, rubric: str) -> None:
    protocol = rubric if values["dataset_id"] == "summeval" else pairwise
    spec = RunSpec(protocol=protocol, provider="simulated", model="demo-judge", **values)  # type: ignore[arg-type]
    try:
        built = len(Store(bundled_db_master).read(build_plan, spec).calls)
    except InvalidArgument:
        try:
            counted = Store(bundled_db_master).read(planned_call_count, spec)
        except InvalidArgument:
            return  # refused by both, for the same reason
        assert counted == 0  # build_plan refuses a plan without a call
        return
    assert Store(bundled_db_master).read(planned_call_count, spec) == built


def test_a_plan_of_3000_repetitions_is_counted_without_being_built(bundled_db_master: Path) -> None:
    spec = RunSpec(dataset_id="mtbench", protocol="repetition", provider="openai", model="gpt-4o-mini",
                   repeats=3000)
    assert Store(bundled_db_master).read(planned_call_count, spec) == 4_800 * 3000


def test_operator_actions_are_recorded_with_who_did_them(bundled_db: Path) -> None:
    record_actions(Store.open(bundled_db), "ops@example.org", "launch", ["run-a", "run-b"])
    record_actions(Store.open(bundled_db), "ops@example.org", "cancel", ["run-a"])
    record_actions(Store.open(bundled_db), "other@example.org", "upload", ["my-dataset"], "items.csv")
    assert Store(bundled_db).read(actions_on, "run-a")[["actor", "action"]].values.tolist() == [
        ["ops@example.org", "launch"], ["ops@example.org", "cancel"]]
    assert Store(bundled_db).read(actions_on, "my-dataset")["detail"].tolist() == ["items.csv"]
    # runs going at once: the store's running runs whose last launch or resume was this actor's, and launches
    # whose child has not written its run yet (two quick launches both count)
    assert Store(bundled_db).read(running_runs_of, "ops@example.org") == 2
    with transaction(bundled_db) as con:  # a launch whose run never appeared stops counting after a while
        con.execute("UPDATE operator_actions SET acted_at = acted_at - INTERVAL 11 MINUTE")
    assert Store(bundled_db).read(running_runs_of, "ops@example.org") == 0
    for run_id in ("run-a", "run-b"):
        with transaction(bundled_db) as con:
            con.execute("INSERT INTO runs (run_id, dataset_id, study, origin, protocol, provider, status) "
                        "VALUES (?, 'mtbench', ?, 'engine', 'pairwise-swap', 'openai', 'running')", [run_id, run_id])
    assert Store(bundled_db).read(running_runs_of, "ops@example.org") == 2
    assert Store(bundled_db).read(running_runs_of, "ops@example.org", finished=["run-b"]) == 1
    set_run_status(Store.open(bundled_db), "run-a", "complete", finished=True)
    assert Store(bundled_db).read(running_runs_of, "ops@example.org") == 1
    assert Store(bundled_db).read(running_runs_of, "other@example.org") == 0
