"""Real browser: Debian's chromium (Playwright) opens every page of the running dashboard.

Fails on any exception box; saves a screenshot per page under tests/artifacts/.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from judgebias_core.store.handle import Store
from tests.app_helpers import PROJECT_ROOT
from ui.navigation import PAGES

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
ARTIFACTS = PROJECT_ROOT / "tests" / "artifacts"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _page_files() -> list[tuple[str, str]]:
    """(url path, file) of every page app.py shows, in navigation order."""
    return [(page.url_path, page.file) for page in PAGES]


@contextlib.contextmanager
def _streamlit_server(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory, address: str = "127.0.0.1",
                      extra_args: tuple[str, ...] = (), extra_env: dict[str, str] | None = None,
                      port: int | None = None) -> Iterator[str]:
    """``streamlit run app.py`` on ``address`` (the tests always connect through 127.0.0.1, also to a server
    listening on every interface)."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is not installed (scripts/test.sh installs it)")
    port = port or _free_port()
    env = {**os.environ, "JUDGEBIAS_DB": str(bundled_db_master), **(extra_env or {})}
    log = (tmp_path_factory.mktemp("streamlit") / "streamlit.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
         address, "--server.headless", "true", *extra_args],
        cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        server.kill()
        pytest.fail("streamlit did not start")
    try:
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


@pytest.fixture(scope="module")
def dashboard(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server per test module and xdist worker, shared by the page tests."""
    with _streamlit_server(bundled_db_master, tmp_path_factory) as url:
        yield url


@pytest.fixture
def fresh_dashboard(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A newly started server that has answered nothing but its health check."""
    with _streamlit_server(bundled_db_master, tmp_path_factory) as url:
        yield url


@pytest.fixture(scope="module")
def browser_page() -> Iterator[object]:
    """One chromium tab per module and worker (a page test navigates it to its page)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser.new_page(viewport={"width": 1400, "height": 3600})
        browser.close()


def _wait_until_idle(page: object, timeout_ms: int = 90_000) -> None:
    """Wait until the script run finished: the main block is rendered and no 'running' status is shown."""
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=timeout_ms)  # type: ignore[attr-defined]
    # The app root carries the script state; wait for the run to finish (it may rerun once on first load).
    for _ in range(2):  # a page may rerun once right after its first render (widgets bound to the URL)
        page.wait_for_selector(  # type: ignore[attr-defined]
            '[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms
        )
        page.wait_for_timeout(700)  # type: ignore[attr-defined]
    # Visible plotly charts have drawn their SVG before the screenshot is taken (charts in closed tabs or
    # expanders draw only when opened, so this wait is best effort; the exception check is the assertion).
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(  # type: ignore[attr-defined]
            """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
                       .filter(chart => chart.offsetParent !== null)
                       .every(chart => chart.querySelector('.main-svg'))""",
            timeout=30_000,
        )
    page.wait_for_timeout(500)  # type: ignore[attr-defined]


def test_a_permalink_opened_first_on_a_fresh_server_keeps_the_app_shell_and_filters(fresh_dashboard: str) -> None:
    """A shared link can be the very first request a newly started server sees (see ui/navigation.py)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1400})
        page.goto(f"{fresh_dashboard}/pairwise_bias?pw_dataset=devbench&pw_study=repetition")
        _wait_until_idle(page)
        sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
        assert "judgebias" in sidebar and "Position bias" in sidebar, sidebar[:300]
        # The sidebar lists page titles only, never raw file names (Streamlit's legacy pages/ mode did).
        assert all(page.title in sidebar for page in PAGES), sidebar[:500]
        assert ".py" not in sidebar and "app_pages" not in sidebar and "pairwise_bias" not in sidebar
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert "Pairwise bias" in main
        assert "devbench" in main and "repetition" in main
        assert not page.locator('[data-testid="stException"]').count()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "permalink_first_request.png"))
        browser.close()


