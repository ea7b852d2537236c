"""Plain words and uncut labels on an UPLOADED dataset (issue 24), in chromium against `streamlit run`.

The dataset is real: Auto-J's 1,392 pairs with their human labels, uploaded through the CLI as a new dataset
("autoj-upload"), and Auto-J-13B's verdicts on every pair in both orders uploaded as a judge log on it. Every page
is opened on that dataset; each verdict block's first sentences and every drawn chart title read without one
statistical term of judgebias_core.plain_words.TERMS, no text box is cut, and no page shows an exception. The
report of the uploaded dataset reads plainly in its "In short" too.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judgebias_core.cli import main
from judgebias_core.plain_words import first_sentences, terms_in
from judgebias_core.store.handle import Store
from tests.test_browser import (  # noqa: F401 - browser_page is a fixture
    _VERDICT_LINES_JS,
    ARTIFACTS,
    VERDICT_HEADINGS,
    _streamlit_server,
    _wait_until_idle,
    browser_page,
)
from tests.test_browser_labels import CUT_TEXT
from tests.upload_helpers import as_bytes, real_table

pytestmark = pytest.mark.browser

DATASET = "autoj-upload"
# Every page that reads a dataset, opened on the uploaded one (its query parameter, as the page binds it).
PAGES = {
    "overview": "",
    "data": "data",
    "pairwise": f"pairwise_bias?pw_dataset={DATASET}",
    "factors": f"factors?fx_dataset={DATASET}",
    "compare-judges": f"compare_judges?cj_dataset={DATASET}",
    "judges": f"judges?jd_dataset={DATASET}",
    "calibration": f"calibration?cal_dataset={DATASET}",
    "other-biases": f"other_biases?ob_dataset={DATASET}",
    "leaderboard": f"leaderboard?lb_dataset={DATASET}",
    "report": "report",
}


def _upload(store: Path, tmp: Path, *args: str) -> None:
    status = main(["--db", str(store), "upload", *args])
    assert status == 0, f"upload {' '.join(args)} failed with status {status}"


@pytest.fixture(scope="module")
def uploaded_store(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("uploaded")
    store = tmp / "store.duckdb"
    shutil.copy(bundled_db_master, store)
    pairs = tmp / "autoj_pairs.jsonl"
    pairs.write_bytes(as_bytes(real_table("autoj-pairwise/pairs.jsonl.gz"), "jsonl"))
    _upload(store, tmp, "pairs", "--file", str(pairs), "--dataset", DATASET, "--baseline", "response_1",
            "--name", "Auto-J pairs (uploaded)")
    verdicts = tmp / "autoj_verdicts.parquet"
    verdicts.write_bytes(as_bytes(real_table("autoj-pairwise/autoj_verdicts.jsonl.gz"), "parquet"))
    _upload(store, tmp, "pairwise-log", "--file", str(verdicts), "--dataset", DATASET)
    return store


@pytest.fixture(scope="module")
def uploaded_dashboard(uploaded_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with _streamlit_server(uploaded_store, tmp_path_factory) as url:
        yield url


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_on_an_uploaded_dataset_reads_plainly_and_uncut(uploaded_dashboard: str,
                                                                   browser_page: Any, name: str) -> None:  # noqa: F811
    browser_page.set_viewport_size({"width": 1400, "height": 3600})
    browser_page.goto(f"{uploaded_dashboard}/{PAGES[name]}")
    _wait_until_idle(browser_page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser_page.screenshot(path=str(ARTIFACTS / f"uploaded_{name}.png"), full_page=True)
    assert not browser_page.locator('[data-testid="stException"]').count(), name
    if name not in ("overview", "data", "report"):  # the page opened on the uploaded dataset, not a default
        assert DATASET in browser_page.locator('[data-testid="stMain"]').inner_text() or browser_page.locator(
            '[data-testid="stMain"]').get_by_text("Auto-J pairs (uploaded)").count(), name
    lines = browser_page.evaluate(_VERDICT_LINES_JS, list(VERDICT_HEADINGS))
    found = [f"{term} in {line!r}" for line in lines for term in terms_in(first_sentences(line, 2))]
    titles = browser_page.evaluate("() => [...document.querySelectorAll('.gtitle')].map(t => t.textContent)")
    found += [f"chart title: {term} in {title!r}" for title in titles for term in terms_in(title)]
    assert not found, f"{name}:\n" + "\n".join(found)
    assert browser_page.evaluate(CUT_TEXT) == [], name
    if name == "judges":  # one uploaded judge: a sentence saying what to choose, no chart of one judge
        assert browser_page.get_by_text("Agreement needs two judges").count()
        assert not browser_page.locator('[data-testid="stPlotlyChart"]').count()
    if name == "pairwise":  # the uploaded judge's swap results open on a verdict, its rule folded
        assert lines, "no verdict on the uploaded dataset's Pairwise bias page"
        assert browser_page.locator('[data-testid="stExpander"]').filter(has_text="How this was decided").count()


def test_the_uploaded_datasets_report_reads_plainly(uploaded_store: Path, browser_page: Any,  # noqa: F811
                                                    tmp_path: Path) -> None:
    from judgebias_core.report import ReportRequest, write_report

    out = write_report(Store.open(uploaded_store), ReportRequest(DATASET), tmp_path / "uploaded.html")
    browser_page.goto(out.as_uri())
    browser_page.wait_for_selector("#summary")
    lines = browser_page.evaluate("""() => [...document.querySelectorAll(
        '#summary .summary li, #summary .verdict > p')].map(el => el.innerText.trim())""")
    assert lines
    found = [f"{term} in {line!r}" for line in lines for term in terms_in(first_sentences(line, 2))]
    assert not found, "\n".join(found)
