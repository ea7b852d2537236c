"""ui/share.py in a running Streamlit script: explanations, permalinks read from the URL, download buttons."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.share import escape_markdown
from ui.text import WORD_JOINER

SCRIPT = '''
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from ui.share import (chart_downloads, explain, permalink_hint, report_button, synced_multiselect,
                      synced_selectbox, table_downloads)

explain("flip_rate")
dataset = synced_selectbox("Dataset", ["mtbench", "devbench", "autoj"], key="dataset")
judges = synced_multiselect("Judges", ["gpt-4", "gemini-pro", "claude"], key="judges", default=["gpt-4"])
st.write(f"dataset={dataset} judges={','.join(judges)}")
table_downloads(pd.DataFrame({"judge": ["=cmd"]}), "flip rates")
chart_downloads(go.Figure(), "flip chart")
permalink_hint()
report_button("mtbench", ["gpt-4-0613"])
'''


def _run(query: dict[str, object]) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=60)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    return at


def test_explain_shows_meaning_and_formula() -> None:
    at = _run({})
    assert any("Flip rate" in c.value and "swapping the two answers" in c.value for c in at.caption)
    assert at.expander[0].label == "How flip rate is computed"
    assert any("Wilson" in m.value for m in at.markdown)


def test_download_buttons_are_drawn_without_building_anything() -> None:
    at = _run({})
    # CSV, Parquet, PNG, SVG (when Chromium is here) and the report: built only when clicked.
    assert len(at.get("download_button")) in (3, 5)


def test_filters_are_read_back_from_the_url() -> None:
    at = _run({"dataset": "devbench", "judges": ["gemini-pro", "claude"]})
    assert at.selectbox(key="dataset").value == "devbench"
    assert at.multiselect(key="judges").value == ["gemini-pro", "claude"]
    assert any(m.value == "dataset=devbench judges=gemini-pro,claude" for m in at.markdown)


def test_unknown_url_values_fall_back_to_the_default() -> None:
    at = _run({"dataset": "<script>alert(1)</script>"})
    assert at.selectbox(key="dataset").value == "mtbench"


def test_escape_markdown_makes_links_images_and_html_literal() -> None:
    hostile = "![x](http://evil.example/a.png) [click](javascript:alert(1)) <img src=x onerror=alert(1)> $x$"
    escaped = escape_markdown(hostile)
    assert "![" not in escaped and "](" not in escaped
    for token in ("\\!\\[", "\\]\\(", "\\<img", "\\$x\\$"):
        assert token in escaped
    assert escaped.replace("\\", "").replace(WORD_JOINER, "") == hostile


@pytest.mark.parametrize("text", ["see https://evil.example/x.", "HTTP://evil.example", "www.evil.example/page",
                                  "mail me@evil.example", "mailto:me@evil.example", "xmpp:me@evil.example"])
def test_escape_markdown_breaks_bare_links(text: str) -> None:
    """GitHub-flavoured markdown links bare URLs, www. addresses and e-mails even when escaped; a word joiner inside
    each stops it (checked in a real browser by tests/test_browser_plain_text.py) and shows nothing."""
    escaped = escape_markdown(text)
    unescaped = escaped.replace("\\", "")
    assert not re.search(r"(?i)https?://|www\.|[\w.+-]@", unescaped)
    assert unescaped.replace(WORD_JOINER, "") == text


PROGRESS_SCRIPT = '''
import time
import ui.run_panel as run_panel
from judgebias_core.engine.progress import RunProgress

RUN_ID = "run-![r](http://evil.example/r.png)-`x`-www.evil.example"
run_panel.read_progress = lambda path, run_id: RunProgress(
    run_id, "interrupted", 10, 4, 1, 0, 0, 0.0, 1.0, None, 1, time.time())
run_panel.read_batch_line = lambda path, run_id: "batch [b](http://evil.example/b) www.evil.example"
run_panel.show_progress(RUN_ID)
'''


def test_the_progress_line_shows_the_run_id_as_code(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(tmp_path / "store.duckdb"))
    at = AppTest.from_string(PROGRESS_SCRIPT, default_timeout=30).run()
    assert not at.exception
    [bar] = at.get("progress")
    text = bar.proto.text
    # One code span (a backtick inside the id cannot end it), no markdown link or image outside it.
    assert text.startswith("`run-![r](http://evil.example/r.png)-'x'-www.evil.example`: 5 of 10 calls")
    [batch] = [c.value for c in at.caption if "batch" in c.value]
    assert "](" not in batch.replace("\\]\\(", "") and "www." not in batch
