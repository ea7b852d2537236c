"""Reading uploaded tables (formats, encodings, sizes) and suggesting the column mapping from header names."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from judgebias_core.errors import ValidationFailed
from judgebias_core.sources.upload_kind import UPLOAD_KINDS
from judgebias_core.sources.upload_kinds.items import suggest_rater_columns
from judgebias_core.sources.upload_limits import UploadLimits
from judgebias_core.sources.upload_mapping import (
    TIE,
    candidate_from_header,
    suggest_candidate_columns,
    suggest_mapping,
    suggest_name_columns,
    suggest_preference_map,
)
from judgebias_core.sources.upload_read import read_table

FRAME = pd.DataFrame({"id": ["007", "8"], "prompt": ["Say hi", "Count, then stop"], "Response (ChatGPT)": ["Hi", ""]})


def _bytes(kind: str) -> bytes:
    buffer = io.BytesIO()
    if kind == "csv":
        return FRAME.to_csv(index=False).encode()
    if kind == "tsv":
        return FRAME.to_csv(index=False, sep="\t").encode()
    if kind == "jsonl":
        return FRAME.to_json(orient="records", lines=True).encode()
    if kind == "json":
        return FRAME.to_json(orient="records").encode()
    if kind == "parquet":
        FRAME.to_parquet(buffer)
    else:
        FRAME.to_excel(buffer, index=False)
    return buffer.getvalue()


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "json", "parquet", "xlsx"])
def test_every_format_reads_the_same_table(kind: str) -> None:
    frame = read_table(_bytes(kind), f"upload.{kind}")
    assert list(frame.columns) == list(FRAME.columns)
    assert len(frame) == 2
    # Ids stay text ("007" is not turned into 7) and commas inside quoted cells survive.
    assert str(frame.loc[0, "id"]) == "007"
    assert frame.loc[1, "prompt"] == "Count, then stop"


def _problems(data: bytes, name: str) -> list[tuple[int | None, str]]:
    with pytest.raises(ValidationFailed) as caught:
        read_table(data, name)
    return [(p.row, p.reason) for p in caught.value.problems]


def test_wrong_encoding_names_the_line() -> None:
    latin1 = "id,prompt\n1,ok\n2,café\n".encode("latin-1")
    [(row, reason)] = _problems(latin1, "f.csv")
    assert row == 2 and "not UTF-8" in reason and "0xe9 at line 3" in reason  # data row 2 is file line 3


def test_utf16_empty_oversized_and_unsupported_files_are_refused() -> None:
    assert "UTF-16" in _problems("id\n1\n".encode("utf-16"), "f.csv")[0][1]
    assert "empty" in _problems(b"", "f.csv")[0][1]
    assert "empty" in _problems(b"  \n\n", "f.jsonl")[0][1]
    assert "no data rows" in _problems(b"id,prompt\n", "f.csv")[0][1]
    assert "unsupported" in _problems(b"x", "f.docx")[0][1]
    with pytest.raises(ValidationFailed, match="limit"):
        read_table(b"id\n" + b"1\n" * 100, "f.csv", UploadLimits(max_bytes=50))


def test_every_bad_json_line_is_reported() -> None:
    data = b'{"id": 1}\nnot json\n{"id": 3}\n[1, 2]\n'
    rows = [row for row, _ in _problems(data, "f.jsonl")]
    assert rows == [2, 4]


def test_every_csv_row_with_the_wrong_field_count_is_reported() -> None:
    data = b'a,b\n1,2,3\n"multi\nline",ok\n\n4\n5,6\n'
    assert _problems(data, "f.csv") == [(1, "unparseable row: 3 fields where the header has 2"),
                                         (3, "unparseable row: 1 fields where the header has 2")]
    long_answer = "x" * 300_000  # beyond the csv module's default field limit
    frame = read_table(f"a,b\n1,{long_answer}\n".encode(), "f.csv")
    assert len(frame.loc[0, "b"]) == 300_000


def test_corrupt_binary_files_are_unreadable_not_crashes() -> None:
    assert "Parquet" in _problems(b"PAR1 not really", "f.parquet")[0][1]
    assert "XLSX" in _problems(b"PK\x03\x04 junk", "f.xlsx")[0][1]


@pytest.mark.parametrize(("header", "name"), [
    ("Response (ChatGPT)", "ChatGPT"),
    ("response [Claude 3]", "Claude 3"),
    ("answer_gpt4", "gpt4"),
    ("GPT-4 answer", "GPT-4"),
    ("Vicuna's response", "Vicuna"),
    ("output of llama-2", "llama-2"),
    ("response_1", "response_1"),  # a bare slot suffix keeps the header as the name
    ("Answer B", "Answer B"),
    ("response", None),
    ("prompt", None),
    ("Response (text)", None),
])
def test_candidate_named_from_header(header: str, name: str | None) -> None:
    assert candidate_from_header(header) == name


def test_mapping_suggestions_use_each_column_once() -> None:
    columns = ["Question ID", "Prompt", "Response (ChatGPT)", "Response (Claude)", "Winner"]
    answers = suggest_candidate_columns(columns)
    assert answers == {"Response (ChatGPT)": "ChatGPT", "Response (Claude)": "Claude"}
    assert suggest_mapping(columns, UPLOAD_KINDS.get("pairs").fields, taken=answers) == {
        "item_id": "Question ID", "prompt": "Prompt", "preference": "Winner"}
    log = suggest_mapping(["pair_id", "judge", "model_a", "model_b", "reply", "rep"], UPLOAD_KINDS.get("pairwise-log").fields)
    assert log == {"item_id": "pair_id", "first_candidate": "model_a", "second_candidate": "model_b",
                   "judge": "judge", "raw_output": "reply", "repetition": "rep"}
    assert suggest_mapping(["instruction", "output", "gold"], UPLOAD_KINDS.get("items").fields) == {
        "instruction": "instruction", "response": "output", "reference_answer": "gold"}


def test_name_columns_pair_by_slot_suffix() -> None:
    assert suggest_name_columns(["model_a", "model_b", "response_a", "response_b", "winner"]) == {
        "response_a": "model_a", "response_b": "model_b"}


def test_preference_values_suggested_by_name_tie_word_and_slot() -> None:
    assert suggest_preference_map(["CHATGPT", "TIE", "claude", "weird"], ["ChatGPT", "Claude"]) == {
        "CHATGPT": "ChatGPT", "TIE": TIE, "claude": "Claude"}
    assert suggest_preference_map(["model_a", "model_b", "tie (bothbad)"], ["response_a", "response_b"]) == {
        "model_a": "response_a", "model_b": "response_b", "tie (bothbad)": TIE}


def test_rater_columns_suggested_by_name_or_whole_numbers() -> None:
    frame = pd.DataFrame({"id": ["1", "2"], "text": ["a", "b"], "coherence_a": ["4", "5"], "coherence_b": ["3", "x"],
                          "Annotator 3": [None, "x"], "length": ["1.5", "2.5"]})
    assert suggest_rater_columns(frame, taken=["id"]) == ["coherence_a", "coherence_b", "Annotator 3"]
