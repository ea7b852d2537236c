"""Benchmark: hostile uploads are refused quickly and in little memory (a benchmark, not a test; prints figures).

Generates, in a temporary folder, the files a visitor could upload to exhaust a served dashboard:
- a Parquet bomb: 150,000 rows of one 100 kB string held once by the dictionary (a 2 kB file, 15 GB spelled out),
- a Parquet row bomb: 50,000,000 rows of one value (a few kB, compressed),
- an XLSX bomb: one cell at A1 and one at XFD1048576 (a reader fills the rectangle: 17 billion cells),
- a dense XLSX: 400,000 rows x 10 cells, zipped about 100:1,
- a CSV with 1,000,000 columns, and a JSON object with 100,000 keys,
then reads each with ``read_table`` in a fresh process and prints the refusal, the time it took and the peak memory
the read added (resident set high-water mark, reset just before the read). The issue's bar: under 5 s and under
300 MB each. Run: python bench/bench_upload_limits.py
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def parquet_text_bomb() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 150_000
    text = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), pa.array(["x" * 100_000]))
    buffer = io.BytesIO()
    pq.write_table(pa.table({"id": pa.array([1] * rows, pa.int8()), "answer": text}), buffer, compression="zstd")
    return buffer.getvalue()


def parquet_row_bomb() -> bytes:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    flags = pa.array(np.zeros(50_000_000, dtype=bool))
    pq.write_table(pa.table({"flag": flags}), buffer, compression="zstd", row_group_size=50_000_000)
    return buffer.getvalue()


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships '
         'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
         'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
         'Target="xl/workbook.xml"/></Relationships>')
_WORKBOOK = ('<?xml version="1.0" encoding="UTF-8"?><workbook '
             'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
             'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
             '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>')
_WORKBOOK_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships '
                  'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
                  'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
                  'Target="worksheets/sheet1.xml"/></Relationships>')
_SHEET_START = ('<?xml version="1.0" encoding="UTF-8"?><worksheet '
                'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
_SHEET_END = "</sheetData></worksheet>"


def _workbook(write_rows: Callable[[io.BufferedIOBase], None]) -> bytes:
    """A minimal XLSX whose first sheet's rows ``write_rows`` streams into the zip."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("xl/workbook.xml", _WORKBOOK)
        archive.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            sheet.write(_SHEET_START.encode())
            write_rows(sheet)  # type: ignore[arg-type]
            sheet.write(_SHEET_END.encode())
    return buffer.getvalue()


def xlsx_corner_bomb() -> bytes:
    def rows(sheet: io.BufferedIOBase) -> None:
        sheet.write(b'<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>'
                    b'<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>')
    return _workbook(rows)


def xlsx_dense_bomb() -> bytes:
    def rows(sheet: io.BufferedIOBase) -> None:
        for number in range(1, 400_001):
            cells = "".join(f'<c r="{letter}{number}"><v>1</v></c>' for letter in "ABCDEFGHIJ")
            sheet.write(f'<row r="{number}">{cells}</row>'.encode())
    return _workbook(rows)


def wide_csv() -> bytes:
    columns = 1_000_000
    return (",".join(f"c{i}" for i in range(columns)) + "\n" + ",".join("1" for _ in range(columns)) + "\n").encode()


def many_keys_json() -> bytes:
    return json.dumps({f"key{i}": "value" for i in range(100_000)}).encode()


CASES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "parquet text bomb": ("bomb.parquet", parquet_text_bomb),
    "parquet row bomb": ("rows.parquet", parquet_row_bomb),
    "xlsx corner bomb": ("corner.xlsx", xlsx_corner_bomb),
    "xlsx dense bomb": ("dense.xlsx", xlsx_dense_bomb),
    "csv 1,000,000 columns": ("wide.csv", wide_csv),
    "json 100,000 keys": ("keys.json", many_keys_json),
}


def _memory_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(field)


def measure(path: Path) -> None:
    """In this (fresh) process: read one file, print its refusal, the seconds and the peak memory added."""
    from judgebias_core.errors import JudgebiasError
    from judgebias_core.sources.upload_read import read_table

    data = path.read_bytes()
    Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark to the current resident set
    before = _memory_kb("VmRSS")
    start = time.perf_counter()
    try:
        frame = read_table(data, path.name)
        outcome = f"READ ({len(frame):,} rows x {len(frame.columns):,} columns) - NOT REFUSED"
    except JudgebiasError as error:
        outcome = f"{type(error).__name__}: {error}"
    seconds = time.perf_counter() - start
    extra_mb = (_memory_kb("VmHWM") - before) / 1024
    print(json.dumps({"seconds": seconds, "extra_mb": extra_mb, "outcome": outcome}))


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'case':<24} {'file':>10} {'seconds':>8} {'extra MB':>9}  refusal")
        for label, (name, build) in CASES.items():
            data = build()
            path = Path(folder) / name
            path.write_bytes(data)
            del data
            result = subprocess.run([sys.executable, __file__, "--measure", str(path)], capture_output=True,
                                    text=True, check=True, cwd=ROOT)
            figures = json.loads(result.stdout.strip().splitlines()[-1])
            size = path.stat().st_size
            shown = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} kB"
            print(f"{label:<24} {shown:>10} {figures['seconds']:8.2f} {figures['extra_mb']:9.1f}  "
                  f"{figures['outcome']}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        measure(Path(sys.argv[2]))
    else:
        main()
