"""Damaged, foreign, full and read-only stores (issue 27): in the CLI one named ``error:`` line, exit 2, no traceback
and the store unchanged; on every page a named ``st.error``, never an exception box; ``check-store`` finds each
damage; a read-only store is readable by every read-only command and page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from judgebias_core.cli import main
from judgebias_core.store.connection import CONNECTION_CONFIG
from judgebias_core.store.integrity import table_digests
from tests.app_helpers import PROJECT_ROOT, open_page
from tests.hostile_store import DAMAGED_STORES
from ui.navigation import PAGES, page_entry

# What each command's one line must name, per damage.
NAMED = {"truncated-1-byte": "truncated", "half-truncated": "truncated", "last-block-zeroed": "is damaged",
         "dropped-table": "lacks the table judge_calls", "sqlite": "it is a SQLite database"}
# Damage every command meets when it opens the store; a zeroed last block is met only by what reads that block.
MET_ON_OPEN = ("truncated-1-byte", "half-truncated", "dropped-table", "sqlite")
CHECK_STORE_FINDS = {"truncated-1-byte": "1 byte shorter", "half-truncated": "shorter than its",
                     "last-block-zeroed": "1 block failed the checksum", "dropped-table": "table judge_calls is missing",
                     "sqlite": "SQLite"}


def _items_file(folder: Path) -> Path:
    path = folder / "items.csv"
    path.write_text("id,instruction,response\ni1,Q1,R1\n")
    return path


def _commands(folder: Path) -> dict[str, list[str]]:
    return {
        "datasets": ["datasets"], "runs": ["runs", "--json"],
        "metrics": ["metrics", "pairwise", "--dataset", "mtbench", "--json"],
        "report": ["report", "--dataset", "mtbench", "--out", str(folder / "report.html")],
        "run": ["run", "--dataset", "mtbench", "--protocol", "pairwise-swap", "--provider", "simulated",
                "--model", "sim", "--limit-items", "2"],
        "upload": ["upload", "items", "--dataset", "zz-new", "--file", str(_items_file(folder))],
    }


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _one_error_line(err: str) -> str:
    """The one error line, last on stderr (a progress line such as "building the report..." may come first)."""
    assert "Traceback" not in err
    lines = err.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], err[:2000]
    return errors[0]


@pytest.mark.parametrize("damage", list(DAMAGED_STORES))
def test_each_damaged_store_gives_one_named_line_and_stays_as_it_was(
        damage: str, bundled_db_master: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "store.duckdb"
    DAMAGED_STORES[damage](bundled_db_master, path)
    before = path.read_bytes()
    status, out, _ = _cli(capsys, "--db", str(path), "check-store", "--json")
    report = json.loads(out)
    assert status == 2 and any(CHECK_STORE_FINDS[damage] in problem for problem in report["problems"]), report
    assert path.read_bytes() == before  # the check only reads
    refused = []
    for name, argv in _commands(tmp_path).items():
        status, _, err = _cli(capsys, "--db", str(path), *argv)
        if damage in MET_ON_OPEN or status != 0:
            assert status == 2, (name, err)
            line = _one_error_line(err)
            assert str(path) in line and NAMED[damage] in line, (name, line)
            refused.append(name)
        assert "Traceback" not in err
    if damage in MET_ON_OPEN:
        assert path.read_bytes() == before  # refused before anything was written
    else:  # the run writes into the zeroed block (an index) and is refused with DuckDB's own cause
        assert "run" in refused


def test_check_store_passes_the_sound_store_block_by_block(bundled_db_master: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _cli(capsys, "--db", str(bundled_db_master), "check-store", "--json")
    assert status == 0 and json.loads(out)["problems"] == []


def test_no_connection_may_fetch_or_load_an_extension(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "s.duckdb"), config=CONNECTION_CONFIG) as con:
        settings = dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE name IN "
                                    "('autoinstall_known_extensions', 'autoload_known_extensions')").fetchall())
    assert settings == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}


def test_upload_of_a_missing_file_is_one_line(fresh_db: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.csv"
    status, out, err = _cli(capsys, "--db", str(fresh_db), "upload", "items", "--dataset", "x", "--file", str(missing))
    assert status == 2 and out == "" and f"no file {missing}" in _one_error_line(err)
    status, _, err = _cli(capsys, "--db", str(fresh_db), "upload", "items", "--dataset", "x", "--file", str(tmp_path))
    assert status == 2 and "is a folder" in _one_error_line(err)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MiB file system for a store (a tmpfs; needs root and the right to mount, else skipped)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_during_an_upload_is_one_line_and_writes_nothing(tiny_disk: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = tiny_disk / "store.duckdb"
    status, _, _ = _cli(capsys, "--db", str(path), "upload", "items", "--dataset", "small",
                        "--file", str(_items_file(tmp_path)))
    assert status == 0
    before = table_digests(path)
    big = tmp_path / "big.csv"  # about 3 MB of distinct text: more than the disk has left
    big.write_text("id,instruction,response\n" + "".join(f"i{n},{'q' * 200}{n},{'r' * 500}{n}\n" for n in range(4000)))
    status, out, err = _cli(capsys, "--db", str(path), "upload", "items", "--dataset", "big", "--file", str(big))
    line = _one_error_line(err)
    assert status == 2 and out == "" and "is full" in line and "No space left on device" in line
    assert table_digests(path) == before


def _without_write_permission() -> list[str] | None:
    """A command prefix that runs a process unable to write a file without write permission (None: not here)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    # root writes any file; without these capabilities it keeps to the permission bits like anyone else
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"] if setpriv else None


