"""Keys stay with their endpoints, through the New run page (issue 26): a stored key reaches an operator's own base
URL only when that URL is listed in the configuration; an unlisted one gets the key typed for it, or none; the
judge is stored under a name carrying the endpoint. The fake provider on 127.0.0.1 stands for that server."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from judgebias_core.engine import read_progress
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page
from tests.engine_helpers import SECRET, query
from tests.fake_provider import FakeProvider

TYPED = "sk-typed-for-this-server-0123456789"


def _launch_against(fake: FakeProvider, secrets: dict[str, object], typed_key: str | None) -> str:
    at = open_page("new_run.py", secrets=secrets)
    next(b for b in at.selectbox if b.label == "Dataset").set_value("summeval").run()
    next(b for b in at.selectbox if b.label == "Judge provider").set_value("openai").run()
    next(n for n in at.number_input if n.label.startswith("First N items")).set_value(1).run()
    next(t for t in at.text_input if t.label == "Base URL (optional)").set_value(fake.openai_url).run()
    typed = [t for t in at.text_input if t.label.startswith("API key for this base URL")]
    assert bool(typed) == ("judgebias" not in secrets), "the key field shows only for an unlisted base URL"
    if typed_key:
        typed[0].set_value(typed_key).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    next(b for b in at.button if b.label == "Launch run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    run_id = str(at.session_state["active_runs"][0])
    deadline = time.monotonic() + 120
    while (progress := read_progress(Store(_db()), run_id)) is None or progress.status == "running":
        assert time.monotonic() < deadline, "the run did not finish"
        time.sleep(0.3)
    assert progress.status == "complete" and progress.completed == 10, progress
    return run_id


def _db() -> Path:
    import os

    return Path(os.environ["JUDGEBIAS_DB"])


@pytest.mark.parametrize(("listed", "typed_key", "sent"), [
    (False, None, "no-key"),  # an unlisted server gets none of the operator's keys
    (False, TYPED, TYPED),  # ... or the key typed for it in the same form
    (True, None, SECRET),  # a listed server gets the stored key
], ids=["unlisted", "unlisted-with-typed-key", "listed"])
def test_a_stored_key_reaches_a_base_url_only_when_it_is_listed(
        bundled_db: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch, listed: bool,
        typed_key: str | None, sent: str) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    secrets: dict[str, object] = {"judgebias": {"key_endpoints": [fake_provider.openai_url]}} if listed else {}
    run_id = _launch_against(fake_provider, secrets, typed_key)
    keys = {r.headers.get("authorization") for r in fake_provider.requests}
    assert keys == {f"Bearer {sent}"}
    # served from its own endpoint, the judge can never pose as OpenAI's gpt-4o-mini
    endpoint = fake_provider.openai_url.split("://", 1)[1].rstrip("/")
    assert query(bundled_db, "SELECT DISTINCT judge FROM judge_calls WHERE run_id = ?", [run_id]) == [
        (f"gpt-4o-mini@{endpoint}",)]
    # the local operator's launch is recorded
    assert query(bundled_db, "SELECT actor, action FROM operator_actions WHERE target = ?", [run_id]) == [
        ("local", "launch")]
    # no key ever lands in the store
    assert not query(bundled_db, "SELECT count(*) FROM judge_calls WHERE prompt LIKE ? OR raw_output LIKE ?",
                     [f"%{SECRET}%", f"%{SECRET}%"])[0][0]


def test_a_served_dashboard_without_login_is_view_only_and_says_how_to_change_it(
        app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = open_page("new_run.py", secrets={"judgebias": {"served": True}})
    assert not at.exception
    assert any("Launching a run is for operators" in i.value for i in at.info)
    assert not [b for b in at.button if b.label.startswith("Launch")]
    assert any("View-only" in w.value for w in at.sidebar.warning)
    assert any("server_metadata_url" in c.value and "operators" in c.value for c in at.sidebar.code)


def test_a_wrong_judgebias_section_is_named_and_the_defaults_hold(app_env: Path) -> None:
    at = open_page(None, secrets={"judgebias": {"operators": ["a@b.org"], "max_calls": 5}})
    assert not at.exception
    errors = [e.value for e in at.sidebar.error]
    assert any("max\\_calls" in e and "judgebias" in e for e in errors), errors  # escaped markdown
