"""Runs as Parquet (export, import, idempotence), incremental pair classification, and the CLI commands."""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgebias_core.cli import build_parser, main
from judgebias_core.cli.transfer_commands import import_runs_with_bundled_data, load_bundled_datasets
from judgebias_core.errors import NotFoundError, ValidationFailed
from judgebias_core.store.connection import connect, transaction
from judgebias_core.store.handle import Store
from judgebias_core.store.schema import migrate
from judgebias_core.store.transfer import export_runs, import_runs
from judgebias_core.store.writes import StoreBatch, refresh_pair_outcomes, write_batch

MTBENCH_FULL = "bundled:mtbench:full"
AUTOJ_FULL = "bundled:autoj:full"
CALL_ORDER = "ORDER BY call_id"
OUTCOME_COLUMNS = ("dataset_id, study, run_id, judge, repetition, item_id, task, candidate, opponent, "
                   "original_call_id, swapped_call_id, verdict_original, verdict_swapped, classification, winner")


def _frame(path: Path, sql: str) -> pd.DataFrame:
    with connect(path, read_only=True) as con:
        return con.execute(sql).df()


def _calls(path: Path, run_id: str) -> pd.DataFrame:
    frame = _frame(path, f"SELECT * EXCLUDE (created_at) FROM judge_calls WHERE run_id = '{run_id}' {CALL_ORDER}")
    return frame.astype({"slots": str, "ordering": str})


def _outcomes(path: Path) -> pd.DataFrame:
    return _frame(path, f"SELECT {OUTCOME_COLUMNS} FROM pair_outcomes ORDER BY original_call_id, swapped_call_id")


