"""List-wise consistency and direction on hand-made calls written through write_batch."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from judgebias_core.analyses.pairwise import listwise_metrics
from judgebias_core.store.handle import Store
from judgebias_core.store.pairwise_queries import listwise_groups
from judgebias_core.store.writes import StoreBatch, write_batch
from tests.store_helpers import read

XYZ_ORDERS = [["x", "y", "z"], ["y", "z", "x"], ["z", "x", "y"]]


def cyclic_orders(candidates: list[str]) -> list[list[str]]:
    return [candidates[i:] + candidates[:i] for i in range(len(candidates))]


def listwise_calls(groups: list[tuple[str, str, list[list[str]], list[str | None]]], study: str = "s") -> pd.DataFrame:
    """Calls from (judge, item, orders, verdicts); a verdict of None is a failed parse."""
    rows = []
    for judge, item, orders, verdicts in groups:
        for n, (slots, verdict) in enumerate(zip(orders, verdicts, strict=True)):
            rows.append({
                "call_id": f"{judge}|{item}|{n}|{study}", "run_id": "r", "dataset_id": "lw", "study": study,
                "judge": judge, "item_id": item, "kind": "listwise", "repetition": 1, "slots": slots,
                "verdict": verdict, "parse_status": "ok" if verdict else "failed", "parser": "listwise",
            })
    return pd.DataFrame(rows)


HAND_MADE = [
    ("J", "same-winner", XYZ_ORDERS, ["A", "C", "B"]),  # x wins in every order: consistent
    ("J", "always-first", XYZ_ORDERS, ["A", "A", "A"]),  # primacy: first picks 3 of 3
    ("J", "always-last", XYZ_ORDERS, ["C", "C", "C"]),  # later slot: first picks 0 of 3
    ("J", "no-winner", XYZ_ORDERS, ["none", "none", "none"]),  # the same answer (no winner) in every order
    ("J", "one-failed", XYZ_ORDERS, ["A", None, "B"]),  # failed
    ("J", "even", XYZ_ORDERS, ["A", "B", "B"]),  # x, z, x: inconsistent, first picks 1 of 3 = 1/p
    ("J", "missing-order", XYZ_ORDERS[:2], ["A", "C"]),  # only 2 of 3 orders: failed
    ("P", "pair", [["a", "b"], ["b", "a"]], ["A", "none"]),  # p = 2: like the pairwise (A, C), primacy
]


@pytest.fixture(scope="module")
def listwise_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lw") / "lw.duckdb"
    write_batch(Store.open(path), StoreBatch(judge_calls=listwise_calls(HAND_MADE)))
    return path


def test_groups_are_classified(listwise_db: Path) -> None:
    groups = read(listwise_groups, listwise_db, study="s").set_index("item_id")
    assert groups["classification"].to_dict() == {
        "same-winner": "consistent", "always-first": "primacy", "always-last": "recency", "no-winner": "consistent",
        "one-failed": "failed", "even": "undirected", "missing-order": "failed", "pair": "primacy",
    }


def test_judge_metrics(listwise_db: Path) -> None:
    results = {r.judge: r for r in read(listwise_metrics, listwise_db, study="s")}
    j = results["J"]
    assert (j.options, j.groups, j.failed_groups, j.consistent, j.primacy, j.recency, j.undirected) == (
        3, 7, 2, 2, 1, 1, 1)
    assert j.position_consistency == pytest.approx(2 / 5)
    # one-vs-all over the picks of inconsistent groups: 3 + 0 + 1 first-slot picks, 0 + 3 + 2 later
    assert (j.first_slot_picks, j.later_slot_picks) == (4, 5)
    assert j.binomial_p == pytest.approx(binomtest(4, 9, 1 / 3).pvalue)
    p = results["P"]
    assert (p.options, p.primacy, p.first_slot_picks, p.later_slot_picks) == (2, 1, 1, 0)


def test_no_listwise_calls_gives_nothing(fresh_db: Path) -> None:
    assert read(listwise_metrics, fresh_db) == []


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(p=st.integers(min_value=2, max_value=5), favourite=st.integers(min_value=0, max_value=4),
       slot=st.integers(min_value=0, max_value=4))
def test_same_candidate_is_consistent_and_same_slot_is_not(listwise_db: Path, p: int, favourite: int,
                                                             slot: int) -> None:
    candidates = [f"m{i}" for i in range(p)]
    orders = cyclic_orders(candidates)
    favourite_name, slot = candidates[favourite % p], slot % p
    loyal = [chr(65 + order.index(favourite_name)) for order in orders]
    positional = [chr(65 + slot)] * p
    study = f"prop-{p}-{favourite % p}-{slot}"  # its own study in the shared store; rewriting it changes nothing
    write_batch(Store.open(listwise_db), StoreBatch(judge_calls=listwise_calls([("loyal", "i", orders, loyal),
                                                                    ("positional", "i", orders, positional)],
                                                                   study=study)))
    results = {r.judge: r for r in read(listwise_metrics, listwise_db, study=study)}
    assert results["loyal"].consistent == 1 and results["loyal"].first_slot_picks == 0
    positional_result = results["positional"]
    assert positional_result.consistent == 0
    assert (positional_result.primacy, positional_result.recency) == ((1, 0) if slot == 0 else (0, 1))
