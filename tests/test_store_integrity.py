"""Broken store files: one StoreError line in the CLI (exit 2), an st.error in the dashboard, and check-store."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from judgebias_core.cli import main
from judgebias_core.store.integrity import check_store, table_digests
from judgebias_core.store.schema import migrate
from tests.app_helpers import open_page

ZEROED_BYTES = 2 * 1024 * 1024


def _truncated(good: Path, path: Path) -> None:
    path.write_bytes(good.read_bytes()[:100_000])


def _garbage(good: Path, path: Path) -> None:
    path.write_bytes(os.urandom(300_000))


def _zero_bytes(good: Path, path: Path) -> None:
    path.write_bytes(b"")


def _text(good: Path, path: Path) -> None:
    path.write_text("id,prompt\n1,hello\n")


def _foreign_duckdb(good: Path, path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE invoices (id INTEGER, amount DOUBLE); INSERT INTO invoices VALUES (1, 9.5)")
    con.close()


def _zeroed_middle(good: Path, path: Path) -> None:
    shutil.copy(good, path)
    with open(path, "r+b") as file:
        file.seek(path.stat().st_size // 2)
        file.write(b"\x00" * ZEROED_BYTES)


UNOPENABLE: dict[str, Callable[[Path, Path], None]] = {
    "truncated": _truncated, "garbage": _garbage, "zero-byte": _zero_bytes, "text": _text,
    "foreign-duckdb": _foreign_duckdb,
}


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("damage", list(UNOPENABLE))
def test_a_broken_or_foreign_file_gives_one_store_error_line(damage: str, bundled_db_master: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "store.duckdb"
    UNOPENABLE[damage](bundled_db_master, path)
    before = path.read_bytes()
    for argv in (["datasets"], ["runs", "--json"], ["import-bundled", "--dataset", "mtbench"]):
        status, out, err = _cli(capsys, "--db", str(path), *argv)
        lines = err.splitlines()
        assert status == 2 and out == "" and len(lines) == 1, err
        assert lines[0].startswith("error: ") and str(path) in lines[0] and "--db" in lines[0]
        assert "Traceback" not in err
    assert path.read_bytes() == before  # nothing was added to a file that is not a judgebias store
    status, out, _ = _cli(capsys, "check-store", "--db", str(path), "--json")
    report = json.loads(out)
    assert status == 2 and not report["ok"] and report["problems"]


def test_check_store_finds_a_zeroed_middle_and_commands_name_the_damage(bundled_db_master: Path, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "store.duckdb"
    _zeroed_middle(bundled_db_master, path)
    status, out, _ = _cli(capsys, "--db", str(path), "check-store", "--json")
    report = json.loads(out)
    assert status == 2 and any("cannot be read" in p and "checksum" in p for p in report["problems"])
    # Commands that read a damaged block say so in one line; those that do not may still answer.
    for argv in (["datasets"], ["metrics", "pairwise", "--dataset", "mtbench", "--json"],
                 ["export", "trials", "--run-id", "bundled:mtbench:full", "--out", str(tmp_path / "t.csv")]):
        status, _, err = _cli(capsys, "--db", str(path), *argv)
        assert status in (0, 2) and "Traceback" not in err
        if status == 2:
            [line] = err.splitlines()
            assert "is damaged" in line and "check-store" in line


def test_check_store_passes_a_sound_store_and_finds_broken_invariants(bundled_db: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _cli(capsys, "check-store", "--db", str(bundled_db), "--json")
    report = json.loads(out)
    assert status == 0 and report["ok"] and report["rows"]["judge_calls"] > 0
    with duckdb.connect(str(bundled_db)) as con:
        con.execute("DELETE FROM judge_calls WHERE call_id = (SELECT min(original_call_id) FROM pair_outcomes)")
        con.execute("UPDATE rubrics SET k = k + 1 WHERE rubric_id = (SELECT min(rubric_id) FROM rubrics)")
    found = check_store(bundled_db)
    assert not found.ok
    assert any("original call is not stored" in p for p in found.problems)
    assert any("k differs" in p for p in found.problems)


def test_check_store_reports_duplicate_primary_keys(tmp_path: Path) -> None:
    path = tmp_path / "store.duckdb"
    migrate(path)
    with duckdb.connect(str(path)) as con:  # a table rebuilt without its key, as a damaged restore could leave it
        con.execute("CREATE TABLE judges_copy AS SELECT * FROM judges; DROP TABLE judges; "
                    "CREATE TABLE judges AS SELECT * FROM judges_copy; DROP TABLE judges_copy")
        con.execute("INSERT INTO judges VALUES ('j', 'upload', 'f', false, ''), ('j', 'upload', 'f', false, '')")
    found = check_store(path)
    assert found.problems == ["table judges: 1 primary key value(s) (judge) appear more than once"]
    assert check_store(tmp_path / "missing.duckdb").problems == [f"there is no store at {tmp_path / 'missing.duckdb'}"]


def test_table_digests_change_with_any_value(tmp_path: Path) -> None:
    path = tmp_path / "store.duckdb"
    migrate(path)
    before = table_digests(path)
    with duckdb.connect(str(path)) as con:
        con.execute("INSERT INTO judges VALUES ('j', 'upload', 'f', false, '')")
    middle = table_digests(path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE judges SET family = 'g'")
    assert before != middle != table_digests(path)
    assert middle["judges"][0] == table_digests(path)["judges"][0] == 1


def test_the_dashboard_shows_a_store_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store.duckdb"
    _garbage(path, path)
    monkeypatch.setenv("JUDGEBIAS_DB", str(path))
    at = open_page(timeout=60)
    assert not at.exception
    [message] = [e.value.replace("\\", "") for e in at.error]  # shown markdown-escaped
    # the page names what a dashboard user changes (the JUDGEBIAS_DB variable), not the CLI's --db flag
    assert "cannot be opened" in message and "JUDGEBIAS_DB" in message and "--db" not in message


def test_db_is_accepted_before_or_after_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before, after = tmp_path / "before.duckdb", tmp_path / "after.duckdb"
    migrate(before)
    migrate(after)
    assert _cli(capsys, "--db", str(before), "datasets", "--json")[1].strip() == "[]"
    assert _cli(capsys, "datasets", "--db", str(after), "--json")[1].strip() == "[]"
    rubric = tmp_path / "r.yaml"
    rubric.write_text("id: r2\ncriterion: c\nlevels: [low, high]\n")
    status, _, _ = _cli(capsys, "upload", "rubric", "--file", str(rubric), "--db", str(after))
    assert status == 0
    assert table_digests(after)["rubrics"][0] == 1 and table_digests(before)["rubrics"][0] == 0
    # After the command wins over before it, as the later option does.
    status, _, _ = _cli(capsys, "--db", str(after), "upload", "rubric", "--file", str(rubric), "--db", str(before))
    assert status == 0 and table_digests(before)["rubrics"][0] == 1


def test_import_bundled_prints_each_dataset_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "store.duckdb"
    status, out, err = _cli(capsys, "--db", str(path), "import-bundled", "--dataset", "summeval")
    assert status == 0
    assert [line for line in (out + err).splitlines() if "summeval" in line] == [out.strip()]
