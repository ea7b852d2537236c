"""One look for every figure, whatever process builds it: a pinned template, margins that fit the labels, colours.

Why a pinned template: importing Streamlit sets ``plotly.io.templates.default = "streamlit"``
(``streamlit/elements/lib/streamlit_plotly_theme.py``), a template whose colours are placeholders
(``#000001``...) that only Streamlit's frontend replaces and whose axes do not push the margins. A figure built in
the dashboard process took that template at construction, so its HTML, PNG and SVG exports drew every trace black
and cut the tick labels at the edge. ``styled`` sets our own template and the layout that matters (automargin,
colorway, margins) on the figure itself, and ``pinned`` re-applies the template to any figure before it is
serialised for a file, so a figure renders the same from the CLI, the dashboard or a notebook.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

import numpy as np
import plotly.graph_objects as go

from judgebias_core.charts.safe_text import plot_label
from judgebias_core.simulated import judge_note, simulated_among

# Okabe-Ito (distinguishable with the common colour-vision deficiencies), then four more for larger judge sets.
PALETTE: tuple[str, ...] = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C564B",
                            "#000000", "#999999", "#BCBD22", "#17BECF", "#F0E442")
PRIMARY = PALETTE[0]
SECONDARY = PALETTE[1]
HIGHLIGHT = "#C62828"
MUTED = "#9AB8D6"
REFERENCE_LINE = "#6E7781"
FIRST_SLOT = PALETTE[3]
SECOND_SLOT = PALETTE[2]
TEXT = "#1F2328"
GRID = "#E6E8EB"
FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif'
FONT_SIZE = 12
# Average advance of a character at FONT_SIZE in the fonts above, generous so a measured margin never cuts a label.
CHAR_WIDTH = 7.0
MAX_MEASURED_MARGIN = 340
LABEL_WIDTH = 26  # characters per line before a long tick label wraps
MAX_LABEL_LINES = 3  # past this a label is abbreviated, the full text kept on hover and in the legend table

# At the container's top edge, pushing the top margin: never cut by the edge, never on the legend or the plot.
TITLE_PLACE = {"x": 0, "xanchor": "left", "xref": "container", "y": 1, "yanchor": "top", "yref": "container",
               "pad": {"t": 12, "l": 12}, "automargin": True}
_AXIS = {"automargin": True, "gridcolor": GRID, "linecolor": "#8C959F", "zerolinecolor": "#D0D7DE",
         "ticks": "outside", "tickcolor": "#8C959F", "title": {"standoff": 10}}

TEMPLATE = go.layout.Template(layout={
    "font": {"family": FONT_FAMILY, "size": FONT_SIZE, "color": TEXT},
    "paper_bgcolor": "#FFFFFF", "plot_bgcolor": "#FFFFFF", "colorway": list(PALETTE),
    "xaxis": _AXIS, "yaxis": _AXIS,
    "title": {**TITLE_PLACE, "font": {"size": 15}},
    "hoverlabel": {"align": "left"},
    "legend": {"font": {"size": FONT_SIZE}},
    "colorscale": {"sequential": "Viridis", "diverging": "RdBu"},
})

LegendPlace = Literal["top", "bottom", "right", "none"]
_BREAK_AFTER = re.compile(r"(?<=[ ·/_\-])")


def wrap_label(text: str, width: int = LABEL_WIDTH) -> str:
    """A long label broken into lines (``<br>``) after spaces, dots, slashes, dashes or underscores.

    Past MAX_LABEL_LINES lines the label is cut with an ellipsis; callers keep the full text for hover.
    """
    if len(text) <= width:
        return text
    lines: list[str] = []
    line = ""
    for piece in _BREAK_AFTER.split(text):
        while len(piece) > width:  # one unbreakable run longer than a line
            if line:
                lines.append(line)
                line = ""
            lines.append(piece[:width])
            piece = piece[width:]
        if len(line) + len(piece) > width and line:
            lines.append(line)
            line = ""
        line += piece
    if line:
        lines.append(line)
    lines = [entry.rstrip() for entry in lines]
    if len(lines) > MAX_LABEL_LINES:
        lines = lines[:MAX_LABEL_LINES]
        lines[-1] = lines[-1][: width - 1] + "…"
    return "<br>".join(lines)


def is_abbreviated(shown: str) -> bool:
    return shown.endswith("…")


def label_lines(labels: Iterable[object]) -> int:
    """The most lines any of these (wrapped) labels takes."""
    return max((str(label).count("<br>") + 1 for label in labels), default=1)


def label_width_px(labels: Iterable[object]) -> int:
    """Pixels the widest line of these labels needs at FONT_SIZE (estimated, on the generous side)."""
    longest = max((len(line) for label in labels for line in str(label).split("<br>")), default=0)
    return int(longest * CHAR_WIDTH) + 16


def category_rows(count: int, lines: int = 1, per_line: int = 15, minimum: int = 30) -> int:
    """Pixels for ``count`` rows of a category axis whose labels take ``lines`` lines."""
    return count * max(minimum, per_line * lines + 12)


def _category_labels(fig: go.Figure, axis: Literal["x", "y"]) -> list[str]:
    labels: list[str] = []
    for trace in fig.data:
        values = getattr(trace, axis, None)
        if values is not None and len(values) and isinstance(values[0], str):
            labels += [str(v) for v in values]
    return labels


def _legend(place: LegendPlace) -> dict[str, object]:
    if place == "top":
        return {"showlegend": True, "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02,
                                               "yanchor": "bottom", "yref": "paper"}}
    if place == "bottom":
        # Anchored to the container's bottom edge: it pushes the margin instead of sitting on the axis title.
        return {"showlegend": True, "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 0,
                                               "yanchor": "bottom", "yref": "container"}}
    if place == "right":
        return {"showlegend": True, "legend": {"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1,
                                               "yanchor": "top"}}
    return {"showlegend": False}


def _shown_labels(fig: go.Figure) -> list[object]:
    """Every name the figure shows for its data: trace names, category ticks and subplot titles."""
    labels: list[object] = [trace.name for trace in fig.data if trace.name]
    labels += _category_labels(fig, "x") + _category_labels(fig, "y")
    labels += [note.text for note in fig.layout.annotations or () if note.text]
    return [str(label).replace("<br>", "") for label in labels]


def _meta(fig: go.Figure) -> dict[str, object]:
    meta = fig.layout.meta
    return dict(meta) if isinstance(meta, dict) else {}


def _show_judge_note(fig: go.Figure) -> go.Figure:
    """The judge note under the title (``layout.meta["judge_note"]``), or as the title of an untitled figure."""
    note = str(_meta(fig).get("judge_note") or "")
    if not note:
        return fig
    shown = plot_label(note)
    title = fig.layout.title.text or ""
    if not title or title == shown:
        return fig.update_layout(title={"text": shown, "subtitle": {"text": ""}, **TITLE_PLACE},
                                 margin={"t": max(64, fig.layout.margin.t or 0)})
    return fig.update_layout(title={"subtitle": {"text": shown, "font": {"size": 13, "color": TEXT}}},
                             margin={"t": max(80, fig.layout.margin.t or 0)})


def styled(fig: go.Figure, *, height: int | None = None, legend: LegendPlace | None = None,
           full_labels: dict[str, str] | None = None, judges: Iterable[str] = ()) -> go.Figure:
    """``fig`` with the pinned template, automargin on every axis and a left margin measured from its labels.

    ``full_labels`` maps an abbreviated tick or legend label to its full text; the report prints it as a legend
    table under the chart (kept in ``layout.meta``). ``judges`` are the judges the chart is about when its data do
    not name them: the chart then names its judge under the title, and says "simulated" whenever a simulated judge
    is among ``judges`` or among the names the chart shows (``judgebias_core.simulated``), so every page, report
    and exported image of it says so.
    """
    left = min(MAX_MEASURED_MARGIN, max(60, label_width_px(_category_labels(fig, "y")) + 24))
    has_title = bool(fig.layout.title.text)
    fig.update_layout(template=TEMPLATE, colorway=list(PALETTE), font={"family": FONT_FAMILY, "size": FONT_SIZE},
                      margin={"l": left, "r": 24, "t": 64 if has_title else 28, "b": 48, "autoexpand": True},
                      title=TITLE_PLACE if has_title else None)
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    if height is not None:
        fig.update_layout(height=height)
    if legend is not None:
        fig.update_layout(**_legend(legend))
    meta = _meta(fig)
    if full_labels:
        meta["full_labels"] = {short: full for short, full in full_labels.items() if short != full}
    named = [str(judge) for judge in judges]
    shown = _shown_labels(fig)
    meta["judges"] = list(dict.fromkeys(named))
    meta["simulated"] = list(simulated_among([*named, *shown]))
    meta["judge_note"] = judge_note(named, shown)
    fig.update_layout(meta=meta)
    return _show_judge_note(fig)


def retitled(fig: go.Figure, title: str) -> go.Figure:
    """``fig`` with a new title, keeping the top margin and title placement ``styled`` gives titled figures, and
    the judge note ``styled`` put under the old one."""
    fig.update_layout(title={"text": title, **TITLE_PLACE}, margin={"t": max(64, fig.layout.margin.t or 0)})
    return _show_judge_note(fig)


def simulated_in(fig: go.Figure) -> tuple[str, ...]:
    """The simulated judges ``styled`` found in this figure (for download names)."""
    return tuple(str(name) for name in _meta(fig).get("simulated") or ())  # type: ignore[attr-defined]


def pinned(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` with the pinned template, whatever ``plotly.io.templates.default`` was when it was built."""
    copy = go.Figure(fig)
    copy.layout.template = TEMPLATE
    return copy


