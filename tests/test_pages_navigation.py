"""The dashboard's shape: every page listed and present, no legacy pages/ folder, the load-or-stop scaffold,
and bad input on New run shown to the user instead of replaced."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_helpers import PROJECT_ROOT, open_page
from ui.navigation import PAGES, PAGES_DIR


def test_every_listed_page_exists_and_every_page_file_is_listed() -> None:
    listed = [page.file for page in PAGES]
    on_disk = sorted(path.name for path in PAGES_DIR.glob("*.py"))
    assert sorted(listed) == on_disk
    assert len(set(listed)) == len(listed)
    # A folder named pages/ next to app.py would switch Streamlit to its legacy multipage mode (raw file names in
    # the sidebar, pages run without app.py).
    assert not (PROJECT_ROOT / "pages").exists()


def test_no_private_streamlit_flag_anywhere() -> None:
    tracked = subprocess.run(["git", "grep", "-l", "uses_pages" + "_directory"], cwd=PROJECT_ROOT,
                             capture_output=True, text=True, check=False)
    assert tracked.stdout == ""


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_ui_state_does_not_import_ui_share() -> None:
    assert "ui.share" not in _imports(PROJECT_ROOT / "ui" / "state.py")
    assert "ui.state" in _imports(PROJECT_ROOT / "ui" / "share.py")


def _scaffold_script() -> None:
    import streamlit as st

    from judgebias_core.errors import StoreBusyError
    from ui.state import load_or_stop

    def busy(path: str) -> int:
        raise StoreBusyError(f"{path} stayed busy")

    def fine(path: str, extra: int) -> int:
        return extra * 2

    st.write(f"fine gave {load_or_stop(fine, 21)}")
    load_or_stop(busy)
    st.write("after the failed load")


def test_load_or_stop_returns_the_value_or_shows_the_error_and_stops(app_env: Path) -> None:
    at = AppTest.from_function(_scaffold_script, default_timeout=60).run()
    assert not at.exception
    shown = [m.value for m in at.markdown]
    assert "fine gave 42" in shown
    assert "after the failed load" not in shown
    assert [e.value.replace("\\", "") for e in at.error][0].startswith("The store is busy:")


@pytest.mark.parametrize(("typed", "problem"), [("0.4,abc,0.1", "weight 2"), ("0,0", "above zero"),
                                                ("0.5,-1", "weight 2")])
def test_bad_position_weights_are_an_error_not_replaced(app_env: Path, typed: str, problem: str) -> None:
    at = open_page("new_run.py")
    next(t for t in at.text_input if t.label == "Position weights").set_value(typed).run()
    assert not at.exception
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any(e.startswith("Position weights:") and problem in e for e in errors), errors
    assert "Plan" not in [s.value for s in at.subheader]
    assert not any(b.label.startswith("Launch") for b in at.button)
