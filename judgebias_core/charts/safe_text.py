"""Show data text in plotly figures as written: plotly reads a subset of HTML in labels, data must not add markup.

Only ``<`` and ``>`` are replaced by entities (plotly shows entities as characters), which makes the escape
idempotent: a label escaped twice still shows the same.
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


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        return plot_label(value)
    if isinstance(value, np.ndarray):
        return np.vectorize(_literal, otypes=[object])(value) if value.dtype.kind in "OUS" else value
    if isinstance(value, list | tuple):
        return [_literal(v) for v in value]
    if isinstance(value, dict):
        return {k: _literal(v) if k in ("values", "text") else v for k, v in value.items()}
    return value


def literal_figure(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` whose displayed trace text cannot be read as markup (layout text is left as written)."""
    spec = fig.to_dict()
    for trace in spec.get("data", []):
        for name in DISPLAYED_TRACE_FIELDS:
            if name in trace:
                trace[name] = _literal(trace[name])
    return go.Figure(spec, skip_invalid=True)
