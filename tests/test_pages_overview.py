"""AppTest of the app shell and the Overview page on the first-launch store."""

from __future__ import annotations

from pathlib import Path

from tests.app_helpers import open_page
from ui.navigation import DEFAULT_PAGE, PAGES


def test_overview_shows_store_contents(app_env: Path) -> None:
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "How far can an LLM judge be trusted?"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Datasets"] == "6" or int(metrics["Datasets"]) >= 6
    assert "Judge calls" in metrics
    frame = at.dataframe[0].value
    assert {"mtbench", "devbench", "autoj", "summeval"} <= set(frame["dataset"])


def test_data_page_opens_a_judge_call(app_env: Path) -> None:
    at = open_page("data.py")
    assert not at.exception
    dataset_box = next(box for box in at.selectbox if box.label == "Dataset")
    dataset_box.set_value("mtbench").run()
    assert not at.exception
    texts = [t.value for t in at.text]
    # The first call on item 81 is shown: its raw reply is verbatim text.
    assert any("[[" in t for t in texts)
    assert any(j.value and "parse_status" in str(j.value) for j in at.json)


def test_overview_links_to_every_other_page(app_env: Path) -> None:
    at = open_page()
    linked = {link.proto.page for link in at.get("page_link")}
    assert linked == {page.url_path for page in PAGES if page.file != DEFAULT_PAGE}


def test_overview_verdicts_cover_every_judge_across_studies(app_env: Path) -> None:
    """Issue 22: the Overview's swap-test verdicts show MTBench's 12 (judge, study) rows, each study named."""
    at = open_page()
    markdown = [m.value.replace("\\", "") for m in at.markdown]
    assert any("every judge (12) across 2 studies (full, repetition)" in m for m in markdown)
    subjects = [m for m in markdown if "· study " in m]
    assert len(subjects) == 12
    assert any("gpt-4-0613 · study repetition (items differ by study: full: 80 items; repetition: 24 of the 80 "
               "items)" in m for m in subjects)


def test_overview_says_which_human_labels_are_gold(app_env: Path) -> None:
    at = open_page()
    labels = next(m for m in at.metric if m.label == "Human labels")
    assert "419 of them are gold" in labels.proto.help  # LLMBar's five own subsets; the count itself unchanged
