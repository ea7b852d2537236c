"""What the dashboard and the report read about the store's datasets: counts, summaries, items and their calls.

These are the store's descriptive reads (``store/queries.py``, ``store/report_queries.py``) offered where the
interfaces and the report may reach them: pages, ``ui/`` and ``report/`` read the store through ``analyses/`` only
(docs/ARCHITECTURE.md, "Layers"). Nothing is computed on them.
"""

from __future__ import annotations

from judgebias_core.store.queries import (
    call_detail,
    calls_for_item,
    dataset_summaries,
    dataset_summary,
    item_answers,
    item_labels,
    items_page,
    list_rubrics,
    store_overview,
)
from judgebias_core.store.report_queries import dataset_has_labels

__all__ = [
    "call_detail",
    "calls_for_item",
    "dataset_has_labels",
    "dataset_summaries",
    "dataset_summary",
    "item_answers",
    "item_labels",
    "items_page",
    "list_rubrics",
    "store_overview",
]
