"""A new user's first hour, in chromium against a running dashboard on a fresh store: open the dashboard, launch a
replay run from New run, follow the link to its analysis, read its verdict, download the report and open the file
offline, where every chart draws with each label inside its chart (the check of test_report_layout_browser).

Screenshots of each step go to tests/artifacts/walkthrough_*.png (git-ignored)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _streamlit_server, _wait_until_idle
from tests.test_report_layout_browser import CHARTS_DRAWN, LABELS, LAYOUT_CHECK

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 180_000
REPORT_TIMEOUT_MS = 300_000


@pytest.fixture(scope="module")
def walkthrough_dashboard(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server on its own writable copy of the first-launch store (the walk-through writes a run)."""
    store = tmp_path_factory.mktemp("walkthrough") / "store.duckdb"
    shutil.copy(bundled_db_master, store)
    with _streamlit_server(store, tmp_path_factory) as url:
        yield url


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"walkthrough_{name}.png"), full_page=True)


def _no_exception(page: Any, where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert not exceptions.count(), f"{where}: {exceptions.first.inner_text()[:500]}"


def _open_offline(browser: Any, report: Path) -> tuple[list[dict[str, Any]], list[str], list[str], str]:
    """The downloaded file in a fresh context with every network request refused: (chart layouts, console
    problems, refused requests, page text)."""
    context = browser.new_context(offline=True, viewport={"width": 1200, "height": 900})
    refused: list[str] = []

    def only_files(route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    context.route("**/*", only_files)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
    page.goto(report.as_uri(), wait_until="load")
    page.wait_for_function(f"() => {CHARTS_DRAWN}", timeout=60_000)
    page.wait_for_timeout(500)  # automargin redraws once after the first paint
    charts = page.evaluate(LAYOUT_CHECK, LABELS)
    text = page.inner_text("body")
    _shot(page, "5_report_offline")
    context.close()
    problems = [m for m in console if "color" in m.lower() or m.startswith(("error", "pageerror"))]
    return charts, problems, refused, text


def test_replay_run_to_offline_report(walkthrough_dashboard: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 2400}, accept_downloads=True)
        page = context.new_page()

        # 1. The dashboard opens on the Overview, with its verdict.
        page.goto(walkthrough_dashboard)
        _wait_until_idle(page)
        _no_exception(page, "Overview")
        assert "In short" in page.locator('[data-testid="stMain"]').inner_text()
        _shot(page, "1_overview")

        # 2. New run, through the sidebar; a replay of recorded replies needs no key.
        page.locator('[data-testid="stSidebarNav"]').get_by_text("New run", exact=True).click()
        _wait_until_idle(page)
        page.get_by_role("combobox", name="Judge provider").click()
        page.get_by_role("option", name="replay recorded real replies").click()
        _wait_until_idle(page)
        main = page.locator('[data-testid="stMain"]')
        assert "Input tokens" not in main.inner_text() and "Time (estimate)" not in main.inner_text()
        _no_exception(page, "New run")
        _shot(page, "2_new_run")
        page.get_by_role("button", name="Launch run").click()

        # 3. The finished run links to its analysis.
        link = page.locator('a:has-text("in Pairwise bias")').first
        link.wait_for(timeout=RUN_TIMEOUT_MS)
        progress = main.inner_text()
        assert "complete" in progress, progress[-800:]
        _shot(page, "3_run_finished")
        target = link.get_attribute("href") or ""
        assert "pw_study=mtbench-pairwise-swap-replay-" in target, target
        run_id = target.split("pw_study=", 1)[1].split("&", 1)[0]
        link.click()

        # 4. Its analysis opens on that run and starts with the verdict.
        page.wait_for_url("**/pairwise_bias?*")
        _wait_until_idle(page)
        _no_exception(page, "Pairwise bias")
        analysis = main.inner_text()
        assert run_id in analysis
        assert "In short" in analysis and "What it does:" in analysis and "What to do:" in analysis
        assert "replay:" in analysis.split("In short", 1)[1].split("What it does:", 1)[0]
        _shot(page, "4_analysis")

        # 5. The report it offers downloads as one HTML file that opens offline, charts and labels intact.
        with page.expect_download(timeout=REPORT_TIMEOUT_MS) as download:
            page.get_by_role("button", name="Report (HTML)").first.click()
        report = tmp_path / download.value.suggested_filename
        download.value.save_as(report)
        context.close()
        assert report.suffix == ".html" and report.stat().st_size > 0
        charts, problems, refused, text = _open_offline(browser, report)
        browser.close()

    assert refused == []
    assert len(charts) >= 4
    assert [(c["id"], c["outside"]) for c in charts if c["outside"]] == []
    assert [(c["id"], c["overlaps"]) for c in charts if c["overlaps"]] == []
    assert problems == []
    assert "replay:gemini-pro" in text
