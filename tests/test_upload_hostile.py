"""Hostile upload files through the CLI: exit status 2, one clear line on stderr, no traceback, store unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgebias_core.cli import main
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
