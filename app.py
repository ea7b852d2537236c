"""judgebias dashboard: st.navigation over the pages in app_pages/ and the shared sidebar."""

from __future__ import annotations

import streamlit as st

from judgebias_core.store.connection import resolve_db_path
from ui.first_launch import begin_store_ready

# First: the store's first-launch load runs (in C++, off the GIL) while the imports below run.
begin_store_ready(resolve_db_path(None))

from judgebias_core import __version__  # noqa: E402
from judgebias_core.analyses.datasets import store_overview  # noqa: E402
from ui.access import show_access_in_sidebar  # noqa: E402
from ui.first_launch import ensure_store_ready_once  # noqa: E402
from ui.navigation import navigation_sections  # noqa: E402
from ui.share import code_span  # noqa: E402
from ui.state import cached, db_path, shown_store_failures, stop_on_error  # noqa: E402
from ui.verdict import overview_verdict_block  # noqa: E402, F401 - the first page's heaviest import, during the load

st.set_page_config(page_title="judgebias", page_icon="⚖️", layout="wide")

# The navigation comes first: the sidebar shows the page titles from the first moment, also during the import.
navigation = st.navigation(navigation_sections(), expanded=True)  # all 13 pages, no "View 3 more"
with st.sidebar:
    st.markdown("### ⚖️ judgebias")
    st.caption("How far can an LLM judge be trusted?")
    store_line = st.empty()

with stop_on_error():  # a damaged store file surfaces as a duckdb error: shown as a StoreError, what to do
    ensure_store_ready_once(db_path())

with st.sidebar:
    with store_line.container(), shown_store_failures():
        overview = cached(store_overview)
        st.caption(
            f"Store: {code_span(db_path().name)} · {overview.datasets} datasets · {overview.judge_calls:,} judge calls · "
            f"{overview.runs} runs · schema v{overview.schema_version}"
        )
    if st.button("Reload from store", help="Read the store again (for runs written by another process)."):
        st.cache_data.clear()
        st.rerun()
    show_access_in_sidebar()
    st.caption(f"judgebias {__version__}")

with shown_store_failures():  # every page: a named error no page caught, or a store failure (a damaged store, a
    navigation.run()  # dropped table, a full disk), is its message in an st.error, never a traceback
