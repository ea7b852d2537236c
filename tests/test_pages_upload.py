"""Uploads keep the user's data: the human-label column and folded preference values are suggested, unmatched
values get one hint each, rubrics are listed by criterion, and messages read as sentences."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from judgebias_core.errors import RowProblem
from judgebias_core.sources.upload_mapping import (
    TIE,
    fold,
    suggest_preference_column,
    suggest_preference_map,
)
from tests.app_helpers import open_page
from tests.upload_helpers import rows
from ui.state import problems_frame

# A stranger's file: no header says "preference"; the human labels sit under "Human Verdict", written in another
# case and punctuation than the candidate names in the answer headers.
STRANGER_PAIRS = (
    b"Question,Response (Vicuna-13B),Response (GPT-4),Human Verdict\n"
    b"What is 2+2?,four,4,VICUNA13B\n"
    b"Name a colour,red,blue,gpt4\n"
    b"Say hi,hi,hello,Tie\n"
    b"Capital of France?,Paris,Paris.,GPT-4\n"
)


def test_fold_ignores_case_and_punctuation() -> None:
    assert fold("VICUNA13B") == fold("Vicuna-13B") == fold("vicuna_13b") == "vicuna13b"


@given(st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=12),
       st.lists(st.sampled_from("-_. "), max_size=3))
def test_a_value_equal_to_a_candidate_after_folding_suggests_it(name: str, marks: list[str]) -> None:
    candidate = name + "".join(marks) + "x1"
    value = (name.upper() + "x1").swapcase()
    assert suggest_preference_map([value], [candidate, "zz-other-9"]) == {value: candidate}


def test_the_preference_column_is_found_from_its_values() -> None:
    targets = ["Vicuna-13B", "GPT-4"]
    columns = {"Question": ["What is 2+2?", "Name a colour", "Say hi"], "Notes": ["ok", "fine", "ok"],
               "Human Verdict": ["VICUNA13B", "gpt4", "Tie"]}
    assert suggest_preference_column(columns, targets) == "Human Verdict"
    assert suggest_preference_column(columns, targets, taken=["Human Verdict"]) is None
    assert suggest_preference_map(["VICUNA13B", "gpt4", "Tie"], targets) == {
        "VICUNA13B": "Vicuna-13B", "gpt4": "GPT-4", "Tie": TIE}


def test_file_level_problems_have_no_none_cells_and_repeats_are_one_line() -> None:
    frame = problems_frame([RowProblem(None, None, "the file is empty"),
                            *(RowProblem(row, "Winner", "value 'x' is not mapped") for row in range(1, 13))])
    assert frame.to_dict("records") == [
        {"row": "", "column": "", "problem": "the file is empty"},
        {"row": "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more rows", "column": "Winner",
         "problem": "value 'x' is not mapped"}]
    assert "None" not in frame.to_string()


@pytest.fixture
def writable_app(bundled_db: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    return bundled_db


def _upload_pairs(data: bytes) -> AppTest:
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("pairs").run()
    at.file_uploader[0].set_value(("stranger.csv", data, "text/csv")).run()
    assert not at.exception
    return at


def test_a_strangers_human_labels_are_kept_by_default(writable_app: Path) -> None:
    at = _upload_pairs(STRANGER_PAIRS)
    boxes = {box.label: box.value for box in at.selectbox}
    assert boxes["Human preference"] == "Human Verdict"  # not "(none)"
    assert boxes["VICUNA13B means"] == "Vicuna-13B" and boxes["gpt4 means"] == "GPT-4"
    assert boxes["Tie means"] == "tie"
    next(b for b in at.button if b.label == "Write to the store").click().run()
    assert not at.exception
    (message,) = [s.value for s in at.success]
    assert "{" not in message and "(s)" not in message and "human labels 4" in message
    assert rows(writable_app, "SELECT count(*) FROM human_labels WHERE dataset_id = 'stranger'") == [(4,)]
    links = [(link.proto.page, link.proto.label, link.proto.query_string) for link in at.get("page_link")]
    assert ("new_run", "Run a judge on this dataset", "nr_dataset=stranger") in links


def test_unmatched_values_get_one_hint_each(writable_app: Path) -> None:
    data = STRANGER_PAIRS + b"".join(f"Extra {n}?,a{n},b{n},alpaca\n".encode() for n in range(6))
    at = _upload_pairs(data)
    hints = [c.value for c in at.caption if "matches no candidate" in c.value]
    assert hints == [":material/help: `alpaca` matches no candidate: choose above what it means (a candidate "
                     "or tie); until then its rows cannot be written."]
    problems = next(f.value for f in at.dataframe if list(f.value.columns) == ["row", "column", "problem"])
    assert len(problems) == 1 and problems.iloc[0]["row"] == "5, 6, 7, 8, 9, 10"
    assert [e.value for e in at.error] == ["1 problem, on 6 rows: nothing can be written until every one is fixed."]


def test_rubrics_are_listed_by_their_criterion(app_env: Path) -> None:
    at = open_page("data.py")
    at.selectbox(key="upload_kind").set_value("items").run()
    at.file_uploader[0].set_value(("items.csv", b"instruction,response\nQ,R\n", "text/csv")).run()
    assert not at.exception
    box = next(b for b in at.selectbox if b.label.startswith("Rubric the human scores"))
    assert ("Does the model demonstrate the ability to maintain the character as instructed? "
            "(prometheus-04dd755a2928, k = 5)") in box.options
