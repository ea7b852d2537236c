"""What an XLSX upload's reader cannot say by itself, with the row and column of each problem.

- A formula cell whose value was never saved (a workbook written by a program that does not compute formulas):
  the reader sees an empty cell, which validation would call a "missing value".
- A control character (NUL, ESC, ...) in a cell: XML cannot hold one, so the XML parser refuses the whole file
  without saying which cell. The sheet is read again with each such character replaced by a private-use stand-in
  (U+E000 plus its code), and the cells holding a stand-in are the ones to name.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem
from judgebias_core.sources.refused_characters import control_problem

# Members of the workbook that hold cell text.
_TEXT_MEMBERS = re.compile(r"^xl/(worksheets/[^/]+\.xml|sharedStrings\.xml)$")
# A raw control character other than tab, line feed and carriage return, or a character reference to one.
_XML_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]|&#(?:[xX]([0-9a-fA-F]+)|([0-9]+));")
_STAND_IN_BASE = 0xE000
_STAND_INS = re.compile("[\ue000-\ue01f]")
_ALLOWED_CONTROLS = (0x09, 0x0A, 0x0D)


def _stand_in(match: re.Match[bytes]) -> bytes:
    hex_code, decimal_code = match.group(1), match.group(2)
    if hex_code is None and decimal_code is None:
        code = match.group()[0]
    else:
        code = int(hex_code, 16) if hex_code is not None else int(decimal_code)
        if code >= 0x20 or code in _ALLOWED_CONTROLS:  # a reference to an ordinary character: as it was
            return match.group()
    return f"&#x{_STAND_IN_BASE + code:X};".encode()


def _with_stand_ins(data: bytes) -> bytes | None:
    """The workbook with every control character in its cell text replaced by its stand-in (None: there is none,
    or the file is not a ZIP archive)."""
    try:
        source = zipfile.ZipFile(io.BytesIO(data))
        out = io.BytesIO()
        changed = False
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                member = source.read(info)
                if _TEXT_MEMBERS.match(info.filename):
                    replaced = _XML_CONTROL.sub(_stand_in, member)
                    changed = changed or replaced != member
                    member = replaced
                target.writestr(info, member)
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    return out.getvalue() if changed else None


def _restored(text: str) -> str:
    return _STAND_INS.sub(lambda m: chr(ord(m.group()) - _STAND_IN_BASE), text)


def control_character_problems(data: bytes) -> list[RowProblem]:
    """Each cell (and column name) of the first sheet holding a control character, for a workbook the XML parser
    refused; empty when none is found that way (the file is unreadable for another reason)."""
    marked = _with_stand_ins(data)
    if marked is None:
        return []
    try:
        frame = pd.read_excel(io.BytesIO(marked), sheet_name=0, dtype=object, engine="openpyxl")
    except Exception:  # noqa: BLE001 - still unreadable: not (only) control characters
        return []
    problems = [RowProblem(None, repr(_restored(str(name))), reason) for name in frame.columns
                if _STAND_INS.search(str(name)) and (reason := control_problem(_restored(str(name)),
                                                                               "in a column name"))]
    for name in frame.columns:
        for index, value in frame[name].items():
            if isinstance(value, str) and _STAND_INS.search(value):
                reason = control_problem(_restored(value))
                if reason:
                    problems.append(RowProblem(int(str(index)) + 1, _restored(str(name)), reason))
    return problems


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def unsaved_formula_problems(data: bytes, frame: pd.DataFrame) -> list[RowProblem]:
    """Formula cells of the first sheet that the reader saw empty because no value was saved with them."""
    if not _has_formulas(data) or not frame.isna().to_numpy().any():
        return []
    import openpyxl  # noqa: PLC0415 - only for workbooks with formulas

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    try:
        rows = workbook.worksheets[0].iter_rows()
        header = next(rows, None)
        if header is None:
            return []
        header_row = header[0].row or 1
        problems = []
        for cells in rows:
            for position, cell in enumerate(cells):
                formula = getattr(cell, "value", None)
                row = (cell.row or header_row) - header_row
                if (cell.data_type != "f" or position >= len(frame.columns) or not 1 <= row <= len(frame)
                        or not _missing(frame.iat[row - 1, position])):
                    continue
                problems.append(RowProblem(row, str(frame.columns[position]),
                                           f"a formula ({str(formula)[:60]}) without a saved value: open the file in "
                                           "a spreadsheet program and save it, or paste the values in place of the "
                                           "formulas"))
    finally:
        workbook.close()
    return problems


def _has_formulas(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as workbook:
            return any(b"<f>" in workbook.read(name) or b"<f " in workbook.read(name)
                       for name in workbook.namelist() if name.startswith("xl/worksheets/") and name.endswith(".xml"))
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