@pytest.fixture(scope="module")
def mtbench_export(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("export") / "mtbench.parquet"
    files = Store(bundled_db_master).read(export_runs, [MTBENCH_FULL], target)
    assert [f.judge_calls for f in files] == [14_400]
    return target


def test_export_is_readable_by_pandas_and_duckdb(mtbench_export: Path) -> None:
    frame = pd.read_parquet(mtbench_export)
    assert len(frame) == 14_400
    assert {"run_protocol", "template_id", "dataset_name", "dataset_kind", "judge_family", "slots"} <= set(frame)
    counted = duckdb.sql(f"SELECT count(DISTINCT judge), any_value(dataset_kind) FROM '{mtbench_export}'").fetchall()
    assert counted == [(3, "pairwise")]


def test_real_calls_moved_to_another_run_keep_the_known_answer(mtbench_export: Path, bundled_db: Path,
                                                               tmp_path: Path) -> None:
    """The MTBench calls, relabelled as a run made elsewhere, land whole and classify like the bundled study."""
    frame = pd.read_parquet(mtbench_export)
    frame["call_id"] = "moved-" + frame["call_id"]
    frame["run_id"] = frame["study"] = "moved:mtbench"
    moved = tmp_path / "moved.parquet"
    frame.to_parquet(moved)
    result = import_runs_with_bundled_data(Store.open(bundled_db), moved)
    assert result.inserted["judge_calls"] == 14_400 and result.inserted["runs"] == 1
    assert result.datasets_without_items == ()
    known = _frame(bundled_db, "SELECT count(*) FILTER (WHERE classification = 'consistent') AS consistent, "
                               "count(*) FILTER (WHERE classification <> 'failed') AS pairs, "
                               "count(*) FILTER (WHERE task IS NULL) AS no_task FROM pair_outcomes "
                               "WHERE judge = 'gpt-4-0613' AND study = 'moved:mtbench'")
    assert known.iloc[0].tolist() == [1_957, 2_400, 0]
    again = import_runs_with_bundled_data(Store.open(bundled_db), moved)
    assert sum(again.inserted.values()) == 0


def test_a_bundled_dataset_missing_from_the_store_is_loaded_with_its_items(bundled_db_master: Path,
                                                                           tmp_path: Path, fresh_db: Path) -> None:
    Store(bundled_db_master).read(export_runs, [AUTOJ_FULL], tmp_path / "autoj.parquet")
    result = import_runs(Store.open(fresh_db), tmp_path / "autoj.parquet", load_bundled=load_bundled_datasets)
    assert result.datasets_without_items == () and result.runs == (AUTOJ_FULL,)
    pd.testing.assert_frame_equal(_calls(fresh_db, AUTOJ_FULL), _calls(bundled_db_master, AUTOJ_FULL))


def test_items_arriving_after_the_calls_give_pairs_their_task(fresh_db: Path) -> None:
    calls = _calls_frame([(0, 1, True, "A", 1, 0), (0, 1, False, "A", 1, 0)]).drop(columns="batch")
    write_batch(Store.open(fresh_db), StoreBatch(judge_calls=calls))
    assert _outcomes(fresh_db)["task"].isna().all()
    items = pd.DataFrame([{"dataset_id": "toy", "item_id": "0", "seq": 0, "task": "coding", "question": "q"}])
    write_batch(Store.open(fresh_db), StoreBatch(items=items))
    assert _outcomes(fresh_db)[["classification", "task"]].values.tolist() == [["primacy", "coding"]]


def test_export_of_an_unknown_run_names_it(bundled_db_master: Path, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no-such-run"):
        Store(bundled_db_master).read(export_runs, ["no-such-run"], tmp_path / "x.parquet")


def test_folder_export_writes_one_file_per_run(bundled_db: Path, tmp_path: Path) -> None:
    files = Store(bundled_db).read(export_runs, [AUTOJ_FULL, "bundled:devbench:repetition"], tmp_path / "out")
    assert sorted(Path(f.path).name for f in files) == ["bundled_autoj_full.parquet",
                                                         "bundled_devbench_repetition.parquet"]
    result = import_runs_with_bundled_data(Store.open(bundled_db), tmp_path / "out")
    assert result.rows_read == 2_784 + 3_888 and len(result.files) == 2 and sum(result.inserted.values()) == 0


def test_run_ids_that_clean_to_the_same_name_get_their_own_files(fresh_db: Path, tmp_path: Path) -> None:
    runs = pd.DataFrame([{"run_id": run_id, "dataset_id": "toy", "study": "s", "origin": "engine",
                          "protocol": "pairwise-swap", "provider": "simulated", "status": "complete"}
                         for run_id in ("a:b", "a_b")])
    write_batch(Store.open(fresh_db), StoreBatch(runs=runs))
    files = Store(fresh_db).read(export_runs, ["a:b", "a_b"], tmp_path / "out")
    assert len({f.path for f in files}) == 2 and [f.judge_calls for f in files] == [0, 0]


def test_a_file_that_is_not_an_export_lists_every_problem(tmp_path: Path, fresh_db: Path) -> None:
    path = tmp_path / "other.parquet"
    pd.DataFrame({"call_id": ["a"], "kind": ["pairwise"]}).to_parquet(path)
    with pytest.raises(ValidationFailed) as caught:
        import_runs(Store.open(fresh_db), path)
    assert {p.column for p in caught.value.problems} >= {"run_id", "dataset_id", "parse_status", "run_protocol"}


def test_bad_rows_are_reported_by_row_and_nothing_is_written(mtbench_export: Path, tmp_path: Path,
                                                            fresh_db: Path) -> None:
    frame = pd.read_parquet(mtbench_export).head(4)
    frame.loc[1, "kind"] = "pointwise"
    frame.loc[3, "judge"] = None
    path = tmp_path / "bad.parquet"
    frame.to_parquet(path)
    with pytest.raises(ValidationFailed) as caught:
        import_runs(Store.open(fresh_db), path)
    assert {(p.row, p.column) for p in caught.value.problems} == {(2, "kind"), (4, "judge")}
    assert _frame(fresh_db, "SELECT count(*) AS n FROM judge_calls")["n"].iloc[0] == 0


# ---- incremental pair classification (write_batch) equals a full reclassification -----------------------------

VERDICTS = st.sampled_from(["A", "B", "C", None])
CALL = st.tuples(st.integers(0, 3), st.integers(1, 3), st.booleans(), VERDICTS, st.integers(1, 2), st.integers(0, 1))


def _calls_frame(rows: list[tuple[int, int, bool, str | None, int, int]]) -> pd.DataFrame:
    """(item, candidate, original?, verdict, judge, batch) -> judge_calls rows of a toy pairwise dataset."""
    records = []
    for item, candidate, original, verdict, judge, batch in rows:
        first, second = ("base", f"c{candidate}") if original else (f"c{candidate}", "base")
        records.append({
            "call_id": f"{item}-{first}-{second}-{judge}", "run_id": "toy-run", "dataset_id": "toy", "study": "s",
            "judge": f"j{judge}", "item_id": str(item), "kind": "pairwise", "repetition": 1, "options": 3,
            "slots": [first, second], "first_candidate": first, "second_candidate": second,
            "order_label": "original" if original else "swapped", "verdict": verdict,
            "parse_status": "ok" if verdict else "failed", "parser": "mtbench", "batch": batch,
        })
    return pd.DataFrame(records).drop_duplicates("call_id")


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(CALL, min_size=1, max_size=40))
def test_batches_in_any_split_classify_like_one_full_refresh(rows: list) -> None:
    calls = _calls_frame(rows)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "toy.duckdb"
        migrate(path)
        write_batch(Store.open(path), StoreBatch(runs=pd.DataFrame([{"run_id": "toy-run", "dataset_id": "toy", "study": "s",
                                                         "origin": "engine", "protocol": "pairwise-swap",
                                                         "provider": "simulated", "status": "complete"}])))
        for _, part in calls.groupby("batch"):
            write_batch(Store.open(path), StoreBatch(judge_calls=part.drop(columns="batch")))
        incremental = _outcomes(path)
        with transaction(path) as con:
            refresh_pair_outcomes(con, "toy", "s")
        pd.testing.assert_frame_equal(incremental, _outcomes(path))
        Store(path).read(export_runs, ["toy-run"], Path(folder) / "toy.parquet")
        copy = Path(folder) / "copy.duckdb"
        result = import_runs(Store.open(copy), Path(folder) / "toy.parquet")
        assert result.datasets_without_items == ("toy",)
        pd.testing.assert_frame_equal(_calls(copy, "toy-run"), _calls(path, "toy-run"))
        pd.testing.assert_frame_equal(_outcomes(copy), incremental)


def test_a_no_reply_call_replaced_by_a_reply_reclassifies_its_pair(fresh_db: Path) -> None:
    """The engine deletes a stored 'no reply' row and writes the reply under the same call id."""
    calls = _calls_frame([(0, 1, True, "A", 1, 0), (0, 1, False, None, 1, 0)]).drop(columns="batch")
    calls.loc[1, "parse_status"] = "no_reply"
    write_batch(Store.open(fresh_db), StoreBatch(judge_calls=calls))
    assert _outcomes(fresh_db)["classification"].tolist() == ["failed"]
    with transaction(fresh_db) as con:
        con.execute("DELETE FROM judge_calls WHERE parse_status = 'no_reply'")
    calls.loc[1, ["verdict", "parse_status"]] = ["B", "ok"]
    write_batch(Store.open(fresh_db), StoreBatch(judge_calls=calls.iloc[[1]]))
    assert _outcomes(fresh_db)["classification"].tolist() == ["consistent"]


# ---- CLI --------------------------------------------------------------------------------------------------------

def test_cli_export_and_import_runs(bundled_db_master: Path, tmp_path: Path, bundled_db: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "autoj.parquet"
    assert main(["--db", str(bundled_db_master), "export", "runs", "--run-id", AUTOJ_FULL,
                 "--out", str(out), "--json"]) == 0
    assert '"judge_calls": 2784' in capsys.readouterr().out
    assert main(["--db", str(bundled_db), "import-runs", "--file", str(out)]) == 0
    assert "read 2,784 judge calls of 1 run(s)" in capsys.readouterr().out
    assert main(["--db", str(bundled_db_master), "export", "runs", "--run-id", "nope", "--out", str(out)]) == 2
    assert "no run 'nope'" in capsys.readouterr().err


def test_cli_commands_have_help() -> None:
    parser = build_parser()
    text = parser.format_help()
    assert "import-runs" in text
    export_help = next(a for a in parser._actions if getattr(a, "choices", None) and "export" in a.choices)
    assert "runs" in export_help.choices["export"].format_help()
