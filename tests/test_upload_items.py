"""Uploads of pointwise and pairwise items: real data round trips, every problem at once, all-or-nothing, idempotent."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from judgebias_core.errors import ValidationFailed
from judgebias_core.sources.upload import prepare_upload, suggest_spec, upload_file
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.store.handle import Store
from tests.upload_helpers import as_bytes, fingerprint, real_table, rows


def _spec(data: bytes, name: str, kind: str, dataset_id: str, **settings: object) -> UploadSpec:
    return suggest_spec(read_table(data, name), kind, dataset_id, **settings)  # type: ignore[arg-type]


def _problems(error: ValidationFailed) -> set[tuple[int | None, str | None, str]]:
    return {(p.row, p.column, p.reason) for p in error.problems}


def test_real_autoj_pairs_round_trip_and_second_upload_changes_nothing(upload_db: Path) -> None:
    pairs = real_table("autoj-pairwise/pairs.jsonl.gz")
    data = as_bytes(pairs, "jsonl")
    spec = _spec(data, "pairs.jsonl", "pairs", "autoj-upload", baseline_candidate="response_1")
    assert spec.candidate_columns == {"response_1": "response_1", "response_2": "response_2"}
    assert spec.columns == {"item_id": "pair_id", "prompt": "prompt", "task": "scenario", "preference": "human_label"}
    result = upload_file(Store.open(upload_db), data, "pairs.jsonl", spec)
    assert result.inserted == {"datasets": 1, "items": 1392, "answers": 2784, "human_labels": 1392}
    # The same labels as the bundled import of the same file (one answer there is an empty string: kept).
    counts = "SELECT preference, count(*) FROM human_labels WHERE dataset_id = ? GROUP BY 1 ORDER BY 1"
    assert rows(upload_db, counts, ["autoj-upload"]) == rows(upload_db, counts, ["autoj"]) == [
        ("response_1", 520), ("response_2", 499), ("tie", 373)]
    assert rows(upload_db, "SELECT baseline_candidate, origin, content_hash FROM datasets WHERE dataset_id = ?",
                ["autoj-upload"]) == [("response_1", "upload", spec.content_hash(data))]
    before = fingerprint(upload_db)
    again = upload_file(Store.open(upload_db), data, "pairs.jsonl", spec)
    assert again.already_stored and sum(again.inserted.values()) == 0
    assert fingerprint(upload_db) == before


def test_real_summeval_scores_from_a_list_column_match_the_experts(upload_db: Path) -> None:
    raw = real_table("summeval/expert_annotations.jsonl.gz").head(60)
    frame = pd.DataFrame({"item_id": raw["item_id"], "article": raw["article"], "summary": raw["summary"],
                          "system": raw["system"],
                          "coherence": raw["expert_scores"].map(lambda s: ",".join(map(str, s["coherence"])))})
    data = as_bytes(frame, "xlsx")
    spec = _spec(data, "summeval.xlsx", "items", "summeval-upload", rubric_id="summeval-coherence")
    spec = spec.model_copy(update={"columns": {**spec.columns, "scores": "coherence"}})
    assert spec.columns["instruction"] == "article" and spec.columns["response"] == "summary"
    assert spec.columns["candidate"] == "system"
    result = upload_file(Store.open(upload_db), data, "summeval.xlsx", spec)
    assert result.inserted["items"] == 60 and result.inserted["human_labels"] == 180
    means = ("SELECT item_id, avg(score) FROM human_labels WHERE dataset_id = ? AND rubric_id = "
             "'summeval-coherence' GROUP BY 1 ORDER BY 1")
    bundled = dict(rows(upload_db, means, ["summeval"]))
    uploaded = rows(upload_db, means, ["summeval-upload"])
    assert uploaded and all(bundled[item] == pytest.approx(mean) for item, mean in uploaded)
    assert rows(upload_db, "SELECT min(seq), max(seq), count(DISTINCT candidate) FROM items WHERE dataset_id = ?",
                ["summeval-upload"]) == [(0, 59, 12)]


ITEMS_CSV = (
    b"id,instruction,response,alice,bob\n"
    b"a,Q1,R1,4,5\n"
    b"b,Q2,R2,6,\n"  # 6 is not a level of a 1-5 rubric
    b"c,,R3,x,1\n"  # missing instruction, non-integer score
    b"a,Q4,R4,1,2\n"  # duplicate id
)


def test_every_item_problem_is_reported_and_nothing_is_written(upload_db: Path) -> None:
    spec = _spec(ITEMS_CSV, "items.csv", "items", "bad-items", rubric_id="summeval-coherence",
                 rater_columns={"alice": "alice", "bob": "bob"})
    before = fingerprint(upload_db)
    with pytest.raises(ValidationFailed) as caught:
        upload_file(Store.open(upload_db), ITEMS_CSV, "items.csv", spec)
    assert _problems(caught.value) == {
        (2, "alice", "score 6 is not a level of rubric 'summeval-coherence' (1, 2, 3, 4, 5)"),
        (3, "instruction", "missing value (this field is required)"),
        (3, "alice", "'x' is not an integer"),
        (4, "id", "duplicate item id 'a' (first on row 1)"),
    }
    assert fingerprint(upload_db) == before


def test_scores_without_a_rubric_and_a_taken_dataset_id_are_file_problems(upload_db: Path) -> None:
    good = b"instruction,response,score\nQ,R,3\n"
    spec = _spec(good, "x.csv", "items", "mtbench", rater_columns={"score": "r1"})
    preview = prepare_upload(Store.open(upload_db), good, "x.csv", spec)
    reasons = {p.reason for p in preview.problems}
    assert "the file holds human scores: choose the rubric they are levels of" in reasons
    assert any("already used by another bundled dataset" in r for r in reasons)
    assert preview.batch is None


def test_pairs_problems_row_column_reason(upload_db: Path) -> None:
    data = (b"id,prompt,Response (ChatGPT),Response (Claude),Winner\n"
            b"1,Say hi,Hi!,Hello,CHATGPT\n"
            b"2,,a,b,TIE\n"
            b"3,Only one,x,,Claude\n"
            b"4,Odd,x,y,maybe\n"
            b"1,Again,x,y,tie\n")
    spec = _spec(data, "p.csv", "pairs", "bad-pairs")
    assert spec.preference_map == {"CHATGPT": "ChatGPT", "TIE": "tie", "Claude": "Claude", "tie": "tie"}
    preview = prepare_upload(Store.open(upload_db), data, "p.csv", spec)
    assert {(p.row, p.column, p.reason) for p in preview.problems} == {
        (2, "prompt", "missing value (this field is required)"),
        (3, None, "fewer than two candidate answers in this row"),
        (4, "Winner", "preference value 'maybe' is not mapped to a candidate or to tie"),
        (5, "id", "duplicate item id '1' (first on row 1)"),
    }


def test_candidate_names_from_name_columns_and_slot_preferences(upload_db: Path) -> None:
    data = (b"question_id,prompt,model_a,model_b,response_a,response_b,winner\n"
            b"q1,P1,gpt-4,claude,A1,B1,model_a\n"
            b"q2,P2,claude,llama,A2,B2,model_b\n"
            b"q3,P3,llama,gpt-4,A3,B3,tie (bothbad)\n"
            b"q4,P4,gpt-4,llama,A4,B4,llama\n")
    spec = _spec(data, "arena.csv", "pairs", "arena-sample")
    assert spec.name_columns == {"response_a": "model_a", "response_b": "model_b"}
    upload_file(Store.open(upload_db), data, "arena.csv", spec)
    assert rows(upload_db, "SELECT item_id, preference FROM human_labels WHERE dataset_id = ? ORDER BY 1",
                ["arena-sample"]) == [("q1", "gpt-4"), ("q2", "llama"), ("q3", "tie"), ("q4", "llama")]
    assert rows(upload_db, "SELECT candidate, answer FROM answers WHERE dataset_id = ? AND item_id = 'q2' "
                "ORDER BY 1", ["arena-sample"]) == [("claude", "A2"), ("llama", "B2")]


def test_preference_mapped_to_a_candidate_absent_from_the_row(upload_db: Path) -> None:
    data = b"prompt,Response (A1),Response (B1),Response (C1),pick\nP,x,y,,C1\nP2,x,y,z,C1\n"
    spec = _spec(data, "three.csv", "pairs", "three-candidates")
    assert list(spec.candidate_columns.values()) == ["A1", "B1", "C1"]
    # A value equal to a candidate's name needs no mapping.
    spec = spec.model_copy(update={"columns": {**spec.columns, "preference": "pick"}})
    preview = prepare_upload(Store.open(upload_db), data, "three.csv", spec)
    assert [(p.row, p.reason) for p in preview.problems] == [
        (1, "preference 'C1' means 'C1', which has no answer in this row")]
    # Without an item id column, rows are numbered in file order.
    fixed = b"prompt,Response (A1),Response (B1),Response (C1),pick\nP,x,y,,B1\nP2,x,y,z,C1\n"
    upload_file(Store.open(upload_db), fixed, "three.csv", spec)
    assert rows(upload_db, "SELECT item_id, count(*) FROM answers WHERE dataset_id = ? GROUP BY 1 ORDER BY 1",
                ["three-candidates"]) == [("1", 2), ("2", 3)]


def test_user_names_that_look_like_key_columns(upload_db: Path) -> None:
    data = b"item_id,instruction,response,row\nk1,Q,R,4\n"
    spec = _spec(data, "keys.csv", "items", "key-names", rubric_id="summeval-coherence",
                 rater_columns={"row": "row"})
    upload_file(Store.open(upload_db), data, "keys.csv", spec)
    stored = rows(upload_db, "SELECT rater, score FROM human_labels WHERE dataset_id = ?", ["key-names"])
    assert stored == [("row", 4.0)]


def test_a_row_with_several_problems_gets_them_all(upload_db: Path) -> None:
    data = b"item_id,instruction,response,ann,all\nz1,,R,7,\"[2, 9]\"\n"
    spec = _spec(data, "many.csv", "items", "many-problems", rubric_id="summeval-coherence",
                 rater_columns={"ann": "ann"}, columns={"item_id": "item_id", "instruction": "instruction",
                                                       "response": "response", "scores": "all"})
    preview = prepare_upload(Store.open(upload_db), data, "many.csv", spec)
    assert {(p.row, p.column, p.reason) for p in preview.problems} == {
        (1, "instruction", "missing value (this field is required)"),
        (1, "ann", "score 7 is not a level of rubric 'summeval-coherence' (1, 2, 3, 4, 5)"),
        (1, "all", "score 9 is not a level of rubric 'summeval-coherence' (1, 2, 3, 4, 5)"),
    }