@pytest.fixture(scope="module")
def read_only_store(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("read-only") / "store.duckdb"
    shutil.copy(bundled_db_master, path)
    path.chmod(0o444)
    return path


def _run_restricted(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    prefix = _without_write_permission()
    if prefix is None:
        pytest.skip("no way to drop root's right to write any file (setpriv is missing)")
    return subprocess.run([*prefix, sys.executable, *argv], capture_output=True, text=True, cwd=PROJECT_ROOT,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_a_read_only_store_is_read_by_every_read_only_command_and_refused_for_writes(
        read_only_store: Path, tmp_path: Path) -> None:
    before = read_only_store.read_bytes()
    commands = _commands(tmp_path)
    for name in ("datasets", "runs", "metrics", "report"):
        done = _run_restricted(["-m", "judgebias_core", "--db", str(read_only_store), *commands[name]])
        assert done.returncode == 0 and done.stdout.strip(), (name, done.stderr[-2000:])
    done = _run_restricted(["-m", "judgebias_core", "--db", str(read_only_store), "check-store"])
    assert done.returncode == 0 and "no problem found" in done.stdout, done.stderr[-2000:]
    for name in ("upload", "run"):
        done = _run_restricted(["-m", "judgebias_core", "--db", str(read_only_store), *commands[name]])
        line = _one_error_line(done.stderr)
        assert done.returncode == 2 and "is read-only here" in line and "write permission" in line, line
    assert read_only_store.read_bytes() == before


# Runs in a process without the right to write the store: every page, its errors and exception boxes as JSON.
_EVERY_PAGE = """
import json, sys
from tests.app_helpers import open_page
from ui.navigation import PAGES
found = {}
for page in PAGES:
    at = open_page(page.file)
    found[page.file] = {"errors": [e.value for e in at.error], "exceptions": [str(e.value) for e in at.exception],
                        "markdown": sum(len(m.value) for m in at.markdown)}
print(json.dumps(found))
"""


def test_every_page_reads_a_read_only_store(read_only_store: Path) -> None:
    done = _run_restricted(["-c", _EVERY_PAGE], env={"JUDGEBIAS_DB": str(read_only_store)})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(found) == {page.file for page in PAGES}
    for page, seen in found.items():
        assert seen["exceptions"] == [] and seen["errors"] == [], (page, seen)
        assert seen["markdown"] > 0, page


def _assert_named_on_every_page(path: Path, named: str) -> None:
    at = open_page()
    for page in PAGES:
        at.switch_page(page_entry(page.file).script)
        at.run()
        assert not at.exception, (page.file, [e.value for e in at.exception])
        shown = " ".join(e.value for e in at.error).replace("\\", "")
        assert named in shown and "check-store" in shown, (page.file, shown)


@pytest.mark.parametrize("damage", MET_ON_OPEN)
def test_every_page_names_a_store_damaged_before_the_dashboard_opened(
        damage: str, bundled_db_master: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store.duckdb"
    DAMAGED_STORES[damage](bundled_db_master, path)
    monkeypatch.setenv("JUDGEBIAS_DB", str(path))
    if damage == "sqlite":  # the message a person sees: what the file is, and another store to choose
        at = open_page()
        assert not at.exception and "SQLite database" in " ".join(e.value for e in at.error)
        return
    _assert_named_on_every_page(path, NAMED[damage])


def test_every_page_names_a_table_dropped_while_the_dashboard_runs(
        bundled_db_master: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store.duckdb"
    shutil.copy(bundled_db_master, path)
    monkeypatch.setenv("JUDGEBIAS_DB", str(path))
    at = open_page("data.py")  # the store is made ready (once per process) while it is sound
    assert not at.exception and not at.error
    with duckdb.connect(str(path)) as con:
        con.execute("DROP TABLE judge_calls")
    _assert_named_on_every_page(path, "lacks the table judge_calls")


@pytest.mark.parametrize("page", ["runs.py", "rubric_bias.py"])
def test_pages_reading_a_zeroed_block_name_the_damage(page: str, bundled_db_master: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store.duckdb"
    DAMAGED_STORES["last-block-zeroed"](bundled_db_master, path)
    monkeypatch.setenv("JUDGEBIAS_DB", str(path))
    at = open_page(page)
    assert not at.exception, [e.value for e in at.exception]
    shown = " ".join(e.value for e in at.error).replace("\\", "")
    assert "is damaged" in shown and "Corrupt database file" in shown and "check-store" in shown, shown
