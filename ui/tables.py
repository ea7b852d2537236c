"""The dashboard's tables: ``show_table`` draws a frame with every header readable.

Streamlit sizes a column to its cells, so a column of short numbers under a long header ("Wilson high") cuts the
header to "Wilso…". Here each column gets a width that fits its header and (up to a cap) its cells, a label with
abbreviations spelled out, the full name as hover help, whole numbers with thousands separators, and empty text
cells instead of "None" (a missing number keeps Streamlit's grey marker, so number columns still sort). Columns
of long text give way (never below their header) so a table fits a laptop's main column where it can. A page's
own ``column_config`` entries win over these defaults.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from judgebias_core.exports import FULL_COLUMN_NAMES, full_column_name

# Glide's header and cell font (14 px sans) averages about 7.5 px per character; the header adds room for its
# sort arrow and menu, a cell its padding.
PX_PER_CHAR = 7.5
HEADER_PADDING_PX = 40
CELL_PADDING_PX = 24
MIN_WIDTH_PX = 60
MAX_WIDTH_PX = 420
# The main column's width on a 1,280 px screen (wide layout, sidebar open: about 820 px): a table whose columns add up to more
# scrolls sideways, and right-aligned numbers past the edge look like empty cells. Long text cells give way first.
TABLE_BUDGET_PX = 800
# Cells measured per column: enough to find the long ones without formatting a long table.
MEASURED_ROWS = 200
# Prose narrowed to fit wraps onto more lines in taller rows (small tables only: a long one stays compact and
# shows a cut cell whole on hover).
MAX_WRAPPED_LINES = 4
PROSE_MIN_PX = 220
MAX_WRAPPED_ROWS = 60
LINE_HEIGHT_PX = 20
MIN_WRAPPING_ROW_PX = 66  # the grid wraps text only in rows taller than 4 rem (64 px)
HEADER_HEIGHT_PX = 36
MAX_TABLE_HEIGHT_PX = 900
ROW_PADDING_PX = 14
FLOAT_CHARS = 7  # "0.4531" / "1.2e-05": what a float column shows with the pages' formats


def column_label(name: object) -> str:
    """A header as the table shows it: abbreviations and snake_case spelled out ("PC" -> "position consistency",
    "PF raw" -> "preference fairness raw")."""
    label = full_column_name(name)
    first, _, rest = label.partition(" ")
    if rest and first.isupper() and first in FULL_COLUMN_NAMES:
        return f"{FULL_COLUMN_NAMES[first]} {rest}"
    return label


def _cell_chars(column: pd.Series) -> int:
    sample = column.head(MEASURED_ROWS)
    if pd.api.types.is_float_dtype(sample.dtype):
        return FLOAT_CHARS
    if pd.api.types.is_integer_dtype(sample.dtype):
        longest = max((abs(int(v)) for v in sample.dropna()), default=0)
        return len(f"{longest:,}") + 1
    text = sample.dropna().astype(str)
    return int(text.str.len().max()) if len(text) else 0


def header_width(name: object, label: str | None = None) -> int:
    """Pixels that hold a column's whole header (label, sort arrow and menu)."""
    return math.ceil(max(MIN_WIDTH_PX, len(label or column_label(name)) * PX_PER_CHAR + HEADER_PADDING_PX))


def column_width(name: object, column: pd.Series, label: str | None = None) -> int:
    """Pixels for a column: its whole header and its cells, up to ``MAX_WIDTH_PX`` (longer cells show on hover)."""
    cells = _cell_chars(column) * PX_PER_CHAR + CELL_PADDING_PX
    return math.ceil(min(MAX_WIDTH_PX, max(header_width(name, label), cells)))


def fit_widths(widths: Mapping[str, int], headers: Mapping[str, int], budget: int = TABLE_BUDGET_PX,
               wrappable: Iterable[str] | None = None) -> dict[str, int]:
    """``widths`` narrowed to add up to ``budget`` where they can: only the room a column takes beyond its header
    (long cells) gives way, in proportion, so every header stays whole; a table whose headers alone exceed the
    budget keeps its widths and scrolls. With ``wrappable`` given, only those columns (prose, which the table
    wraps onto more lines) give way: an id, a name or a number is never cut."""
    excess = sum(widths.values()) - budget
    giving = set(widths) if wrappable is None else set(wrappable)
    slack = {k: max(0, w - headers.get(k, w)) if k in giving else 0 for k, w in widths.items()}
    total_slack = sum(slack.values())
    if excess <= 0 or total_slack == 0 or (wrappable is None and excess > total_slack):
        return dict(widths)  # fits already, or nothing can give way: it scrolls, its cells whole
    share = min(1.0, excess / total_slack)  # wrapping columns keep their cells whole on more lines
    return {k: w - math.ceil(slack[k] * share) for k, w in widths.items()}


def is_prose(column: pd.Series) -> bool:
    """Text with spaces (a description, a licence): it can wrap; an id or a one-word name cannot."""
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return False
    text = column.head(MEASURED_ROWS).dropna().astype(str)
    return bool(len(text)) and bool(text.str.contains(" ").any())


def wrapped_lines(width_px: int, column: pd.Series) -> int:
    """Lines the longest cell of a text column takes at ``width_px`` (greedy by words, as the grid wraps)."""
    room = max(1.0, (width_px - CELL_PADDING_PX) / PX_PER_CHAR)
    most = 1
    for text in column.head(MEASURED_ROWS).dropna().astype(str):
        lines, used = 1, 0
        for word in text.split():
            need = len(word) + (1 if used else 0)
            if used and used + need > room:
                lines, used = lines + 1, len(word)
            else:
                used += need
        most = max(most, lines)
    return most


