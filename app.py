"""judgebias dashboard: navigation over the pages and the shared sidebar."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from judgebias_core import __version__
from judgebias_core.bootstrap import ensure_store_ready
from judgebias_core.store.integrity import damage_error
from judgebias_core.store.queries import store_overview
from ui.share import code_span
from ui.state import cached, db_path, show_error

st.set_page_config(page_title="judgebias", page_icon="⚖️", layout="wide")

PAGES_DIR = Path(__file__).parent / "pages"
# (file, title, icon, section); a page appears once its file exists.
PAGES: list[tuple[str, str, str, str]] = [
    ("overview.py", "Overview", ":material/home:", "Start"),
    ("data.py", "Data", ":material/database:", "Start"),
    ("pairwise_bias.py", "Pairwise bias", ":material/swap_horiz:", "Position bias"),
    ("rubric_bias.py", "Rubric bias", ":material/format_list_numbered:", "Position bias"),
    ("factors.py", "Factors", ":material/query_stats:", "Position bias"),
    ("judges.py", "Judges", ":material/groups:", "Compare judges"),
    ("calibration.py", "Calibration", ":material/rule:", "Compare judges"),
    ("other_biases.py", "Other biases", ":material/straighten:", "Compare judges"),
    ("leaderboard.py", "Leaderboard", ":material/leaderboard:", "Compare judges"),
    ("new_run.py", "New run", ":material/play_circle:", "Runs"),
    ("runs.py", "Runs", ":material/history:", "Runs"),
    ("report.py", "Report", ":material/description:", "Share"),
]

try:
    with st.spinner("First launch: loading the bundled real datasets into the store…"):
        if ensure_store_ready(db_path()):
            st.cache_data.clear()
except Exception as error:  # noqa: BLE001 - shown to the user, then the app stops
    show_error(damage_error(error, db_path()) or error)  # a damaged or foreign store file: StoreError, what to do
    st.stop()

sections: dict[str, list[st.Page]] = {}
for file_name, title, icon, section in PAGES:
    if (PAGES_DIR / file_name).exists():
        sections.setdefault(section, []).append(
            st.Page(f"pages/{file_name}", title=title, icon=icon, default=file_name == "overview.py")
        )
navigation = st.navigation(sections)

with st.sidebar:
    st.markdown("### ⚖️ judgebias")
    st.caption("How far can an LLM judge be trusted?")
    try:
        overview = cached(store_overview)
        st.caption(
            f"Store: {code_span(db_path().name)} · {overview.datasets} datasets · {overview.judge_calls:,} judge calls · "
            f"{overview.runs} runs · schema v{overview.schema_version}"
        )
    except Exception as error:  # noqa: BLE001
        show_error(error)
    if st.button("Reload from store", help="Read the store again (for runs written by another process)."):
        st.cache_data.clear()
        st.rerun()
    st.caption(f"judgebias {__version__}")

navigation.run()
