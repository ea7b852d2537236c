"""Size checks of Parquet and XLSX uploads from their metadata, before a reader expands them.

A few kilobytes of Parquet (a long value repeated by its dictionary, or millions of rows run-length encoded) or of
XLSX (a sheet's XML zipped 1000:1, or one cell far out that makes the reader fill the whole rectangle) unpack to
gigabytes. Parquet: the footer gives rows, columns, nesting and uncompressed sizes; string columns are then read as
dictionaries (indices plus distinct values: small) to add up the text they would expand to. XLSX: the zip directory
gives each entry's unpacked size (the zip reader never reads past it), and one streaming pass over the first
sheet's XML, without building it, gives its rows, columns and cells.
"""

from __future__ import annotations

import io
import re
import zipfile
from xml.etree import ElementTree

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from judgebias_core.errors import UploadLimitExceeded
from judgebias_core.sources.upload_limits import MIB, UploadLimits, check_limit, check_shape, setting_name

_CHUNK = 1024 * 1024


def check_parquet(data: bytes, limits: UploadLimits) -> None:
    """Refuse (``UploadLimitExceeded``) a Parquet file larger than the limits; unreadable files pass through to
    the reader, which names them."""
    try:
        parquet = pq.ParquetFile(io.BytesIO(data))
    except Exception:  # noqa: BLE001 - not Parquet at all: the reader says so
        return
    meta = parquet.metadata
    check_shape(limits, meta.num_rows, meta.num_columns)
    schema = parquet.schema
    deepest = max((schema.column(i).max_repetition_level for i in range(meta.num_columns)), default=0)
    check_limit(limits, "max_nesting", deepest, "a column nests lists")
    values = expanded = 0
    for group in range(meta.num_row_groups):
        row_group = meta.row_group(group)
        for index in range(row_group.num_columns):
            values += row_group.column(index).num_values
            expanded += row_group.column(index).total_uncompressed_size
    check_limit(limits, "max_cells", values, "the file holds")  # lists count every element
    check_limit(limits, "max_expanded_bytes", expanded, "the file unpacks to")
    text_paths = [schema.column(i).path for i in range(meta.num_columns)
                  if schema.column(i).physical_type == "BYTE_ARRAY"]
    if text_paths:
        table = pq.read_table(io.BytesIO(data), read_dictionary=text_paths)
        check_limit(limits, "max_expanded_bytes", sum(_text_bytes(column) for column in table.columns),
                    "the file's text expands to")


def _text_bytes(values: pa.Array | pa.ChunkedArray) -> int:
    """The bytes of text in ``values`` once every value is spelled out, without spelling them out: a dictionary's
    value lengths are taken per index; lists and structs are walked down to their text."""
    if isinstance(values, pa.ChunkedArray):
        return sum(_text_bytes(chunk) for chunk in values.chunks)
    arrow_type = values.type
    if isinstance(values, pa.DictionaryArray):
        if not len(values) or not _is_text(arrow_type.value_type):
            return 0
        return int(pc.sum(pc.binary_length(values.dictionary).take(values.indices)).as_py() or 0)
    if _is_text(arrow_type):
        return int(pc.sum(pc.binary_length(values)).as_py() or 0) if len(values) else 0
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_map(arrow_type) \
            or pa.types.is_fixed_size_list(arrow_type):
        return _text_bytes(values.flatten())
    if pa.types.is_struct(arrow_type):
        return sum(_text_bytes(values.field(i)) for i in range(arrow_type.num_fields))
    return 0


def _is_text(arrow_type: pa.DataType) -> bool:
    return bool(pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_binary(arrow_type)
                or pa.types.is_large_binary(arrow_type))


