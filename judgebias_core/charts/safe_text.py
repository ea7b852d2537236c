"""Show data text in plotly figures as written: plotly reads a subset of HTML in labels, data must not add markup.

Only ``<`` and ``>`` are replaced by entities (plotly shows entities as characters), which makes the escape
idempotent: a label escaped twice still shows the same. ``literal_figure`` keeps the ``<br>`` that
``charts.style.wrap_label`` puts into long labels (data text was escaped before wrapping, so it carries none).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

# Trace attributes whose strings are displayed (ticks, legend, hover, cell text).
DISPLAYED_TRACE_FIELDS = ("x", "y", "text", "hovertext", "name", "labels", "customdata", "values", "header", "cells")


def plot_label(text: object) -> str:
    """A data string made literal for plotly text."""
    return str(text).replace("<", "&lt;").replace(">", "&gt;")


LINE_BREAK = "<br>"


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        # Line breaks the charts put into wrapped labels stay; data text reaches here already escaped.
        return LINE_BREAK.join(plot_label(part) for part in value.split(LINE_BREAK))
    if isinstance(value, np.ndarray):
        return np.vectorize(_literal, otypes=[object])(value) if value.dtype.kind in "OUS" else value
    if isinstance(value, list | tuple):
        return [_literal(v) for v in value]
    if isinstance(value, dict):
        return {k: _literal(v) if k in ("values", "text") else v for k, v in value.items()}
    return value


def literal_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A figure dictionary (``fig.to_dict()``) whose displayed trace text is made literal, changed in place."""
    for trace in spec.get("data", []):
        for name in DISPLAYED_TRACE_FIELDS:
            if name in trace:
                trace[name] = _literal(trace[name])
    return spec


def literal_figure(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` whose displayed trace text cannot be read as markup (layout text is left as written)."""
    return go.Figure(literal_spec(fig.to_dict()), skip_invalid=True)