def wrapped_labels(names: Sequence[str], width: int = LABEL_WIDTH) -> tuple[list[str], dict[str, str]]:
    """Each name wrapped for a tick label, and {shown: full} for the names that had to be abbreviated."""
    shown = [wrap_label(name, width) for name in names]
    return shown, {s: n for s, n in zip(shown, names, strict=True) if is_abbreviated(s)}


def log_ticks(values: Iterable[float]) -> dict[str, list[object]]:
    """Tick values and labels for a log axis over ``values``: 1, 2, 5 times each power of ten, written in full
    ("200", "1,000", "0.5"), so the axis never reads "6 7 8 9 100 2 3" (plotly's minor-digit labels)."""
    finite = [float(v) for v in values if v is not None and np.isfinite(v) and v > 0]
    if not finite:
        return {}
    low, high = min(finite), max(finite)
    ticks = [m * 10.0 ** e for e in range(int(np.floor(np.log10(low))) - 1, int(np.ceil(np.log10(high))) + 2)
             for m in (1, 2, 5)]
    inside = [t for t in ticks if low / 1.5 <= t <= high * 1.5] or [low, high]
    return {"tickvals": list(inside), "ticktext": [f"{t:,.0f}" if t >= 1 else f"{t:g}" for t in inside]}


def named_cells(layers: Sequence[object], rows: Sequence[str], columns: Sequence[str]) -> np.ndarray:
    """Heatmap customdata: each layer's cell value, then the cell's full row and column names (for the hover,
    since the tick labels may be wrapped or shortened)."""
    shape = (len(rows), len(columns))
    row_names = np.broadcast_to(np.asarray(rows, dtype=object)[:, None], shape)
    column_names = np.broadcast_to(np.asarray(columns, dtype=object)[None, :], shape)
    return np.dstack([*(np.asarray(layer, dtype=object).reshape(shape) for layer in layers), row_names,
                      column_names])
