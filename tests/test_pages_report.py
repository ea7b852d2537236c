"""AppTest of the Report page: choose a dataset from the URL, build, see the plain-sentence summary."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.app_helpers import APP_FILE
from ui.navigation import page_entry

PAGE = page_entry("report.py").script


def _open(query: dict[str, object]) -> AppTest:
    at = AppTest.from_file(str(APP_FILE), default_timeout=120)
    at.run()
    at.switch_page(PAGE)
    for name, value in query.items():  # as when a copied link opens the page
        at.query_params[name] = value
    at.run()
    assert not at.exception
    return at


def test_report_page_builds_from_a_permalink(app_env: Path) -> None:
    at = _open({"dataset": "devbench", "judges": ["gpt-4-0613", "gemini-pro"]})
    assert at.selectbox(key="dataset").value == "devbench"
    assert at.multiselect(key="judges").value == ["gpt-4-0613", "gemini-pro"]
    assert not any(s.value == "In short" for s in at.subheader)  # nothing is built before the click
    next(b for b in at.button if b.label == "Build the report").click()
    at.run()
    assert not at.exception
    assert [s.value for s in at.subheader] == ["In short"]
    summary = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert "gpt-4-0613 changes its verdict on about 1 pair in 6 (17.2% of 1,120 pairs, 95% interval" in summary
    assert "claude-3-haiku" not in summary  # only the chosen judges
    assert any("charts" in c.value and "MB" in c.value for c in at.caption)
    # The verdict blocks of the report, from the same objects the analysis pages draw.
    verdicts = next(e for e in at.expander if e.label.startswith("The report's verdicts"))
    shown = " ".join(m.value.replace("\\", "") for m in verdicts.markdown)
    assert "What it does:" in shown and "What to do:" in shown and "gpt-4-0613" in shown
