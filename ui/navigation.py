"""The dashboard's pages in one list, and links between them (with the query parameters the target reads).

The page files live in ``app_pages/``, not ``pages/``: Streamlit treats a folder named ``pages/`` next to the entry
script as a legacy multipage app, which lists raw file names in the sidebar and runs a page without app.py. With
``app_pages/`` the only navigation is app.py's ``st.navigation`` over ``PAGES``, also when a permalink is the very
first request a new server sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st

from judgebias_core.protocols.spec import RUBRIC_PROTOCOLS
from ui.text import code_span

PAGES_FOLDER = "app_pages"
PAGES_DIR = Path(__file__).resolve().parents[1] / PAGES_FOLDER
DEFAULT_PAGE = "overview.py"


@dataclass(frozen=True)
class PageEntry:
    """One page of the navigation: its file in ``app_pages/``, sidebar title, icon and section."""

    file: str
    title: str
    icon: str
    section: str

    @property
    def script(self) -> str:
        """The page's path relative to app.py, as st.Page and st.page_link take it."""
        return f"{PAGES_FOLDER}/{self.file}"

    @property
    def url_path(self) -> str:
        """The page's address under the server root ("" for the default page)."""
        return "" if self.file == DEFAULT_PAGE else self.file.removesuffix(".py")


PAGES: tuple[PageEntry, ...] = (
    PageEntry("overview.py", "Overview", ":material/home:", "Start"),
    PageEntry("data.py", "Data", ":material/database:", "Start"),
    PageEntry("pairwise_bias.py", "Pairwise bias", ":material/swap_horiz:", "Position bias"),
    PageEntry("rubric_bias.py", "Rubric bias", ":material/format_list_numbered:", "Position bias"),
    PageEntry("factors.py", "Factors", ":material/query_stats:", "Position bias"),
    PageEntry("compare_judges.py", "Compare judges", ":material/balance:", "Which judge"),
    PageEntry("judges.py", "Judges", ":material/groups:", "Which judge"),
    PageEntry("calibration.py", "Calibration", ":material/rule:", "Which judge"),
    PageEntry("other_biases.py", "Other biases", ":material/straighten:", "Which judge"),
    PageEntry("leaderboard.py", "Leaderboard", ":material/leaderboard:", "Which judge"),
    PageEntry("new_run.py", "New run", ":material/play_circle:", "Runs"),
    PageEntry("runs.py", "Runs", ":material/history:", "Runs"),
    PageEntry("report.py", "Report", ":material/description:", "Share"),
)
_BY_FILE = {page.file: page for page in PAGES}


def page_entry(file_name: str) -> PageEntry:
    """The listed page of ``file_name``; a KeyError names a page that is not in ``PAGES``."""
    return _BY_FILE[file_name]


def navigation_sections() -> dict[str, list[st.Page]]:
    """``st.navigation``'s input: every listed page by section. A listed page without its file is an error."""
    missing = [page.file for page in PAGES if not (PAGES_DIR / page.file).is_file()]
    if missing:
        raise FileNotFoundError(f"pages listed in ui/navigation.py but missing from {PAGES_DIR}: {missing}")
    sections: dict[str, list[st.Page]] = {}
    for page in PAGES:
        sections.setdefault(page.section, []).append(
            st.Page(page.script, title=page.title, icon=page.icon, default=page.file == DEFAULT_PAGE))
    return sections


def link_page(file_name: str, label: str, icon: str | None = None,
              query_params: Mapping[str, str] | None = None) -> None:
    """A link to a listed page; ``query_params`` preset the target's URL-bound filters."""
    page = page_entry(file_name)
    st.page_link(page.script, label=label, icon=icon or page.icon,
                 query_params=dict(query_params) if query_params else None)


def _run_analysis_target(run_id: str, dataset_id: str, protocol: str,
                         study: str | None) -> tuple[str, str, dict[str, str]]:
    """(page file, page title, query parameters) of the analysis page that shows one run."""
    if protocol in RUBRIC_PROTOCOLS:
        return "rubric_bias.py", "Rubric bias", {"rb_dataset": dataset_id, "rb_run": run_id}
    return "pairwise_bias.py", "Pairwise bias", {"pw_dataset": dataset_id, "pw_study": study or run_id}


def run_analysis_url(run_id: str, dataset_id: str, protocol: str, study: str | None = None) -> str:
    """The address of a run's analysis relative to any page of the app ("pairwise_bias?pw_dataset=...")."""
    file_name, _, params = _run_analysis_target(run_id, dataset_id, protocol, study)
    return f"{page_entry(file_name).url_path}?{urlencode(params)}"


def link_run_analysis(run_id: str, dataset_id: str, protocol: str, study: str | None = None) -> None:
    """"Open in Pairwise bias / Rubric bias" for one run, with its dataset and run preselected. ``study`` is the
    run's study when it differs from its id (bundled runs: 'full', 'repetition')."""
    file_name, title, params = _run_analysis_target(run_id, dataset_id, protocol, study)
    link_page(file_name, f"Open {code_span(run_id)} in {title}", query_params=params)
