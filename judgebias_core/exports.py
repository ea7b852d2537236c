"""File exports of tables and charts: safe CSV, Parquet, and static PNG/SVG images of plotly figures.

Static images go through kaleido, which drives a local Chrome/Chromium (Debian's ``/usr/bin/chromium`` by
default); nothing is downloaded at run time.
"""

from __future__ import annotations

import io
import math
import os
import re
import shutil
from typing import Literal

import numpy as np
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


# Short headers the pages use in narrow tables, spelled out for a file that travels without the page.
FULL_COLUMN_NAMES = {
    "PC": "position consistency", "PF": "preference fairness", "RS": "repetition stability",
    "rep": "repetition", "rep. floor": "repetition floor", "PF units": "preference fairness units",
    "Wilson low": "flip rate Wilson 95% low", "Wilson high": "flip rate Wilson 95% high",
    "bootstrap low": "flip rate item-bootstrap 95% low", "bootstrap high": "flip rate item-bootstrap 95% high",
    "flip rate - floor": "flip rate minus repetition floor", "n": "count", "k": "score options",
    "ci_low": "95% interval low", "ci_high": "95% interval high",
}
SIGNIFICANT_DIGITS = 4


def readable_number(value: float) -> str:
    """A float as a person reads it: 4 significant digits, no exponent for ordinary magnitudes."""
    if not math.isfinite(value):
        return "" if math.isnan(value) else str(value)
    if value == 0 or 1e-4 <= abs(value) < 1e4:
        return np.format_float_positional(value, precision=SIGNIFICANT_DIGITS, unique=False, fractional=False,
                                          trim="-")
    return f"{value:.1f}" if abs(value) >= 1e4 else f"{value:.{SIGNIFICANT_DIGITS - 1}e}"


def full_column_name(name: object) -> str:
    """A header spelled out: known abbreviations expanded, snake_case as words."""
    text = str(name)
    return FULL_COLUMN_NAMES.get(text, text.replace("_", " ") if text.isidentifier() else text)


def readable_csv_bytes(frame: pd.DataFrame) -> bytes:
    """The CSV a person opens in a spreadsheet: floats rounded to 4 significant digits, headers spelled out.

    The unrounded values stay in the Parquet download (``parquet_bytes``)."""
    readable = frame.rename(columns=full_column_name)
    for column in readable.columns[[pd.api.types.is_float_dtype(t) for t in readable.dtypes]]:
        # Back to numbers, so the spreadsheet reads them as numbers (and a minus sign is not taken for a formula).
        readable[column] = readable[column].map(lambda v: float(readable_number(v)) if pd.notna(v) else v)
    return csv_bytes(readable)


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
