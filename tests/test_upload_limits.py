"""Uploads larger than the configured limits are refused by name before they are expanded, and nothing is written.

The hostile files are the benchmark's (bench/bench_upload_limits.py prints how fast and in how little memory each
is refused): a 2 kB Parquet file whose text spells out to 14 GB, 50 million run-length encoded Parquet rows, an
XLSX whose two corner cells make a reader fill 17 billion cells, a CSV with 1,000,000 columns and a JSON object
with 100,000 keys.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench.bench_upload_limits import many_keys_json, parquet_row_bomb, parquet_text_bomb, wide_csv, xlsx_corner_bomb
from judgebias_core.cli import main
from judgebias_core.errors import InvalidArgument, UploadLimitExceeded
from judgebias_core.sources.upload import suggest_spec, upload_file
from judgebias_core.sources.upload_limits import UploadLimits
from judgebias_core.sources.upload_read import read_table
from judgebias_core.store.handle import Store
from judgebias_core.store.integrity import table_digests
from tests.app_helpers import open_page

BOMBS: dict[str, tuple[str, Callable[[], bytes], str]] = {
    "parquet-text": ("bomb.parquet", parquet_text_bomb, "JUDGEBIAS_UPLOAD_MAX_EXPANDED_BYTES"),
    "parquet-rows": ("rows.parquet", parquet_row_bomb, "JUDGEBIAS_UPLOAD_MAX_ROWS"),
    "xlsx-corner": ("corner.xlsx", xlsx_corner_bomb, "JUDGEBIAS_UPLOAD_MAX_COLUMNS"),
    "csv-wide": ("wide.csv", wide_csv, "JUDGEBIAS_UPLOAD_MAX_COLUMNS"),
    "json-keys": ("keys.json", many_keys_json, "JUDGEBIAS_UPLOAD_MAX_COLUMNS"),
}


@pytest.mark.parametrize("case", BOMBS, ids=list(BOMBS))
def test_hostile_file_is_refused_by_name_through_the_cli(case: str, fresh_db: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    file_name, build, setting = BOMBS[case]
    path = tmp_path / file_name
    path.write_bytes(build())
    before = table_digests(fresh_db)
    status = main(["--db", str(fresh_db), "upload", "items", "--dataset", "bomb", "--file", str(path)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    [line] = err.splitlines()
    assert line.startswith(f"error: {file_name} has 1 problem") and "the limit is" in line and setting in line
    assert table_digests(fresh_db) == before


@pytest.mark.parametrize("case", BOMBS, ids=list(BOMBS))
def test_hostile_file_is_refused_by_name_in_the_library(case: str, fresh_db: Path) -> None:
    file_name, build, setting = BOMBS[case]
    data = build()
    with pytest.raises(UploadLimitExceeded) as caught:
        read_table(data, file_name)
    assert caught.value.setting == setting
    before = table_digests(fresh_db)
    spec = suggest_spec(pd.DataFrame({"instruction": ["q"], "response": ["r"]}), "items", "bomb")
    with pytest.raises(UploadLimitExceeded):  # the write path refuses it too, before previewing
        upload_file(Store.open(fresh_db), data, file_name, spec)
    assert table_digests(fresh_db) == before


def _frame(rows: int, columns: int) -> pd.DataFrame:
    return pd.DataFrame({f"c{c}": [f"v{r}" for r in range(rows)] for c in range(columns)})


def _encoded(frame: pd.DataFrame, kind: str) -> bytes:
    buffer = io.BytesIO()
    if kind == "csv":
        return frame.to_csv(index=False).encode()
    if kind == "jsonl":
        return frame.to_json(orient="records", lines=True).encode()
    if kind == "json":
        return frame.to_json(orient="records").encode()
    if kind == "parquet":
        frame.to_parquet(buffer, index=False)
    else:
        frame.to_excel(buffer, index=False)
    return buffer.getvalue()


@pytest.mark.parametrize("kind", ["csv", "jsonl", "json", "parquet", "xlsx"])
def test_each_limit_is_exact_in_every_format(kind: str) -> None:
    limits = UploadLimits(max_rows=6, max_columns=4, max_cells=20)
    assert read_table(_encoded(_frame(5, 4), kind), f"f.{kind}", limits).shape == (5, 4)  # at the limits: read
    for frame, setting in ((_frame(7, 2), "JUDGEBIAS_UPLOAD_MAX_ROWS"), (_frame(2, 5), "JUDGEBIAS_UPLOAD_MAX_COLUMNS"),
                           (_frame(6, 4), "JUDGEBIAS_UPLOAD_MAX_CELLS")):
        with pytest.raises(UploadLimitExceeded) as caught:
            read_table(_encoded(frame, kind), f"f.{kind}", limits)
        assert caught.value.setting == setting, str(caught.value)


def test_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _encoded(_frame(2, 3), "csv")
    assert read_table(data, "f.csv").shape == (2, 3)
    monkeypatch.setenv("JUDGEBIAS_UPLOAD_MAX_COLUMNS", "2")
    with pytest.raises(UploadLimitExceeded, match="the header has 3 columns; the limit is 2 columns"):
        read_table(data, "f.csv")
    monkeypatch.setenv("JUDGEBIAS_UPLOAD_MAX_COLUMNS", "lots")
    with pytest.raises(InvalidArgument, match="JUDGEBIAS_UPLOAD_MAX_COLUMNS must be a positive whole number"):
        read_table(data, "f.csv")
    assert UploadLimits.from_environment({"JUDGEBIAS_UPLOAD_MAX_ROWS": "1_000_000"}).max_rows == 1_000_000


def test_parquet_text_and_nesting_are_measured_before_reading() -> None:
    long_text = "x" * 1_000
    limits = UploadLimits(max_expanded_bytes=50_000, max_nesting=2)
    repeated = pa.table({"answer": pa.array([long_text] * 100)})  # 100 kB of text, one dictionary entry
    buffer = io.BytesIO()
    pq.write_table(repeated, buffer)
    with pytest.raises(UploadLimitExceeded, match="text expands to 100,000 bytes"):
        read_table(buffer.getvalue(), "f.parquet", limits)
    nested = pa.table({"turns": pa.array([[[["deep"]]]])})
    buffer = io.BytesIO()
    pq.write_table(nested, buffer)
    with pytest.raises(UploadLimitExceeded, match="nests lists 3 levels"):
        read_table(buffer.getvalue(), "f.parquet", limits)


def test_the_upload_tab_names_the_limit_and_writes_nothing(bundled_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    monkeypatch.setenv("JUDGEBIAS_UPLOAD_MAX_COLUMNS", "2")
    before = table_digests(bundled_db)
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("items").run()
    at.file_uploader[0].set_value(("wide.csv", b"instruction,response,extra\nQ,R,x\n", "text/csv")).run()
    assert not at.exception
    [error] = [str(element.value).replace("\\", "") for element in at.error]
    assert error.startswith("Nothing was written: the file is over an upload limit: the header has 3 columns; the "
                            "limit is 2 columns") and "JUDGEBIAS_UPLOAD_MAX_COLUMNS" in error
    assert not [button for button in at.button if "Write" in str(button.label)]
    assert table_digests(bundled_db) == before



def _with_part(workbook: bytes, name: str, content: bytes) -> bytes:
    """The workbook with the zip part ``name`` added, or replaced by ``content``."""
    source, target = zipfile.ZipFile(io.BytesIO(workbook)), io.BytesIO()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in source.infolist():
            if entry.filename != name:
                archive.writestr(entry, source.read(entry))
        archive.writestr(name, content)
    return target.getvalue()


def test_xlsx_parts_the_reader_loads_whole_are_held_to_the_limits() -> None:
    workbook = _encoded(_frame(3, 2), "xlsx")
    limits = UploadLimits(max_cells=20, max_expanded_bytes=16 * 64 * 1024)
    assert read_table(workbook, "f.xlsx", limits).shape == (3, 2)
    unused = (b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'  # no cell uses them
              + b"<si><t>unused</t></si>" * 30 + b"</sst>")
    with pytest.raises(UploadLimitExceeded, match="shared strings for 30 cells; the limit is 20 cells"):
        read_table(_with_part(workbook, "xl/sharedStrings.xml", unused), "f.xlsx", limits)
    padded = _with_part(workbook, "docProps/custom.xml", b"<x>" + b" " * 70_000 + b"</x>")
    with pytest.raises(UploadLimitExceeded, match="'docProps/custom.xml' unpacks to 0.1 MB; the limit is 0.1 MB for a"):
        read_table(padded, "f.xlsx", limits)