def _help(name: object, label: str) -> str:
    text = str(name)
    return f"{text}: {label}" if text in FULL_COLUMN_NAMES or label == column_label(name) != text else label


def readable_column_config(frame: pd.DataFrame, column_config: Mapping[str, Any] | None = None,
                           spell_out: bool = True) -> dict[str, Any]:
    """``column_config`` for ``frame``: the page's own entries, completed with a full label (the header as it is
    without ``spell_out``: a user's own file), help and a width that fits the header; a column the page hides
    (``None``) stays hidden."""
    given = dict(column_config or {})
    config: dict[str, Any] = {}
    fitted: dict[str, int] = {}  # the widths set here (a page's own widths stay as given)
    headers: dict[str, int] = {}
    for name in frame.columns:
        key = str(name)
        entry = given.pop(key, {})
        if entry is None:
            config[key] = None
            continue
        # st.column_config.* fill every field they do not set with None: those count as unset here.
        entry = {"label": entry} if isinstance(entry, str) else {k: v for k, v in entry.items() if v is not None}
        label = entry.setdefault("label", column_label(name) if spell_out else key)
        entry.setdefault("help", _help(name, label))
        shown_text = (entry.get("type_config") or {}).get("display_text")
        # A link column shows its display text, not the address in its cells.
        cells = pd.Series([shown_text]) if isinstance(shown_text, str) else frame[name]
        if "width" not in entry:
            entry["width"] = column_width(name, cells, label)
            fitted[key] = entry["width"]
            headers[key] = header_width(name, label)
        if pd.api.types.is_integer_dtype(frame[name].dtype) and "type_config" not in entry:
            entry["type_config"] = {"type": "number", "format": "localized"}  # 20,184 rather than 20184
        config[key] = entry
    fixed = sum(int(e["width"]) for k, e in config.items() if e is not None and k not in fitted
                and isinstance(e.get("width"), int))
    # Prose wraps; a cell longer than the widest column is cut (shown whole on hover) however wide it is.
    prose = [key for key in fitted if is_prose(frame[_column(frame, key)])]
    cut_anyway = [key for key in fitted if _cell_chars(frame[_column(frame, key)]) * PX_PER_CHAR + CELL_PADDING_PX
                  > MAX_WIDTH_PX]
    # Prose keeps a readable measure: it wraps onto at most a few lines rather than a word per line.
    floors = {k: max(h, min(fitted[k], PROSE_MIN_PX)) if k in prose else h for k, h in headers.items()}
    for key, width in fit_widths(fitted, floors, max(0, TABLE_BUDGET_PX - fixed), [*prose, *cut_anyway]).items():
        config[key]["width"] = width
    config.update(given)  # entries for the index or columns not in the frame, as the page gave them
    return config


def _column(frame: pd.DataFrame, key: str) -> object:
    return next(name for name in frame.columns if str(name) == key)


def row_height(frame: pd.DataFrame, config: Mapping[str, Any]) -> int | None:
    """A row height that lets narrowed prose cells wrap whole (the grid wraps text only in rows taller than 4 rem);
    None when every cell fits on one line."""
    lines = max((wrapped_lines(int(entry["width"]), frame[_column(frame, key)]) for key, entry in config.items()
                 if isinstance(entry, dict) and isinstance(entry.get("width"), int) and key in map(str, frame.columns)
                 and is_prose(frame[_column(frame, key)])), default=1)
    if lines <= 1:
        return None
    return max(MIN_WRAPPING_ROW_PX, min(MAX_WRAPPED_LINES, lines) * LINE_HEIGHT_PX + ROW_PADDING_PX)


def float_columns(frame: pd.DataFrame, number_format: str = "%.3f") -> dict[str, Any]:
    """``column_config`` giving every float column of ``frame`` one format, so a column reads 0.675 next to 0.754
    rather than 0.675 next to 0.7541."""
    return {str(c): st.column_config.NumberColumn(format=number_format) for c in frame.columns
            if pd.api.types.is_float_dtype(frame[c])}


def without_none(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns with empty cells where a value is missing (Streamlit writes "None")."""
    text_columns = [c for c in frame.columns if (frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c]))
                    and frame[c].isna().any()]
    if not text_columns:
        return frame
    return frame.assign(**{str(c): frame[c].where(frame[c].notna(), "") for c in text_columns})


def show_table(data: pd.DataFrame | list[dict[str, Any]], column_config: Mapping[str, Any] | None = None,
               spell_out: bool = True, **kwargs: Any) -> None:
    """``st.dataframe`` with readable headers (see the module doc; ``spell_out=False`` keeps the headers as they
    are, for a user's own file); other arguments pass through, with ``hide_index=True`` and ``width="stretch"``
    unless given."""
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("width", "stretch")
    config = readable_column_config(frame, column_config, spell_out)
    if "row_height" not in kwargs and len(frame) <= MAX_WRAPPED_ROWS and (height := row_height(frame, config)):
        kwargs["row_height"] = height
        kwargs.setdefault("height", min(MAX_TABLE_HEIGHT_PX, HEADER_HEIGHT_PX + height * len(frame) + 3))
    st.dataframe(without_none(frame), column_config=config, **kwargs)


def show_record(row: pd.Series, field: str = "field", value: str = "value", spell_out: bool = True) -> None:
    """One row of a table read downwards: a ``field`` column with each column's readable label (its name as it
    is without ``spell_out``: judge names), a ``value`` column with its value as text (empty where missing)."""
    values = ["" if pd.isna(v) else str(v) for v in row.tolist()]
    names = [column_label(name) if spell_out else str(name) for name in row.index]
    show_table(pd.DataFrame({field: names, value: values}))
