"""File exports of tables and charts: safe CSV, Parquet, and static PNG/SVG images of plotly figures.

Static images go through kaleido, which drives a local Chrome/Chromium (Debian's ``/usr/bin/chromium`` by
default); nothing is downloaded at run time.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from typing import Literal

import pandas as pd
import plotly.graph_objects as go

from judgebias_core.charts.style import pinned
from judgebias_core.errors import ExportUnavailable

ImageFormat = Literal["png", "svg"]

# A spreadsheet treats a cell starting with one of these as a formula (tab and CR can smuggle one in too).
FORMULA_TRIGGER = r"^(?:\s*[=+\-@]|[\t\r])"
_FORMULA_TRIGGER = re.compile(FORMULA_TRIGGER)
CHROME_ENV_VARS = ("JUDGEBIAS_CHROME", "BROWSER_PATH")
CHROME_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
IMAGE_WIDTH = 1000
IMAGE_HEIGHT = 600


def neutralise_text(value: str) -> str:
    """One cell or header made inert for spreadsheets: a leading quote when it could start a formula."""
    return "'" + value if _FORMULA_TRIGGER.match(value) else value


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text cells and column names can no longer be read as spreadsheet formulas."""
    safe = frame.copy()
    for column in safe.columns:
        values = safe[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        elif not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue
        hostile = values.str.match(FORMULA_TRIGGER, na=False).astype(bool)
        if hostile.any():
            values = values.astype(object)
            values[hostile] = "'" + values[hostile].astype(str)
            safe[column] = values
    safe.columns = [neutralise_text(str(name)) for name in safe.columns]
    return safe


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV (UTF-8 with a byte-order mark so spreadsheets read accents), formula-injection neutralised."""
    # CRLF line ends (RFC 4180) also make the writer quote cells holding a bare CR, which would split a row.
    return neutralise_frame(frame).to_csv(index=False, lineterminator="\r\n").encode("utf-8-sig")


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """Parquet bytes of the table; columns of mixed Python objects are written as text."""
    table = frame.rename(columns=str).reset_index(drop=True)
    buffer = io.BytesIO()
    try:
        table.to_parquet(buffer, index=False, engine="pyarrow")
    except (TypeError, ValueError):  # pyarrow's ArrowTypeError / ArrowInvalid: a column mixes Python types
        mixed = [c for c in table.columns if pd.api.types.is_object_dtype(table[c])]
        buffer = io.BytesIO()
        table.astype({c: "string" for c in mixed}).to_parquet(buffer, index=False, engine="pyarrow")
    return buffer.getvalue()


def chrome_path() -> str | None:
    """The Chrome/Chromium kaleido should drive: $JUDGEBIAS_CHROME, $BROWSER_PATH, else Debian's chromium."""
    for variable in CHROME_ENV_VARS:
        if (value := os.environ.get(variable)) and os.access(value, os.X_OK):
            return value
    for candidate in CHROME_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium") or shutil.which("google-chrome")


def figure_image_bytes(fig: go.Figure, fmt: ImageFormat, width: int | None = None, height: int | None = None,
                       scale: float = 2.0) -> bytes:
    """A static PNG or SVG of a plotly figure, rendered by kaleido in the local Chromium (no download)."""
    try:
        import kaleido  # noqa: PLC0415 - optional at import time; only image exports need it
    except ImportError as error:
        raise ExportUnavailable("chart images need the kaleido package (see requirements.txt)") from error
    browser = chrome_path()
    if browser is None:
        raise ExportUnavailable("chart images need Chrome or Chromium; install Debian's chromium or set "
                                "JUDGEBIAS_CHROME to its path")
    fig = pinned(fig)  # the same look whichever template the building process made the default
    layout = fig.layout
    opts = {"format": fmt, "width": width or layout.width or IMAGE_WIDTH,
            "height": height or layout.height or IMAGE_HEIGHT, "scale": scale if fmt == "png" else 1}
    try:
        # mathjax=False: kaleido would otherwise fetch MathJax from a CDN; plotly.js comes from the plotly package.
        image = kaleido.calc_fig_sync(fig.to_dict(), opts=opts, kopts={"path": browser, "mathjax": False})
    except Exception as error:
        raise ExportUnavailable(f"could not render the chart image with {browser}: {error}") from error
    return image if isinstance(image, bytes) else str(image).encode("utf-8")
