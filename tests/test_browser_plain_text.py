"""Real browser: text from a dataset, judge or run that carries markdown, an image and bare links shows as plain text
on every page - no link and no image made from it, and the image's address is never requested.

The store holds one small pairwise dataset (tests/hostile_store.py) whose names, run id, questions, answers and
replies carry a markdown image and link pointing at a loopback listener, a bare URL, a www. address and an e-mail.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgebias_core.store.schema import migrate
from tests.hostile_store import HostileNames, build_hostile_store
from tests.test_browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    _page_files,
    _streamlit_server,
    _wait_until_idle,
)

pytestmark = pytest.mark.browser

ATTACKER = "judgebias-attacker.example"


class _Listener(http.server.BaseHTTPRequestHandler):
    """Stands for the attacker's server: records every request (an image beacon, a followed link)."""

    requests: list[str] = []

    def do_GET(self) -> None:
        self.requests.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def beacon() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Listener)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _markdown_names(beacon: str) -> HostileNames:
    text = (f"**bold** ![beacon]({beacon}/image.png) [click]({beacon}/link) {beacon}/bare www.{ATTACKER} "
            f"me@{ATTACKER}")
    return HostileNames(
        dataset_id="md-hostile", judge=f"judge ![j]({beacon}/judge.png) www.{ATTACKER}",
        candidate=f"cand [c]({beacon}/cand) me@{ATTACKER}", task=f"# task {beacon}/task",
        run_id=f"run-![r]({beacon}/run.png)-www.{ATTACKER}", text=text, markup=f"answer {text}")


@pytest.fixture(scope="module")
def dashboard(beacon: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("markdown") / "store.duckdb"
    migrate(store)
    build_hostile_store(store, _markdown_names(beacon))
    with _streamlit_server(store, tmp_path_factory) as url:
        yield url


def test_hostile_text_is_plain_on_every_page(dashboard: str, beacon: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            shown_on = _check_every_page(browser.new_page(viewport={"width": 1400, "height": 3600}), dashboard, beacon)
        finally:
            browser.close()
    assert not _Listener.requests, _Listener.requests  # no image beacon loaded, no link followed
    # The hostile text is shown (as text), so the checks looked at it.
    assert {"data.py", "runs.py", "pairwise_bias.py"} <= set(shown_on), shown_on


def _check_every_page(page: object, dashboard: str, beacon: str) -> list[str]:
    """Each page: no link or image from the hostile text, no exception; returns the pages that show that text."""
    shown_on: list[str] = []
    for url_path, file in _page_files():
        page.goto(f"{dashboard}/{url_path}")  # type: ignore[attr-defined]
        _wait_until_idle(page)
        for expander in page.query_selector_all('[data-testid="stExpander"] summary'):  # type: ignore[attr-defined]
            if expander.is_visible():  # those in a tab not shown stay closed
                expander.click()  # closed expanders hold text too
        page.wait_for_timeout(500)  # type: ignore[attr-defined]
        page.screenshot(path=str(ARTIFACTS / f"plain-text-{Path(file).stem}.png"),  # type: ignore[attr-defined]
                        full_page=True)
        links = page.eval_on_selector_all(  # type: ignore[attr-defined]
            "a", "links => links.map(a => a.getAttribute('href') || '')")
        hostile_links = [href for href in links if beacon in href or ATTACKER in href]
        images = page.eval_on_selector_all(  # type: ignore[attr-defined]
            "img, image", "images => images.map(i => i.getAttribute('src') || i.getAttribute('href') || '')")
        assert not hostile_links, (file, hostile_links)
        assert not [src for src in images if beacon in src], file
        assert page.query_selector_all('[data-testid="stException"]') == [], file  # type: ignore[attr-defined]
        if ATTACKER in page.inner_text("body"):  # type: ignore[attr-defined]
            shown_on.append(file)
    return shown_on
