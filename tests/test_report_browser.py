"""Open generated reports in headless Debian chromium with the network off: charts render, no console error,
no script from the data runs. Screenshots go to tests/artifacts/ (git-ignored)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from judgebias_core.report import ReportRequest, write_report
from judgebias_core.store.handle import Store
from tests.hostile_store import DATASET_ID, IMG, SCRIPT, build_hostile_store

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
ARTIFACTS = Path(__file__).parent / "artifacts"
# Marks a chart draws in its SVG: bar/line/scatter traces, or the image a heatmap paints.
MARKS = "svg.main-svg g.trace path, svg.main-svg g.trace text, svg.main-svg g.hm image"
CHARTS_DRAWN = f"""() => {{
  const charts = [...document.querySelectorAll('.plotly-graph-div')];
  return charts.length > 0 && charts.every(c => c.querySelector('{MARKS}'));
}}"""


@dataclass
class OpenedReport:
    charts: int
    charts_with_marks: int
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    injected_images: int = 0
    scripts: int = 0
    text: str = ""


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


def _open(browser: object, report: Path, screenshot: str) -> OpenedReport:
    context = browser.new_context(offline=True, viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
    opened = OpenedReport(charts=0, charts_with_marks=0)

    def only_local(route: object) -> None:
        if route.request.url.startswith("file:"):  # type: ignore[attr-defined]
            route.continue_()  # type: ignore[attr-defined]
        else:
            opened.outside_requests.append(route.request.url)  # type: ignore[attr-defined]
            route.abort()  # type: ignore[attr-defined]

    context.route("**/*", only_local)
    page = context.new_page()
    page.on("console", lambda message: opened.console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: opened.console_errors.append(str(error)))
    page.on("dialog", lambda dialog: (opened.dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(report.as_uri(), wait_until="load")
    page.wait_for_function(CHARTS_DRAWN, timeout=30_000)
    opened.charts = page.locator(".plotly-graph-div").count()
    opened.charts_with_marks = page.evaluate(
        f"() => [...document.querySelectorAll('.plotly-graph-div')].filter(c => c.querySelector('{MARKS}')).length")
    opened.injected_images = page.locator("img").count()
    opened.scripts = page.locator("script").count()
    opened.text = page.inner_text("body")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / screenshot), full_page=True)
    context.close()
    return opened


@pytest.mark.parametrize(("dataset", "expected"), [
    ("mtbench", "When the two answers swap places, gpt-4-0613 changes its verdict on about 1 pair in 5 "
                "(18.5% of 2,400 pairs, 95% interval 16.2% to 21.0%)"),
    ("summeval", "Some results here come from a simulated judge, not a real model"),
])
def test_bundled_report_renders_offline(browser: object, bundled_db_master: Path, tmp_path: Path, dataset: str,
                                        expected: str) -> None:
    report = write_report(Store.open(bundled_db_master), ReportRequest(dataset), tmp_path / f"{dataset}.html")
    opened = _open(browser, report, f"report_{dataset}.png")
    assert opened.charts >= 4
    assert opened.charts_with_marks == opened.charts
    assert opened.console_errors == []
    assert opened.outside_requests == []
    assert expected in opened.text


def test_hostile_data_is_shown_not_run(browser: object, fresh_db: Path, tmp_path: Path) -> None:
    store = build_hostile_store(fresh_db)
    report = write_report(Store.open(store), ReportRequest(DATASET_ID), tmp_path / "hostile.html")
    opened = _open(browser, report, "report_hostile.png")
    assert opened.dialogs == []
    assert opened.injected_images == 0
    assert opened.scripts == 1 + opened.charts  # plotly.js, then one script per chart: nothing from the data
    assert opened.console_errors == []
    assert opened.charts_with_marks == opened.charts
    assert SCRIPT in opened.text and IMG in opened.text  # shown as text