def check_xlsx(data: bytes, limits: UploadLimits) -> None:
    """Refuse (``UploadLimitExceeded``) an XLSX file that unpacks to more than the limits or whose first sheet spans
    more rows, columns or cells; unreadable files pass through to the reader, which names them."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        return
    with archive:
        check_limit(limits, "max_expanded_bytes", sum(entry.file_size for entry in archive.infolist()),
                    "the workbook unpacks to")
        _check_parts(archive, limits)
        sheet = _first_sheet(archive)
        if sheet is not None:
            _check_sheet(archive, sheet, limits)
        if _SHARED_STRINGS in archive.namelist():
            _check_shared_strings(archive, limits)


_SHARED_STRINGS = "xl/sharedStrings.xml"
# The reader parses every part other than the sheets whole, as a tree several times its size: each is held to this
# share of the unpacked-size limit (16 MB by default; a real workbook's parts are kilobytes).
_PART_SHARE = 16


def _check_parts(archive: zipfile.ZipFile, limits: UploadLimits) -> None:
    most = limits.max_expanded_bytes // _PART_SHARE
    for entry in archive.infolist():
        if entry.filename.startswith("xl/worksheets/") or entry.filename == _SHARED_STRINGS:
            continue
        if entry.file_size > most:
            raise UploadLimitExceeded(
                found=f"the workbook part {entry.filename!r} unpacks to {entry.file_size / MIB:,.1f} MB",
                limit=f"{most / MIB:,.1f} MB for a part other than a sheet or the shared strings (1/{_PART_SHARE} of "
                      "the unpacked-size limit)", setting=setting_name("max_expanded_bytes"))


def _check_shared_strings(archive: zipfile.ZipFile, limits: UploadLimits) -> None:
    """The reader loads every shared string, used or not: at most as many as the cell limit (one streaming count
    of their start tags, any namespace prefix)."""
    strings = 0
    rest = b""
    with archive.open(_SHARED_STRINGS) as stream:
        while piece := stream.read(_CHUNK):
            text = rest + piece
            cut = text.rfind(b">") + 1
            text, rest = text[:cut], text[cut:]
            strings += len(_STRING_ITEM.findall(text))
            check_limit(limits, "max_cells", strings, "the workbook holds shared strings for")


_STRING_ITEM = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?si[\s/>]")


def _first_sheet(archive: zipfile.ZipFile) -> str | None:
    """The zip entry of the workbook's first sheet (the one the reader reads), from the workbook's relations."""
    names = set(archive.namelist())
    try:
        workbook = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        relations = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    except (KeyError, ElementTree.ParseError):
        return "xl/worksheets/sheet1.xml" if "xl/worksheets/sheet1.xml" in names else None
    first = next((e for e in workbook.iter() if e.tag.endswith("}sheet") or e.tag == "sheet"), None)
    relation_id = next((v for k, v in (first.attrib.items() if first is not None else ()) if k.endswith("}id")), None)
    target = next((r.get("Target") for r in relations if r.get("Id") == relation_id), None)
    if not target:
        return None
    path = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
    return path if path in names else None


# The namespace prefix of the sheet's elements ("" or e.g. "x:"), from its root element.
_ROOT = re.compile(rb"<([A-Za-z_][\w.-]*:)?worksheet[\s>]")


def _sheet_patterns(prefix: bytes) -> tuple[bytes, bytes, re.Pattern[bytes], re.Pattern[bytes]]:
    """A row's start tag; a cell's start tag (also counts the rare rich-text "<color"-like tags inside a cell: an
    over-count, never an under-count); a row's number (r="12"); a cell's column letters (r="XFD12"). The prefix is
    a literal so each pattern starts with a fixed string (several times faster than matching any prefix)."""
    tag = b"<" + prefix
    return (tag + b"row", tag + b"c",
            re.compile(re.escape(tag) + rb'row\s[^>]*?\br="(\d+)"'),
            re.compile(re.escape(tag) + rb'c\s[^>]*?\br="([A-Z]{1,3})\d'))


def _column_number(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


def _check_sheet(archive: zipfile.ZipFile, sheet: str, limits: UploadLimits) -> None:
    """One pass over the sheet's XML in 1 MB pieces (cut after a '>' so no tag is split), each piece scanned by
    regular expressions: rows (their count or highest number) and the widest row (cells counted in order, or the
    farthest column letter), refused as soon as the rectangle a reader would fill (rows x columns) exceeds a limit."""
    rows = widest = 0
    open_cells = 0  # the cells of the row still open at the end of the previous piece
    patterns = None
    with archive.open(sheet) as stream:
        rest = b""
        while True:
            piece = stream.read(_CHUNK)
            if not piece:
                break
            text = rest + piece
            cut = text.rfind(b">") + 1
            text, rest = text[:cut], text[cut:]
            if patterns is None:
                root = _ROOT.search(text)
                patterns = _sheet_patterns(root.group(1) or b"" if root else b"")
            row_tag, cell_tag, row_numbers, columns = patterns
            # The text after each row's start tag holds its cells (the first piece continues the open row).
            in_rows = text.split(row_tag)
            widths = [part.count(cell_tag) for part in in_rows]
            widths[0] += open_cells
            open_cells = widths[-1]
            rows = max(rows + len(in_rows) - 1, max(map(int, row_numbers.findall(text)), default=0))
            widest = max(widest, *widths, max(map(_column_number, set(columns.findall(text))), default=0))
            check_shape(limits, max(rows - 1, 0), widest, "the first sheet spans")  # its first row is the header
