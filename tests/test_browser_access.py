"""Serving the dashboard to a team (issue 26), in chromium against ``streamlit run``:

1. served on every interface (0.0.0.0; the test connects through 127.0.0.1) with the operator's key in its
   environment and no login configured: an anonymous visitor reads but cannot launch, upload, cancel or resume, the
   sidebar says why with the configuration that changes it, and a loopback listener standing for a visitor's server
   receives no request carrying the key;
2. with login configured: an operator logs in through a real OpenID Connect flow against a small identity provider
   on 127.0.0.1 (tests/oidc_provider.py, Authlib's server side), launches a replay run, and the run carries the
   operator's identity.

Screenshots go to tests/artifacts/access_*.png.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judgebias_core.engine import read_progress, request_cancel
from judgebias_core.engine.background import launch_background
from judgebias_core.engine.launch import start_run
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.store.handle import Store
from judgebias_core.store.run_queries import set_run_status
from tests.engine_helpers import SECRET, query, rubric_spec
from tests.fake_provider import FakeProvider
from tests.oidc_provider import IdentityProvider, Person
from tests.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _free_port, _streamlit_server, _wait_until_idle

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 180_000
OPERATOR = Person(subject="op-7f3a", email="operator@example.org", name="Olga Operator")
TEAMMATE = Person(subject="tm-1b2c", email="teammate@example.org", name="Tom Teammate")


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"access_{name}.png"), full_page=True)


def _no_exception(page: Any, where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert not exceptions.count(), f"{where}: {exceptions.first.inner_text()[:500]}"


def _open(page: Any, url: str) -> str:
    page.goto(url)
    _wait_until_idle(page)
    _no_exception(page, url)
    return str(page.locator('[data-testid="stMain"]').inner_text())


def _pick(page: Any, label: str, option: str) -> None:
    page.get_by_role("combobox", name=label).click()
    page.keyboard.type(option)  # the list is filtered (and long lists are virtualised)
    page.get_by_role("option", name=option, exact=True).click()
    _wait_until_idle(page)


@pytest.fixture
def store(bundled_db_master: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "store.duckdb"
    shutil.copy(bundled_db_master, copy)
    return copy


def test_an_anonymous_visitor_of_a_served_dashboard_reads_but_cannot_spend_write_or_cancel(
        store: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # the operator's key, in the served dashboard's environment
    # A cancelled run a visitor might resume, and a run still going (slow replies) a visitor might cancel.
    cancelled = start_run(Store.open(store), RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="simulated",
                                         model="demo-judge", limit_items=2), RunSettings(), run_id="cancelled-run")
    set_run_status(Store.open(store), cancelled.run_id, "cancelled", finished=True)
    with FakeProvider(latency_s=2.0) as operators_server, FakeProvider() as visitors_server:
        going = rubric_spec(operators_server, "gpt-4o-mini", limit_items=10)  # 100 calls, one at a time
        launch_background(Store.open(store), going, RunSettings(concurrency=1), "running-run", {"OPENAI_API_KEY": SECRET})
        try:
            with _streamlit_server(store, tmp_path_factory, address="0.0.0.0") as url, \
                    sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 2400})

                # Every analysis page reads as before; the sidebar says the dashboard is view-only and how to change it.
                overview = _open(page, url)
                assert "In short" in overview
                sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
                assert "View-only" in sidebar and "served without a login" in sidebar, sidebar
                assert "server_metadata_url" in sidebar and "operators" in sidebar, sidebar
                _shot(page, "1_sidebar_view_only")

                # Runs: no Resume on the cancelled run, no Cancel on the running one.
                _open(page, f"{url}/runs")
                _pick(page, "Open run", "cancelled-run")
                runs = page.locator('[data-testid="stMain"]').inner_text()
                assert "Resuming a run is for operators" in runs, runs[-1500:]
                assert not page.get_by_role("button", name="Resume run").count()
                _pick(page, "Open run", "running-run")
                page.get_by_text("Cancelling a run is for operators.").wait_for(timeout=30_000)
                assert read_progress(Store(store), "running-run").status == "running"  # type: ignore[union-attr]
                assert not page.get_by_role("button", name="Cancel run").count()
                _shot(page, "2_runs_view_only")

                assert "Pairwise bias" in _open(page, f"{url}/pairwise_bias")

                # New run: the launch form is not there, a line says why and how an operator logs in.
                new_run = _open(page, f"{url}/new_run")
                assert "Launching a run is for operators" in new_run and "OpenID Connect" in new_run, new_run
                assert not page.get_by_role("button", name="Launch run").count()
                assert not page.get_by_role("textbox", name="Base URL (optional)").count()
                _shot(page, "3_new_run_view_only")

                # Data: the Upload tab holds no file picker.
                _open(page, f"{url}/data")
                page.get_by_role("tab", name="Upload").click()
                _wait_until_idle(page)
                main = page.locator('[data-testid="stMain"]').inner_text()
                assert "Uploading datasets, judge logs and rubrics is for operators" in main, main[-1500:]
                assert not page.locator('[data-testid="stFileUploader"]').count()
                assert not page.get_by_role("button", name="Write to the store").count()
                _shot(page, "4_upload_view_only")

                browser.close()
        finally:
            request_cancel(Store(store), "running-run")
            deadline = time.monotonic() + 60
            while (progress := read_progress(Store(store), "running-run")) and progress.status == "running":
                assert time.monotonic() < deadline, "the background run did not stop"
                time.sleep(0.5)
        # The visitor's server was never sent the operator's key (nor anything else); the run still going reached
        # only the operator's own server.
        assert not any(SECRET in value for r in visitors_server.requests for value in r.headers.values())
        assert visitors_server.request_count == 0
        assert operators_server.request_count > 0
    assert query(store, "SELECT status FROM runs WHERE run_id = 'cancelled-run'") == [("cancelled",)]


def _secrets_file(folder: Path, port: int, idp: IdentityProvider) -> Path:
    path = folder / "secrets.toml"
    path.write_text(f'''
[auth]
redirect_uri = "http://127.0.0.1:{port}/oauth2callback"
cookie_secret = "a-test-cookie-secret-of-some-length-0123456789"
client_id = "{idp.client.client_id}"
client_secret = "{idp.client.client_secret}"
server_metadata_url = "{idp.metadata_url}"

[judgebias]
operators = ["{OPERATOR.email}"]
''', encoding="utf-8")
    return path


@pytest.fixture
def identity_provider() -> Iterator[tuple[IdentityProvider, int]]:
    port = _free_port()
    with IdentityProvider([OPERATOR, TEAMMATE], "judgebias-dashboard", "client-secret-for-the-test",
                          f"http://127.0.0.1:{port}/oauth2callback") as idp:
        yield idp, port


def _log_in(page: Any, idp: IdentityProvider, who: Person) -> str:
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{idp.issuer}/authorize?*", timeout=30_000)
    page.fill("#email", who.email)
    page.click("#sign-in")
    page.wait_for_url("http://127.0.0.1:*/", timeout=30_000)
    _wait_until_idle(page)
    return str(page.locator('[data-testid="stSidebar"]').inner_text())


def test_an_operator_logs_in_through_openid_connect_and_the_run_carries_their_identity(
        store: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
        identity_provider: tuple[IdentityProvider, int]) -> None:
    from playwright.sync_api import sync_playwright

    idp, port = identity_provider
    secrets = _secrets_file(tmp_path, port, idp)
    with _streamlit_server(store, tmp_path_factory, port=port, extra_args=("--secrets.files", str(secrets))) as url, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

        # A teammate who is not on the operators list logs in and still only reads.
        teammate = browser.new_context(viewport={"width": 1400, "height": 2400}).new_page()
        _open(teammate, url)
        assert "View-only until an operator logs in" in teammate.locator('[data-testid="stSidebar"]').inner_text()
        sidebar = _log_in(teammate, idp, TEAMMATE)
        assert f"Logged in as {TEAMMATE.email}" in sidebar and "viewer" in sidebar, sidebar
        assert "is not on the operators list" in _open(teammate, f"{url}/new_run")
        assert not teammate.get_by_role("button", name="Launch run").count()

        # The operator logs in, launches a replay run, and is recorded on it.
        page = browser.new_context(viewport={"width": 1400, "height": 2400}).new_page()
        _open(page, url)
        sidebar = _log_in(page, idp, OPERATOR)
        assert f"Logged in as {OPERATOR.email} · operator" in sidebar, sidebar
        _shot(page, "5_operator_logged_in")
        _open(page, f"{url}/new_run")
        _pick(page, "Judge provider", "replay recorded real replies")
        _no_exception(page, "New run")
        page.get_by_role("button", name="Launch run").click()
        page.locator('a:has-text("in Pairwise bias")').first.wait_for(timeout=RUN_TIMEOUT_MS)
        _shot(page, "6_operator_run_finished")
        runs = query(store, "SELECT run_id, status FROM runs WHERE provider = 'replay'")
        assert len(runs) == 1 and runs[0][1] == "complete", runs
        run_id = str(runs[0][0])
        assert query(store, "SELECT actor, action FROM operator_actions WHERE target = ?", [run_id]) == [
            (OPERATOR.email, "launch")]

        # The Runs page shows who launched it.
        _open(page, f"{url}/runs")
        _pick(page, "Open run", run_id)
        assert f"launch by {OPERATOR.email}" in page.locator('[data-testid="stMain"]').inner_text()
        _shot(page, "7_run_launched_by")
        browser.close()
    assert idp.logins == [TEAMMATE.email, OPERATOR.email]
