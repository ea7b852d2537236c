"""Uploads of judge logs: pairwise calls classified into pairs, rubric trials with their orderings, failures kept."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from judgebias_core.errors import ValidationFailed
from judgebias_core.sources.upload import prepare_upload, suggest_spec, upload_file
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import list_runs
from tests.upload_helpers import as_bytes, fingerprint, real_table, rows

CLASSES = ("SELECT classification, count(*) FROM pair_outcomes WHERE dataset_id = ? AND study = ? AND judge = ? "
           "GROUP BY 1 ORDER BY 1")


def _spec(data: bytes, name: str, kind: str, dataset_id: str, **settings: object) -> UploadSpec:
    return suggest_spec(read_table(data, name), kind, dataset_id, **settings)  # type: ignore[arg-type]


def test_real_mtbench_log_reproduces_the_published_consistency(upload_db: Path) -> None:
    calls = real_table("judging-the-judges/mtbench_judgments.jsonl.gz")
    log = calls[(calls["judge"] == "gpt-4-0613") & (calls["study"] == "full")]
    data = as_bytes(log[["item_id", "judge", "first", "second", "raw_output"]], "csv")
    spec = _spec(data, "gpt4.csv", "pairwise-log", "mtbench")
    assert spec.columns == {"item_id": "item_id", "first_candidate": "first", "second_candidate": "second",
                            "judge": "judge", "raw_output": "raw_output"}
    result = upload_file(Store.open(upload_db), data, "gpt4.csv", spec)
    assert result.inserted["judge_calls"] == 4800 and result.run_id is not None
    uploaded = rows(upload_db, CLASSES, ["mtbench", result.run_id, "gpt-4-0613"])
    # 1,957 consistent pairs of 2,400 (METHODS.md), the same split as the bundled import of the same calls.
    assert dict(uploaded)["consistent"] == 1957 and sum(n for _, n in uploaded) == 2400
    assert uploaded == rows(upload_db, CLASSES, ["mtbench", "full", "gpt-4-0613"])
    failed = "SELECT count(*) FROM judge_calls WHERE run_id = ? AND parse_status = 'failed' AND raw_output IS NOT NULL"
    bundled_failed = rows(upload_db, "SELECT count(*) FROM judge_calls WHERE dataset_id = 'mtbench' AND study = 'full' "
                                     "AND judge = 'gpt-4-0613' AND parse_status = 'failed'")
    assert rows(upload_db, failed, [result.run_id]) == bundled_failed
    run = Store(upload_db).read(list_runs).set_index("run_id").loc[result.run_id]
    assert (run["origin"], run["protocol"], run["study"], run["judge"]) == (
        "upload", "pairwise-swap", result.run_id, "gpt-4-0613")
    before = fingerprint(upload_db)
    assert sum(upload_file(Store.open(upload_db), data, "gpt4.csv", spec).inserted.values()) == 0
    assert fingerprint(upload_db) == before


def test_real_autoj_verdicts_as_a_parquet_log(upload_db: Path) -> None:
    verdicts = real_table("autoj-pairwise/autoj_verdicts.jsonl.gz")
    data = as_bytes(verdicts, "parquet")
    spec = _spec(data, "autoj.parquet", "pairwise-log", "autoj")
    assert spec.columns["verdict"] == "verdict" and "raw_output" not in spec.columns
    result = upload_file(Store.open(upload_db), data, "autoj.parquet", spec)
    assert rows(upload_db, CLASSES, ["autoj", result.run_id, "auto-j-13b"]) == [
        ("consistent", 1161), ("primacy", 76), ("recency", 155)]
    assert rows(upload_db, "SELECT DISTINCT parser FROM judge_calls WHERE run_id = ?", [result.run_id]) == [
        ("pre-parsed",)]


def test_order_labels_baseline_first_else_first_seen(upload_db: Path) -> None:
    data = (b"item,first,second,judge,verdict\n"
            b"81,alpaca-13b,vicuna-13b-v1.3,j,A\n"  # the baseline's mirror comes first in the file
            b"81,vicuna-13b-v1.3,alpaca-13b,j,B\n"
            b"81,gpt-4,claude-v1,j,A\n"  # no baseline: the first-seen order is original
            b"81,claude-v1,gpt-4,j,A\n")
    spec = _spec(data, "order.csv", "pairwise-log", "mtbench")
    result = upload_file(Store.open(upload_db), data, "order.csv", spec)
    labels = rows(upload_db, "SELECT first_candidate, order_label FROM judge_calls WHERE run_id = ? ORDER BY 1",
                  [result.run_id])
    assert labels == [("alpaca-13b", "swapped"), ("claude-v1", "swapped"), ("gpt-4", "original"),
                      ("vicuna-13b-v1.3", "original")]
    outcomes = rows(upload_db, "SELECT opponent, candidate, classification, winner FROM pair_outcomes WHERE study = ? "
                               "ORDER BY 1", [result.run_id])
    # Pairs are oriented by name, not by file order: without the baseline the name that sorts first is the opponent.
    assert outcomes == [("claude-v1", "gpt-4", "primacy", None), ("vicuna-13b-v1.3", "alpaca-13b", "consistent",
                                                                   "alpaca-13b")]


def test_unparseable_replies_are_kept_and_bad_verdicts_fail(upload_db: Path) -> None:
    data = (b"item_id,first,second,judge,reply,verdict\n"
            b"82,gpt-4,claude-v1,j2,no verdict here,\n"
            b"82,claude-v1,gpt-4,j2,Choice: A,\n"
            b"83,gpt-4,claude-v1,j2,,maybe\n"
            b"83,claude-v1,gpt-4,j2,,second\n")
    spec = _spec(data, "fail.csv", "pairwise-log", "mtbench", parser="devbench", options=2)
    result = upload_file(Store.open(upload_db), data, "fail.csv", spec)
    stored = rows(upload_db, "SELECT item_id, first_candidate, raw_output, verdict, parse_status, parser, error "
                             "FROM judge_calls WHERE run_id = ? ORDER BY 1, 2", [result.run_id])
    assert stored == [
        ("82", "claude-v1", "Choice: A", "A", "ok", "devbench", None),
        ("82", "gpt-4", "no verdict here", None, "failed", "devbench", "no 'Choice: A' or 'Choice: B' in the reply"),
        ("83", "claude-v1", None, "B", "ok", "pre-parsed", None),
        ("83", "gpt-4", None, None, "failed", "pre-parsed", "'maybe' is not a verdict (A, B, or first, second, tie)"),
    ]


def test_pairwise_log_problems_name_row_and_column(upload_db: Path) -> None:
    data = (b"item_id,first,second,judge,reply\n"
            b"nope,gpt-4,claude-v1,j,[[A]]\n"
            b"81,gpt-4,nobody,j,[[A]]\n"
            b"81,gpt-4,gpt-4,j,[[A]]\n"
            b"81,gpt-4,claude-v1,,[[A]]\n"
            b"gone,gpt-4,claude-v1,,[[A]]\n"
            b"81,gpt-4,claude-v1,j,\n"
            b"81,gpt-4,claude-v1,j,[[B]]\n"
            b"81,gpt-4,claude-v1,j,[[C]]\n")
    spec = _spec(data, "bad.csv", "pairwise-log", "mtbench")
    before = fingerprint(upload_db)
    with pytest.raises(ValidationFailed) as caught:
        upload_file(Store.open(upload_db), data, "bad.csv", spec)
    assert {(p.row, p.column, p.reason) for p in caught.value.problems} == {
        (1, "item_id", "item 'nope' is not in dataset 'mtbench'"),
        (2, "second", "candidate 'nobody' has no answer to item '81' in 'mtbench'"),
        (3, None, "the same candidate sits in both slots"),
        (4, "judge", "missing value (this field is required)"),
        (5, "judge", "missing value (this field is required)"),  # an invalid row still gets its other problems:
        (5, "item_id", "item 'gone' is not in dataset 'mtbench'"),
        (6, None, "missing value: give the raw reply or the verdict"),
        (8, None, "duplicate call (same item, slots, judge and repetition) '81 / gpt-4 / claude-v1 / j / 1' "
                  "(first on row 7)"),
    }
    assert fingerprint(upload_db) == before


def test_logs_need_an_existing_dataset_of_the_right_kind(upload_db: Path) -> None:
    data = b"item_id,judge,ordering,score\n1,j,\"1,2,3,4,5\",3\n"
    for dataset, reason in (("absent", "is not in the store"), ("mtbench", "this log needs a pointwise dataset")):
        preview = prepare_upload(Store.open(upload_db), data, "t.csv", _spec(data, "t.csv", "rubric-log", dataset))
        assert len(preview.problems) == 1 and reason in preview.problems[0].reason
    no_judge = b"item_id,ordering,reply\n1,12345,[RESULT] 3\n"
    preview = prepare_upload(Store.open(upload_db), no_judge, "t.csv", _spec(no_judge, "t.csv", "rubric-log", "summeval"))
    assert [p.reason for p in preview.problems] == [
        "no column is mapped to the required field 'Judge' (or give one judge name)"]


ARTICLE = "cnn-test-404f859482d47c127868964a9a39d1a7645dd2e9"  # the first SummEval article
M8, M9 = f"{ARTICLE}:M8", f"{ARTICLE}:M9"
RUBRIC_LOG = (
    "item_id,judge,ordering,reply,score\n"
    f"{M8},judge-x,\"[3, 4, 5, 1, 2]\",Feedback: fine. [RESULT] 5,\n"
    f"{M8},judge-x,\"5,4,3,2,1\",,2\n"
    f"{M8},judge-x,1 2 3 4 5,[RESULT] 9,\n"
    f"{M9},judge-x,\"2,3,4,5,1\",no result,\n"
    f"{M9},judge-x,\"1,2,3,4,5\",,seven\n"
)


def test_rubric_trials_store_ordering_score_and_position(upload_db: Path) -> None:
    data = RUBRIC_LOG.encode()
    spec = _spec(data, "trials.csv", "rubric-log", "summeval", parser="prometheus")
    result = upload_file(Store.open(upload_db), data, "trials.csv", spec)
    stored = rows(upload_db, "SELECT item_id, ordering, score, chosen_position, parse_status, parser, rubric_id "
                             "FROM judge_calls WHERE run_id = ? ORDER BY item_id, ordering", [result.run_id])
    assert stored == [
        (M8, [1, 2, 3, 4, 5], None, None, "failed", "prometheus", "summeval-coherence"),
        (M8, [3, 4, 5, 1, 2], 5, 3, "ok", "prometheus", "summeval-coherence"),
        (M8, [5, 4, 3, 2, 1], 2, 4, "ok", "pre-parsed", "summeval-coherence"),
        (M9, [1, 2, 3, 4, 5], None, None, "failed", "pre-parsed", "summeval-coherence"),
        (M9, [2, 3, 4, 5, 1], None, None, "failed", "prometheus", "summeval-coherence"),
    ]
    run = Store(upload_db).read(list_runs).set_index("run_id").loc[result.run_id]
    assert (run["protocol"], run["parse_failures"], run["completed"]) == ("rubric-permutation", 3, 5)


def test_rubric_trial_problems(upload_db: Path) -> None:
    data = ("item_id,judge,ordering,score\n"
            f"{M8},j,\"1,2,3,4\",2\n"
            f"{M8},j,\"[1, 2, x]\",2\n"
            f"{M8},j,\"1,2,3,4,5\",2\n"
            f"{M8},j,\"1,2,3,4,5\",3\n"
            "missing,j,\"1,2,3,4,5\",3\n").encode()
    preview = prepare_upload(Store.open(upload_db), data, "t.csv", _spec(data, "t.csv", "rubric-log", "summeval"))
    assert {(p.row, p.column, p.reason) for p in preview.problems} == {
        (1, "ordering", "ordering [1, 2, 3, 4] is not an ordering of the rubric's levels [1, 2, 3, 4, 5]"),
        (2, "ordering", "'[1, 2, x]' is not a JSON list"),
        (4, None, f"duplicate trial (same item, judge, ordering and repetition) '{M8} / j / 1 / 1,2,3,4,5' "
                  "(first on row 3)"),
        (5, "item_id", "item 'missing' is not in dataset 'summeval'"),
    }


def test_orderings_as_list_columns_in_parquet_and_json_lines(upload_db: Path) -> None:
    frame = pd.DataFrame({"item_id": [M8, M9], "judge": ["list-judge"] * 2,
                          "ordering": [[5, 4, 3, 2, 1], [1, 2, 3, 4, 5]], "score": [4, 5]})
    for kind in ("parquet", "jsonl"):
        data = as_bytes(frame, kind)
        spec = _spec(data, f"trials.{kind}", "rubric-log", "summeval")
        result = upload_file(Store.open(upload_db), data, f"trials.{kind}", spec)
        stored = rows(upload_db, "SELECT ordering, score, chosen_position FROM judge_calls WHERE run_id = ? "
                                 "ORDER BY item_id", [result.run_id])
        assert stored == [([5, 4, 3, 2, 1], 4, 2), ([1, 2, 3, 4, 5], 5, 5)]
