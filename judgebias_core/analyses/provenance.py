"""What a report states about where its figures come from: the scope it covers (dataset, judges, runs) and the
judges, runs and prompt templates behind them (``store/report_queries.py``, read by ``report/build.py`` through
``analyses/`` as the layer table wants)."""

from __future__ import annotations

from judgebias_core.store.report_queries import provenance_judges, provenance_runs, provenance_templates, report_scope

__all__ = ["provenance_judges", "provenance_runs", "provenance_templates", "report_scope"]
