"""Keep every page inside the app shell, also when a fresh server's first request is a deep link.

Streamlit still runs a folder named ``pages/`` next to the entry script as a legacy multipage app until some
session calls ``st.navigation``: a permalink such as ``/pairwise_bias?dataset=mtbench`` opened first on a freshly
started server would run the page alone, without app.py's navigation, first-launch import and sidebar. Calling
``st.navigation`` turns that legacy mode off for the whole process, so a page that finds it still on switches it
off and reruns, and the rerun goes through app.py to the same page with the same query string.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def require_app_shell() -> None:
    """Rerun through app.py when this page was started directly by Streamlit's legacy ``pages/`` mode."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