@pytest.mark.parametrize(("url_path", "file_name"), _page_files(), ids=[f for _, f in _page_files()])
def test_every_page_renders_without_an_exception(dashboard: str, browser_page: Any, url_path: str,
                                                 file_name: str) -> None:
    """Each page, opened in chromium, renders with no exception box; its screenshot lands in tests/artifacts."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser_page.goto(f"{dashboard}/{url_path}")
    _wait_until_idle(browser_page)
    exceptions = browser_page.locator('[data-testid="stException"]')
    problem = exceptions.first.inner_text()[:500] if exceptions.count() else ""
    browser_page.screenshot(path=str(ARTIFACTS / f"page_{file_name.removesuffix('.py')}.png"), full_page=True)
    assert not problem, f"{file_name}: {problem}"


# Plain words first (issue 24): every verdict line a page shows, outside its "How this was decided" fold, and the
# report's "In short" read without one statistical term of judgebias_core.plain_words.TERMS.
VERDICT_HEADINGS = ("What it does", "What they do", "What it shows", "How sure we are", "What to do",
                    "Against the experts", "Separation")
_VERDICT_LINES_JS = """(headings) => [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .filter(el => !el.closest('[data-testid="stExpander"]') && !el.closest('details'))
    .map(el => el.innerText.trim())
    .filter(text => headings.some(h => text.startsWith(h + ':')))"""
# Pages opened beyond their defaults, so that every kind of verdict is read (rubric and simulated calibration).
PLAIN_WORD_EXTRAS = ("calibration?cal_dataset=summeval", "calibration?cal_dataset=autoj")


def _plain_word_targets() -> list[str]:
    return [path for path, _ in _page_files()] + list(PLAIN_WORD_EXTRAS)


@pytest.mark.parametrize("url_path", _plain_word_targets())
def test_verdict_lines_on_every_page_speak_plainly(dashboard: str, browser_page: Any, url_path: str) -> None:
    from judgebias_core.plain_words import first_sentences, terms_in

    browser_page.goto(f"{dashboard}/{url_path}")
    _wait_until_idle(browser_page)
    lines = browser_page.evaluate(_VERDICT_LINES_JS, list(VERDICT_HEADINGS))
    found = [f"{term} in {line!r}" for line in lines for term in terms_in(first_sentences(line, 2))]
    # Chart titles too (the drawn ones: charts in closed tabs or expanders have not drawn theirs).
    titles = browser_page.evaluate("() => [...document.querySelectorAll('.gtitle')].map(t => t.textContent)")
    found += [f"chart title: {term} in {title!r}" for title in titles for term in terms_in(title)]
    assert not found, f"{url_path or 'overview'}:\n" + "\n".join(found)
    if url_path in ("pairwise_bias", *PLAIN_WORD_EXTRAS):  # pages that always open on a verdict
        assert lines, f"{url_path}: no verdict line found"
        folds = browser_page.locator('[data-testid="stExpander"]').filter(has_text="How this was decided")
        assert folds.count() >= 1


@pytest.mark.parametrize("dataset", ["mtbench", "summeval"])
def test_report_in_short_speaks_plainly(bundled_db_master: Path, browser_page: Any, tmp_path: Path,
                                        dataset: str) -> None:
    from judgebias_core.plain_words import first_sentences, terms_in
    from judgebias_core.report import ReportRequest, write_report

    out = write_report(Store.open(bundled_db_master), ReportRequest(dataset), tmp_path / f"{dataset}.html")
    browser_page.goto(out.as_uri())
    browser_page.wait_for_selector("#summary")
    lines = browser_page.evaluate("""() => [...document.querySelectorAll(
        '#summary .summary li, #summary .verdict > p')].map(el => el.innerText.trim())""")
    assert len(lines) > 3
    found = [f"{term} in {line!r}" for line in lines for term in terms_in(first_sentences(line, 2))]
    assert not found, f"{dataset}:\n" + "\n".join(found)
    # The rules are there for engineers, folded.
    assert browser_page.locator("#summary details.decided").count() >= 1
    assert not browser_page.locator("#summary details.decided").first.evaluate("el => el.open")
