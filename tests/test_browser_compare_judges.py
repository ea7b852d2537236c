"""Real browser: the Compare judges page in chromium on an LLMBar dataset (a recommendation, a chart whose every
point is labelled) and on MTBench (no labels: says so and points to the labelled datasets)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.app_helpers import PROJECT_ROOT
from tests.test_browser import (  # noqa: F401 - browser_page and dashboard are fixtures
    ARTIFACTS,
    _wait_until_idle,
    browser_page,
    dashboard,
)

pytestmark = pytest.mark.browser


def _open(dashboard: str, page: Any, dataset: str) -> str:  # noqa: F811
    page.goto(f"{dashboard}/compare_judges?cj_dataset={dataset}")
    _wait_until_idle(page)
    assert not page.locator('[data-testid="stException"]').count()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"compare_judges_{dataset}.png"), full_page=True)
    return str(page.locator('[data-testid="stMain"]').inner_text())


def test_llmbar_page_recommends_and_labels_every_point(dashboard: str, browser_page: Any) -> None:  # noqa: F811
    main = _open(dashboard, browser_page, "llmbar-natural")
    assert "Compare judges" in main and "Use GPT-4 [" in main
    assert "Judge configurations (65)" in main
    selector = '[data-testid="stPlotlyChart"] g.textpoint text'
    # The chart draws its labels after the script run ends: wait for all 65, not for a fixed time.
    browser_page.wait_for_function(f"() => document.querySelectorAll('{selector}').length >= 65", timeout=60_000)
    points = browser_page.locator(selector)
    texts = [points.nth(i).text_content() for i in range(points.count())]
    assert sorted(texts, key=int) == [str(n) for n in range(1, 66)]  # every point carries its row number


def test_mtbench_page_says_where_labels_are(dashboard: str, browser_page: Any) -> None:  # noqa: F811
    main = _open(dashboard, browser_page, "mtbench")
    assert "No recommendation: these pairs carry no labels" in main
    assert "llmbar-natural" in main and "autoj" in main
    assert "Judge configurations (12)" in main


def test_llmbar_report_has_the_scorecard_and_its_labels_pass_the_layout_check(
        bundled_db_master: Path, tmp_path: Path, browser_page: Any) -> None:  # noqa: F811
    from tests.test_report_layout_browser import CHARTS_DRAWN, _layout

    out = tmp_path / "llmbar.html"
    subprocess.run([sys.executable, "-m", "judgebias_core", "--db", str(bundled_db_master), "report", "--dataset",
                    "llmbar-gptout", "--out", str(out)], cwd=PROJECT_ROOT, check=True, timeout=600)
    html = out.read_text(encoding="utf-8")
    assert "Which judge to use: the judge scorecard" in html and "Use GPT-4 [" in html
    # The module's chromium: a second sync_playwright in the same worker would fail ("inside the asyncio loop").
    layout = _layout(browser_page.context.browser, out, "report_llmbar_gptout.png", CHARTS_DRAWN)
    # the scorecard section's chart (other sections' charts on this data are the layout test's business)
    chart_id = re.search(r'chart-\d+-\d+', html.split('<section id="scorecard">', 1)[1]).group(0)  # type: ignore[union-attr]
    (chart,) = [c for c in layout.charts if c["id"] == chart_id]
    assert int(chart["labels"]) > 5  # type: ignore[call-overload]
    assert chart["outside"] == [] and chart["overlaps"] == []
    # and every other chart of the LLMBar report (the calibration heatmaps' colour bars once overlapped there)
    assert [(c["id"], c["outside"], c["overlaps"]) for c in layout.charts if c["outside"] or c["overlaps"]] == []
    assert [m for m in layout.console if m.startswith(("error", "pageerror"))] == []
