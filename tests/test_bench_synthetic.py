"""The scale benchmark's synthetic store is well formed: mirrored swap pairs, balanced rubric orderings."""

from __future__ import annotations

from pathlib import Path

import duckdb

from bench.synthetic import PAIRWISE_DATASET, SyntheticPlan, describe_store, generate_store
from judgebias_core.protocols.orderings import is_balanced


def test_synthetic_store_is_well_formed(tmp_path: Path) -> None:
    plan = SyntheticPlan(calls=3_000, judges=2, candidates=3)
    store = generate_store(tmp_path / "synthetic.duckdb", plan)
    assert store.calls == plan.pairwise_calls + plan.rubric_calls and store.pair_outcomes == plan.pairwise_calls // 2
    with duckdb.connect(str(tmp_path / "synthetic.duckdb"), read_only=True) as con:
        unmirrored = con.execute(
            "SELECT count(*) FROM judge_calls o WHERE o.kind = 'pairwise' AND NOT EXISTS (SELECT 1 FROM judge_calls s "
            "WHERE s.run_id = o.run_id AND s.item_id = o.item_id AND s.first_candidate = o.second_candidate "
            "AND s.second_candidate = o.first_candidate)").fetchall()[0][0]
        orderings = con.execute(
            "SELECT list(ordering ORDER BY ordering) FROM judge_calls WHERE run_id = ? GROUP BY item_id",
            [store.rubric_permutation_runs[0]]).fetchall()
        positions = con.execute(
            "SELECT count(*) FILTER (WHERE ordering[chosen_position] <> score) FROM judge_calls WHERE kind = 'rubric' "
            "AND parse_status = 'ok'").fetchall()[0][0]
        classes = dict(con.execute("SELECT classification, count(*) FROM pair_outcomes WHERE dataset_id = ? "
                                   "GROUP BY ALL", [PAIRWISE_DATASET]).fetchall())
    assert unmirrored == 0 and positions == 0
    assert all(len(o) == 10 and is_balanced([tuple(x) for x in o]) for (o,) in orderings)
    assert set(classes) >= {"consistent", "primacy", "recency"}


def test_an_existing_store_is_described_as_generated(tmp_path: Path) -> None:
    store = generate_store(tmp_path / "synthetic.duckdb", SyntheticPlan(calls=2_000, judges=2, candidates=3))
    again = describe_store(tmp_path / "synthetic.duckdb")
    assert (again.pairwise_calls, again.rubric_calls, again.pair_outcomes) == (
        store.pairwise_calls, store.rubric_calls, store.pair_outcomes)
    assert (again.pairwise_runs, again.rubric_permutation_runs, again.rubric_repeat_runs) == (
        store.pairwise_runs, store.rubric_permutation_runs, store.rubric_repeat_runs)
