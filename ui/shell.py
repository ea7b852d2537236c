"""Keep every page inside the app shell, also when Streamlit starts a page without app.py.

Streamlit still runs a folder named ``pages/`` next to the entry script as a legacy multipage app until some
session calls ``st.navigation``: a permalink such as ``/pairwise_bias?pw_dataset=mtbench`` opened first on a freshly
started server (and every AppTest run after ``switch_page``) would run the page alone, without app.py's navigation,
first-launch import and sidebar. A page that finds that legacy mode on switches it off and runs app.py in its place;
app.py's ``st.navigation`` then runs the same page, inside the shell, in this same script run (a rerun would lose a
button click that triggered this run).
"""

from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

APP_FILE = Path(__file__).resolve().parents[1] / "app.py"


def require_app_shell() -> None:
    """Run app.py (which runs this page inside the shell) when Streamlit started this page on its own."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(APP_FILE), run_name="__main__")
        st.stop()
