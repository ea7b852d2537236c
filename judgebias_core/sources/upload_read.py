"""Read an uploaded table (CSV, JSON Lines, JSON, Parquet, XLSX) from bytes, with encoding and size checks.

Every cell is kept as the file gives it (text stays text: ids like "007" are not turned into numbers);
problems are collected as ``RowProblem``s and raised together in one ``ValidationFailed``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from judgebias_core.errors import RowProblem, UploadLimitExceeded, ValidationFailed
from judgebias_core.sources import upload_xlsx
from judgebias_core.sources.refused_characters import CONTROL_CHARACTERS, REFUSED_CHARACTERS, control_problem
from judgebias_core.sources.upload_binary_limits import check_parquet, check_xlsx
from judgebias_core.sources.upload_limits import UploadLimits, check_limit, check_shape, refuse

MAX_UPLOAD_BYTES = UploadLimits.max_bytes  # the default; the configured limits are UploadLimits.from_environment()
# Lists and objects inside a cell may nest this deep by default; deeper is refused (a parser would run out of stack).
MAX_NESTING = UploadLimits.max_nesting
JSON_LINE_END = re.compile(r"\r?\n")
TABLE_SUFFIXES: dict[str, str] = {
    ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
    ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx",
}


def file_problem(reason: str, row: int | None = None, column: str | None = None) -> ValidationFailed:
    return ValidationFailed([RowProblem(row=row, column=column, reason=reason)])


def table_format(file_name: str) -> str:
    """The table format a file name announces (csv, tsv, jsonl, json, parquet, xlsx)."""
    suffix = PurePath(file_name).suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise file_problem(f"unsupported file type {suffix or '(none)'!r}: use CSV, JSON Lines, JSON, Parquet or XLSX")
    return TABLE_SUFFIXES[suffix]


def check_size(data: bytes, max_bytes: int = MAX_UPLOAD_BYTES) -> None:
    """Empty and oversized files are refused before anything reads them."""
    if not data or not data.strip():
        raise file_problem("the file is empty")
    check_limit(UploadLimits(max_bytes=max_bytes), "max_bytes", len(data), "the file is")


def decode_text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark is allowed); anything else is a 'wrong encoding' problem with its line."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise file_problem("the file is UTF-16; save it as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise file_problem(
            f"wrong encoding: byte 0x{data[error.start]:02x} at line {line} is not UTF-8; save the file as UTF-8",
            row=line,
        ) from error
    return text


def nested_too_deeply(row: int | None = None, column: str | None = None, max_nesting: int = MAX_NESTING) -> RowProblem:
    return RowProblem(row, column, f"nested too deeply (lists or objects more than {max_nesting} levels deep)")


def binary_problem(value: object) -> str | None:
    """Why a cell holding bytes is refused (a binary Parquet column, not text), or None."""
    if isinstance(value, bytes | bytearray | memoryview):
        return "binary data, not text: store this column as text (UTF-8 strings)"
    return None


def value_problem(value: Any, max_nesting: int = MAX_NESTING) -> str | None:
    """Why a nested cell value (lists, objects, strings) is refused: too deep, or a control character."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, np.ndarray):
            item = item.tolist()
        if isinstance(item, str):
            reason = control_problem(item)
            if reason:
                return reason
        elif binary := binary_problem(item):
            return binary
        elif isinstance(item, list | tuple | dict):
            if depth >= max_nesting:
                return nested_too_deeply(max_nesting=max_nesting).reason
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else list(item)
            stack.extend((child, depth + 1) for child in children)
    return None


def cell_problems(frame: pd.DataFrame, max_nesting: int = MAX_NESTING) -> list[RowProblem]:
    """Control characters and too deep nesting in any cell or column name, whatever the file's format."""
    problems = [RowProblem(None, repr(str(name)), reason) for name in frame.columns
                if (reason := control_problem(str(name), "in a column name"))]
    for name in frame.columns:
        column = frame[name]
        if column.dtype != object and not pd.api.types.is_string_dtype(column.dtype):
            continue
        text = column.astype(object)
        # Vectorised over the column; a list's str() escapes its control characters, so lists are walked apart.
        try:
            flagged = text.astype(str).str.contains(CONTROL_CHARACTERS.pattern, regex=True)
        except UnicodeError:  # a lone surrogate or bytes, which Arrow's UTF-8 strings cannot hold: cell by cell
            flagged = text.map(lambda v: isinstance(v, str) and REFUSED_CHARACTERS.search(v) is not None)
        nested = text.map(lambda v: isinstance(v, list | dict | tuple | np.ndarray | bytes | bytearray))
        for index in text.index[flagged | nested]:
            reason = value_problem(text[index], max_nesting)
            if reason:
                problems.append(RowProblem(int(index) + 1, str(name), reason))
    return problems


