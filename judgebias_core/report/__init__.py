"""The self-contained HTML report: plain sentences, offline charts, tables with counts, provenance."""

from __future__ import annotations

import os
from pathlib import Path

from judgebias_core.report.build import build_report, resolve_scope
from judgebias_core.report.model import Report, ReportRequest, ReportSection, ReportTable
from judgebias_core.report.render import render_html
from judgebias_core.store.handle import Store

__all__ = ["Report", "ReportRequest", "ReportSection", "ReportTable", "build_report", "build_report_html",
           "render_html", "resolve_scope", "write_report"]


def build_report_html(store: Store, request: ReportRequest) -> str:
    """The report for ``request`` as one HTML document, read on one snapshot."""
    with store.reader() as reader:
        report = build_report(reader, request)
    return render_html(report)


def write_report(store: Store, request: ReportRequest, out: str | os.PathLike[str]) -> Path:
    """Build the report and write it to ``out`` (UTF-8); returns the file written."""
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(build_report_html(store, request), encoding="utf-8")
    return target
