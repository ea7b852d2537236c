"""Every chart label of the mtbench report lies inside its chart, none overlaps another, no colour is invalid:
the report built by the CLI and the one built in a process that imported Streamlit (as the dashboard does, which
changes plotly's default template) alike; and a PNG/SVG export built there keeps its labels inside the image."""

from __future__ import annotations

import struct
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.test_report_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
LABELS = {"tick": "g.xtick text, g.ytick text, g.x2tick text, g.y2tick text, g.x3tick text, g.y3tick text",
          "legend": "g.legend text.legendtext", "axis title": "g.g-xtitle text, g.g-ytitle text, "
          "g.g-x2title text, g.g-y2title text, g.g-x3title text, g.g-y3title text",
          "chart title": "g.g-gtitle text", "colour bar": "g.colorbar text"}
# Each label's box against the box of its own chart (the plot's outer svg), and against every other label.
LAYOUT_CHECK = """(labels) => {
  const found = [];
  for (const chart of document.querySelectorAll('svg.main-svg:first-of-type')) {
    const box = chart.getBoundingClientRect();
    const root = chart.closest('.plotly-graph-div') || chart;
    const boxes = [];
    for (const [kind, selector] of Object.entries(labels)) {
      for (const el of root.querySelectorAll(selector)) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && el.textContent.trim())
          boxes.push({kind, text: el.textContent, l: r.left, t: r.top, r: r.right, b: r.bottom});
      }
    }
    const id = root.id || 'image';
    const outside = boxes.filter(x => x.l < box.left - 1 || x.r > box.right + 1 || x.t < box.top - 1
                                      || x.b > box.bottom + 1);
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1)
        overlaps.push(`${a.kind} '${a.text}' / ${b.kind} '${b.text}'`);
    }
    found.push({id, labels: boxes.length, width: box.width, height: box.height,
                outside: outside.map(x => `${x.kind} '${x.text}'`), overlaps});
  }
  return found;
}"""

# What the dashboard does before a user clicks "Report (HTML)": Streamlit imported (its plotly theme becomes the
# default template), then ui.share's builder; the same process exports one chart as PNG and SVG.
DASHBOARD_BUILD = """
import sys
from pathlib import Path
import plotly.io as pio
import streamlit  # noqa: F401
import ui.share  # noqa: F401 - imports st.plotly_chart's module, as every page does
assert pio.templates.default == "streamlit", pio.templates.default
from judgebias_core.charts.pairwise import flip_rate_forest
from judgebias_core.exports import figure_image_bytes
from judgebias_core.analyses.pairwise import pairwise_metrics
from judgebias_core.store.handle import Store
from judgebias_core.report import ReportRequest, build_report_html
store, out = sys.argv[1], Path(sys.argv[2])
(out / "dashboard.html").write_text(build_report_html(Store.open(store), ReportRequest("mtbench")), encoding="utf-8")
with Store(store).reader() as reader:
    forest = flip_rate_forest(pairwise_metrics(reader, "mtbench", None, "repetition"))
(out / "forest.png").write_bytes(figure_image_bytes(forest, "png"))
(out / "forest.svg").write_bytes(figure_image_bytes(forest, "svg"))
"""


@dataclass
class Layout:
    charts: list[dict[str, object]]
    console: list[str]


@pytest.fixture(scope="module")
def built(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("layout")
    subprocess.run([sys.executable, "-c", DASHBOARD_BUILD, str(bundled_db_master), str(out)], cwd=ROOT, check=True,
                   timeout=600)
    subprocess.run([sys.executable, "-m", "judgebias_core", "--db", str(bundled_db_master), "report", "--dataset",
                    "mtbench", "--out", str(out / "cli.html")], cwd=ROOT, check=True, timeout=600)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


def _layout(browser: object, file: Path, screenshot: str, ready: str = "true") -> Layout:
    context = browser.new_context(offline=True, viewport={"width": 1200, "height": 900})  # type: ignore[attr-defined]
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
    page.goto(file.as_uri(), wait_until="load")
    page.wait_for_function(f"() => {ready}", timeout=30_000)
    # Automargin redraws after the first paint, later on a loaded machine: read the layout until two readings a
    # moment apart agree (at most ~15 s), never after one fixed sleep.
    charts, previous = page.evaluate(LAYOUT_CHECK, LABELS), None
    for _ in range(50):
        if charts == previous:
            break
        page.wait_for_timeout(300)
        charts, previous = page.evaluate(LAYOUT_CHECK, LABELS), charts
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / screenshot), full_page=True)
    context.close()
    return Layout(charts=charts, console=console)


CHARTS_DRAWN = ("[...document.querySelectorAll('.plotly-graph-div')].every(c => c.querySelector('svg.main-svg'))"
                " && document.querySelectorAll('.plotly-graph-div').length > 0")


@pytest.mark.parametrize("name", ["cli", "dashboard"])
def test_every_label_inside_its_chart_and_no_invalid_colour(browser: object, built: Path, name: str) -> None:
    layout = _layout(browser, built / f"{name}.html", f"report_layout_{name}.png", CHARTS_DRAWN)
    assert len(layout.charts) >= 15
    assert sum(int(c["labels"]) for c in layout.charts) > 300  # type: ignore[call-overload]
    assert [(c["id"], c["outside"]) for c in layout.charts if c["outside"]] == []
    assert [(c["id"], c["overlaps"]) for c in layout.charts if c["overlaps"]] == []
    assert [m for m in layout.console if "color" in m.lower() or m.startswith(("error", "pageerror"))] == []


def test_the_two_reports_draw_the_same_charts(built: Path) -> None:
    from judgebias_core.report.render import TEMPLATE_SCRIPT

    cli, dashboard = ((built / f"{name}.html").read_text(encoding="utf-8") for name in ("cli", "dashboard"))
    scripts = [[part.split("</script>", 1)[0] for part in html.split("Plotly.newPlot(")[1:]] for html in (cli, dashboard)]
    assert scripts[0] == scripts[1]  # only the build time differs between the two files
    assert cli.count(TEMPLATE_SCRIPT) == 1 and '"template"' not in cli.split("</head>", 1)[1]


def _png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_exported_images_keep_their_labels_inside(browser: object, built: Path) -> None:
    png = (built / "forest.png").read_bytes()
    svg = (built / "forest.svg").read_text(encoding="utf-8")
    width, height = _png_size(png)
    assert png.startswith(b"\x89PNG") and width == 2 * 1000  # IMAGE_WIDTH at scale 2
    assert '<svg' in svg and 'fill="rgb(0, 0, 1)"' not in svg and "#000001" not in svg  # no Streamlit placeholder
    page = built / "forest-svg.html"  # the exported file as it is, inline in a blank page (margin 0)
    page.write_text(f'<!DOCTYPE html><html><body style="margin:0">{svg}</body></html>', encoding="utf-8")
    layout = _layout(browser, page, "export_forest_svg.png", "document.querySelector('svg')")
    (image,) = layout.charts
    assert height == 2 * round(float(image["height"]))  # type: ignore[arg-type]
    assert int(image["labels"]) > 20  # type: ignore[call-overload]
    assert image["outside"] == [] and image["overlaps"] == []