def _read_delimited(text: str, delimiter: str, limits: UploadLimits) -> pd.DataFrame:
    """CSV/TSV with a header row; a row with more or fewer fields than the header is an unparseable row. Read row
    by row: the header's width, then the rows and cells so far, are held to the limits before the next row."""
    csv.field_size_limit(max(csv.field_size_limit(), limits.max_bytes))  # long answers exceed the 128 kB default
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    body: list[list[str]] = []
    try:
        header = next((row for row in reader if row), None)
        if header is None:
            raise file_problem("the file is empty")
        check_limit(limits, "max_columns", len(header), "the header has")
        cells = 0
        for row in reader:
            if not row:
                continue
            body.append(row)
            cells += len(row)
            if len(body) > limits.max_rows:
                raise refuse(limits, "max_rows", len(body), "the file has", at_least=True)
            if cells > limits.max_cells:
                raise refuse(limits, "max_cells", cells, "the file has", at_least=True)
    except csv.Error as error:
        raise file_problem(f"unparseable CSV: {error}") from error
    problems = [RowProblem(number, None, f"unparseable row: {len(row)} fields where the header has {len(header)}")
                for number, row in enumerate(body, start=1) if len(row) != len(header)]
    if problems:
        raise ValidationFailed(problems)
    frame = pd.DataFrame(body, columns=header, dtype=object)
    return frame.mask(frame == "")  # a blank cell is a missing value


def _read_json_lines(text: str, limits: UploadLimits) -> pd.DataFrame:
    records: list[dict[str, object]] = []
    problems: list[RowProblem] = []
    keys = _KeyCount(limits)
    row = 0
    # Rows end at a line feed only: str.splitlines would also split inside a JSON string at a raw U+2028, U+2029
    # or U+0085, which JSON allows unescaped.
    for line in JSON_LINE_END.split(text):
        if not line.strip():
            continue
        row += 1
        if row > limits.max_rows:
            raise refuse(limits, "max_rows", row, "the file has", at_least=True)
        try:
            value = json.loads(line)
        except RecursionError:
            problems.append(nested_too_deeply(row, max_nesting=limits.max_nesting))
            continue
        except ValueError as error:
            detail = error.args[0] if error.args else error
            problems.append(RowProblem(row, None, f"unparseable row: not JSON ({detail})"))
            continue
        if not isinstance(value, dict):
            problems.append(RowProblem(row, None, "unparseable row: a JSON Lines row must be an object"))
            continue
        keys.add(value)
        records.append(value)
    if problems:
        raise ValidationFailed(problems)
    return _frame_of_records(records)


def _frame_of_records(records: list[dict[str, object]]) -> pd.DataFrame:
    """JSON objects as a frame; text Arrow cannot hold (a lone surrogate from an escape such as \\ud800) is a
    problem on its row and column."""
    try:
        return pd.DataFrame.from_records(records)
    except UnicodeError:
        problems = [RowProblem(row, str(name), reason) for row, record in enumerate(records, start=1)
                    for name, value in record.items() if (reason := value_problem(value))]
        problems = [RowProblem(None, repr(str(name)), reason) for name in {n for r in records for n in r}
                    if (reason := control_problem(str(name), "in a column name"))] + problems
        if not problems:
            raise
        raise ValidationFailed(problems) from None


class _KeyCount:
    """The columns (distinct keys) and cells of JSON rows so far, refused as soon as either exceeds its limit:
    a frame of 100,000 columns is never built."""

    def __init__(self, limits: UploadLimits) -> None:
        self.limits, self.keys, self.cells = limits, set[str](), 0

    def add(self, record: dict[str, object]) -> None:
        self.keys.update(record)
        self.cells += len(record)
        check_limit(self.limits, "max_columns", len(self.keys), "the rows have", at_least=True)
        check_limit(self.limits, "max_cells", self.cells, "the rows have", at_least=True)


