"""Hostile upload files through the CLI: exit status 2, one clear line on stderr, no traceback, store unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgebias_core.cli import main
from judgebias_core.sources.upload_read import read_table
from judgebias_core.store.handle import Store
from judgebias_core.store.integrity import table_digests
from judgebias_core.store.schema import migrate
from tests.hostile_uploads import HostileFile, hostile_files, prepare_targets

CASES = hostile_files()


@pytest.fixture(scope="module")
def target_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "store.duckdb"
    migrate(path)
    prepare_targets(main, path, folder)
    return path


def test_the_cases_have_distinct_names() -> None:
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_file_is_refused_with_one_line(case: HostileFile, target_db: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / case.file_name
    path.write_bytes(case.data)
    before = table_digests(target_db)
    status = main(["--db", str(target_db), "upload", *case.command, "--file", str(path)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith("error: ") and case.expected in lines[0], lines[0][:2000]
    assert len(lines[0]) < 600
    assert table_digests(target_db) == before


def test_a_raw_line_separator_in_json_lines_stays_in_its_string(target_db: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # JSON allows U+2028, U+2029 and U+0085 unescaped in a string; only a line feed ends a JSON Lines row.
    text = "first\u2028second\u2029third\x85fourth"
    rows = [{"id": "ls1", "instruction": text, "response": "R"}, {"id": "ls2", "instruction": "Q", "response": "R"}]
    path = tmp_path / "items.jsonl"
    path.write_text("\r\n".join(json.dumps(row, ensure_ascii=False) for row in rows), encoding="utf-8")
    assert read_table(path.read_bytes(), path.name)["instruction"].tolist() == [text, "Q"]
    status = main(["--db", str(target_db), "upload", "items", "--dataset", "hx-line-separators", "--file", str(path)])
    assert status == 0, capsys.readouterr().err
    with Store(target_db).reader() as reader:
        stored = reader.rows("SELECT question FROM items WHERE dataset_id = 'hx-line-separators' ORDER BY seq")
    assert stored == [(text,), ("Q",)]
