"""Sharing helpers every analysis page calls: explanations, downloads, permalinks and the report button.

See docs/SHARING.md. Widgets made here take an explicit ``key``; the synced ones use it as the URL query
parameter name, so a copied link reopens the same view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from judgebias_core.charts.style import simulated_in
from judgebias_core.explanations import explanation
from judgebias_core.exports import chrome_path, figure_image_bytes, parquet_bytes, readable_csv_bytes
from judgebias_core.names import slug
from judgebias_core.report import ReportRequest, build_report_html
from judgebias_core.simulated import marked_file_stem, simulated_notice, table_judges
from ui.state import current_store
from ui.text import code_span as code_span  # re-exported: the pages import it from here
from ui.text import escape_markdown

T = TypeVar("T")


def _slug(name: str) -> str:
    return slug(name, "export")


def _mid_sentence(name: str) -> str:
    """A metric name as it reads inside a sentence: "flip rate", but "Cohen's kappa" and "McNemar test" kept."""
    first = name.split()[0]
    keep = "'" in first or any(c.isupper() for c in first[1:]) or first in ("Pearson", "Spearman")
    return name if keep else name[0].lower() + name[1:]


def explain(metric_key: str) -> None:
    """A one-line "what this means" caption and an expandable "how it is computed" with the formula."""
    entry = explanation(metric_key)
    st.caption(f"**{entry.name}**: {escape_markdown(entry.meaning)}")
    with st.expander(f"How {_mid_sentence(entry.name)} is computed"):
        for paragraph in entry.formula.split("\n"):
            st.markdown(escape_markdown(paragraph))
        st.caption(f"Source: {escape_markdown(entry.source)}")


def simulated_banner(judges: Sequence[object]) -> None:
    """A warning above results that include a simulated judge (nothing when none is simulated)."""
    if (notice := simulated_notice(judges)) is not None:
        st.warning(escape_markdown(notice), icon=":material/science:")


def table_downloads(frame: pd.DataFrame, name: str, key: str | None = None, judges: Sequence[str] = ()) -> None:
    """CSV (formula-injection neutralised) and Parquet download buttons for a table, built on click.

    The file names say SIMULATED when a simulated judge is among ``judges`` or in the table's judge columns."""
    key = key or _slug(name)
    slug = marked_file_stem(_slug(name), table_judges(frame, judges))
    csv_col, parquet_col = st.columns(2)
    csv_col.download_button("CSV", data=lambda: readable_csv_bytes(frame), file_name=f"{slug}.csv", mime="text/csv",
                            key=f"share-csv-{key}", on_click="ignore", icon=":material/download:",
                            help=f"Download this table ({len(frame):,} rows) as CSV for a spreadsheet: values rounded "
                                 "to 4 significant digits, headers spelled out.")
    parquet_col.download_button("Parquet", data=lambda: parquet_bytes(frame), file_name=f"{slug}.parquet",
                                mime="application/vnd.apache.parquet", key=f"share-parquet-{key}",
                                on_click="ignore", icon=":material/download:",
                                help="Download this table as Parquet (keeps column types and unrounded values).")


def chart_downloads(fig: go.Figure, name: str, key: str | None = None) -> None:
    """PNG and SVG download buttons for a chart, rendered on click by kaleido in the local Chromium.

    The image carries the judge note ``charts.style.styled`` put under the title; the file name says SIMULATED
    when the chart shows a simulated judge."""
    key = key or _slug(name)
    slug = marked_file_stem(_slug(name), simulated_in(fig))
    if chrome_path() is None:
        st.caption("Chart images need Chromium on this machine; use the camera icon of the chart instead.")
        return
    png_col, svg_col = st.columns(2)
    png_col.download_button("PNG", data=lambda: figure_image_bytes(fig, "png"), file_name=f"{slug}.png",
                            mime="image/png", key=f"share-png-{key}", on_click="ignore", icon=":material/image:")
    svg_col.download_button("SVG", data=lambda: figure_image_bytes(fig, "svg"), file_name=f"{slug}.svg",
                            mime="image/svg+xml", key=f"share-svg-{key}", on_click="ignore",
                            icon=":material/image:")


def synced_selectbox(label: str, options: Sequence[T], key: str, **kwargs: Any) -> T | None:
    """A selectbox whose value lives in the URL query string under ``key``."""
    return st.selectbox(label, options, key=key, bind="query-params", **kwargs)


def synced_multiselect(label: str, options: Sequence[T], key: str, **kwargs: Any) -> list[T]:
    """A multiselect whose values live in the URL query string under ``key``."""
    return st.multiselect(label, options, key=key, bind="query-params", **kwargs)


def synced_radio(label: str, options: Sequence[T], key: str, **kwargs: Any) -> T | None:
    """A radio whose value lives in the URL query string under ``key``."""
    return st.radio(label, options, key=key, bind="query-params", **kwargs)


def synced_checkbox(label: str, key: str, **kwargs: Any) -> bool:
    """A checkbox whose value lives in the URL query string under ``key``."""
    return st.checkbox(label, key=key, bind="query-params", **kwargs)


def permalink_hint() -> None:
    """Tell the reader that the address bar holds this view."""
    st.caption(":material/link: The filters above are in the page address: copy it to share this exact view.")


def report_button(dataset_id: str, judges: Sequence[str] = (), runs: Sequence[str] = (),
                  key: str | None = None) -> None:
    """A button that builds the self-contained HTML report of this dataset, judges and runs on click."""
    request = ReportRequest(dataset_id=dataset_id, judges=tuple(judges), runs=tuple(runs))
    store = current_store()
    build: Callable[[], str] = lambda: build_report_html(store, request)  # noqa: E731
    st.download_button("Report (HTML)", data=build, file_name=f"judgebias-report-{_slug(dataset_id)}.html",
                       mime="text/html", key=key or f"share-report-{_slug(dataset_id)}", on_click="ignore",
                       icon=":material/description:",
                       help="One file that opens offline in any browser: plain-sentence summary, charts, tables "
                            "with their counts, how each number was measured, and where the data came from.")