def _read_json(text: str, limits: UploadLimits) -> pd.DataFrame:
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValidationFailed([nested_too_deeply(max_nesting=limits.max_nesting)]) from None
    except ValueError:
        return _read_json_lines(text, limits)  # many ".json" exports are JSON Lines
    if isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, list)), [value])
    if not isinstance(value, list):
        raise file_problem("a JSON upload must be an array of objects (or JSON Lines)")
    bad = [RowProblem(i, None, "unparseable row: not an object")
           for i, v in enumerate(value, 1) if not isinstance(v, dict)]
    if bad:
        raise ValidationFailed(bad)
    if len(value) > limits.max_rows:
        raise refuse(limits, "max_rows", len(value), "the file has")
    keys = _KeyCount(limits)
    for record in value:
        keys.add(record)
    return _frame_of_records(value)


def _read_binary(data: bytes, file_format: str, limits: UploadLimits) -> pd.DataFrame:
    # Metadata first: a file that would expand past a limit is refused before a reader expands it.
    (check_parquet if file_format == "parquet" else check_xlsx)(data, limits)
    try:
        if file_format == "parquet":
            return pd.read_parquet(io.BytesIO(data))
        frame = pd.read_excel(io.BytesIO(data), sheet_name=0, dtype=object, engine="openpyxl")
    # Parquet and XLSX readers raise many unrelated types on corrupt input; each means "not readable".
    except Exception as error:
        located = upload_xlsx.control_character_problems(data) if file_format == "xlsx" else []
        if located:  # the XML parser refused a control character: name its cells instead
            raise ValidationFailed(located) from error
        label = "Parquet" if file_format == "parquet" else "XLSX"
        raise file_problem(f"not a readable {label} file ({type(error).__name__})") from error
    unsaved = upload_xlsx.unsaved_formula_problems(data, frame)
    if unsaved:
        raise ValidationFailed(unsaved)
    return frame


def read_table(data: bytes, file_name: str, limits: UploadLimits | None = None) -> pd.DataFrame:
    """The uploaded table with string column names, one row per data row (raises ``ValidationFailed``; a file over
    a limit, by default the configured ``UploadLimits.from_environment()``, ``UploadLimitExceeded``)."""
    name = PurePath(file_name).name
    try:
        return _read_table(data, file_name, limits or UploadLimits.from_environment())
    except UploadLimitExceeded as error:
        raise error.named(name) from None
    except ValidationFailed as error:
        raise ValidationFailed(error.problems, name) from None


def _read_table(data: bytes, file_name: str, limits: UploadLimits) -> pd.DataFrame:
    file_format = table_format(file_name)
    check_size(data, limits.max_bytes)
    if file_format in ("parquet", "xlsx"):
        frame = _read_binary(data, file_format, limits)
    else:
        text = _decoded_table(data, file_format)
        if file_format in ("csv", "tsv"):
            frame = _read_delimited(text, "," if file_format == "csv" else "\t", limits)
        else:
            frame = (_read_json_lines if file_format == "jsonl" else _read_json)(text, limits)
    frame.columns = [str(column).strip() for column in frame.columns]
    if frame.empty or not len(frame.columns):
        raise file_problem("the file holds no data rows")
    check_shape(limits, len(frame), len(frame.columns))
    duplicated = frame.columns[frame.columns.duplicated()].unique().tolist()
    if duplicated:
        raise ValidationFailed([RowProblem(None, c, "the column name appears more than once") for c in duplicated])
    frame = frame.reset_index(drop=True)
    problems = cell_problems(frame, limits.max_nesting)
    if problems:
        raise ValidationFailed(problems)
    return frame


def _decoded_table(data: bytes, file_format: str) -> str:
    """The text of a table file; an encoding error names the data row it is on (the header is not a row)."""
    try:
        return decode_text(data)
    except ValidationFailed as error:
        [problem] = error.problems
        if problem.row is None:
            raise
        line = problem.row
        if file_format in ("csv", "tsv"):
            row: int | None = line - 1 if line > 1 else None
        else:  # JSON Lines rows are the non-blank lines
            row = sum(1 for text in data.split(b"\n")[:line] if text.strip()) if file_format == "jsonl" else None
        raise ValidationFailed([RowProblem(row, None, problem.reason)]) from None
