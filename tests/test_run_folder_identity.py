"""Issue 27: a run folder belongs to the store it was written for. A store made again under the same file name
refuses the old folder's journals with a named error (no reply adopted silently), and ``adopt-run-folder`` is the
deliberate way to import them."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import duckdb
import pytest

from judgebias_core.cli import main
from judgebias_core.demo import ensure_demo_runs
from judgebias_core.engine import start_run
from judgebias_core.engine.folder_identity import claim_run_folder, identity_path, recorded_store_id
from judgebias_core.engine.journal import journal_path
from judgebias_core.errors import ForeignRunFolder
from judgebias_core.protocols.spec import RunSettings, RunSpec, SimulatedParams
from judgebias_core.store.handle import Store
from judgebias_core.store.run_queries import store_id
from tests.engine_helpers import query

SPEC = RunSpec(dataset_id="summeval", protocol="rubric-permutation", provider="simulated", model="identity-judge",
               limit_items=2, simulated=SimulatedParams(seed=3), seed=3)
RUN_ID = "identity-run"


def _another_store_at(path: Path, master: Path) -> None:
    """The store deleted and made again under the same name: the same data, a new identity."""
    path.unlink()
    shutil.copy(master, path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE store_identity SET store_id = ?", [str(uuid.uuid4())])


def test_a_new_store_of_the_same_name_refuses_the_old_folder_until_adopted(
        bundled_db: Path, bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = start_run(Store.open(bundled_db), SPEC, RunSettings(), run_id=RUN_ID)
    assert first.status == "complete" and first.planned == 20
    assert recorded_store_id(Store(bundled_db)) == Store(bundled_db).read(store_id)
    assert journal_path(Store(bundled_db), RUN_ID).exists()

    _another_store_at(bundled_db, bundled_db_master)
    with pytest.raises(ForeignRunFolder, match="written for another store.*adopt-run-folder"):
        start_run(Store.open(bundled_db), SPEC, RunSettings(), run_id=RUN_ID)
    assert query(bundled_db, "SELECT count(*) FROM runs WHERE run_id = ?", [RUN_ID]) == [(0,)]
    assert main(["--db", str(bundled_db), "run", "--dataset", "summeval", "--protocol", "rubric-permutation",
                 "--provider", "simulated", "--model", "identity-judge", "--limit-items", "2", "--seed", "3",
                 "--run-id", RUN_ID]) == 2
    err = capsys.readouterr().err
    assert "adopt-run-folder" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1

    assert main(["--db", str(bundled_db), "adopt-run-folder", "--json"]) == 0
    adopted = json.loads(capsys.readouterr().out)
    assert adopted == {"run_folder": str(Store(bundled_db).run_folder), "journals": 1}
    assert recorded_store_id(Store(bundled_db)) == Store(bundled_db).read(store_id)
    again = start_run(Store.open(bundled_db), SPEC, RunSettings(), run_id=RUN_ID)  # the deliberate import: replayed, not sent
    assert (again.status, again.replayed_from_journal, again.sent_this_session) == ("complete", 20, 0)


def test_a_folder_from_before_store_ids_is_claimed_only_when_its_runs_are_this_stores(
        bundled_db: Path, bundled_db_master: Path) -> None:
    start_run(Store.open(bundled_db), SPEC, RunSettings(), run_id=RUN_ID)
    identity_path(Store(bundled_db)).unlink()  # as an earlier version left it
    assert claim_run_folder(Store.open(bundled_db)) == Store(bundled_db).read(store_id)  # the store has the run: this store's folder
    identity_path(Store(bundled_db)).unlink()
    _another_store_at(bundled_db, bundled_db_master)
    with pytest.raises(ForeignRunFolder, match="1 journal of runs this store never had \\(identity-run\\)"):
        claim_run_folder(Store.open(bundled_db))


def test_the_first_launch_sets_an_earlier_stores_folder_aside(bundled_db: Path, bundled_db_master: Path) -> None:
    """The demo runs of a new store must not be blocked (or fed) by a folder an earlier store left behind."""
    start_run(Store.open(bundled_db), SPEC, RunSettings(), run_id=RUN_ID)
    _another_store_at(bundled_db, bundled_db_master)
    with duckdb.connect(str(bundled_db)) as con:
        con.execute("DELETE FROM judge_calls WHERE run_id LIKE 'demo-%'")
        con.execute("DELETE FROM runs WHERE run_id LIKE 'demo-%'")
    assert len(ensure_demo_runs(Store.open(bundled_db))) == 2
    aside = [p for p in Store(bundled_db).run_folder.parent.iterdir() if ".set-aside-" in p.name]
    assert len(aside) == 1 and (aside[0] / journal_path(Store(bundled_db), RUN_ID).name).exists()
    assert recorded_store_id(Store(bundled_db)) == Store(bundled_db).read(store_id)
