"""The column-wise fast path of upload validation gives exactly what the row models give, problems included."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from judgebias_core.errors import RowProblem
from judgebias_core.sources.upload_fast_rows import split_rows
from judgebias_core.sources.upload_kind import UPLOAD_KINDS
from judgebias_core.sources.upload_validate import _FAST_CHECKS, UploadRow, validate_rows

ROW_MODELS = {kind.name: kind.row_model for kind in UPLOAD_KINDS.records()}

CELLS = st.sampled_from(["x", "  a b ", "", "   ", None, math.nan, math.inf, 3, 3.0, 2.5, 0, -1, 2**40, True,
                         "4", " 7 ", "[3, 4, 5]", "3,4,5", "a,b,c", '["p", "q", "r"]', "a,a,b", [1, 2, 3],
                         {"k": 1}, b"bytes", "[1, 2", "A", "[[A]]"])
DICTS = st.dictionaries(st.sampled_from(["c1", "c2", "c3"]), CELLS, max_size=3)


def column_of(location: tuple[Any, ...]) -> str | None:
    return "/".join(map(str, location)) or None


def reference(records: list[dict[str, Any]], model: type[UploadRow]) -> tuple[pd.DataFrame, list[RowProblem]]:
    """Every row through the pydantic model (validate_rows before the fast path)."""
    adapter: TypeAdapter[list[UploadRow]] = TypeAdapter(list[model])  # type: ignore[valid-type]
    problems, bad = [], set()
    try:
        valid = adapter.validate_python(records)
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            index, *inner = detail["loc"]
            if not inner and "field" in detail.get("ctx", {}):
                inner = [detail["ctx"]["field"]]
            bad.add(int(index))
            problems.append(RowProblem(row=int(index) + 1, column=column_of(tuple(inner)), reason=detail["msg"]))
        valid = adapter.validate_python([r for i, r in enumerate(records) if i not in bad])
    frame = pd.DataFrame.from_records(adapter.dump_python(valid), columns=list(model.model_fields))
    frame.insert(0, "row", [i + 1 for i in range(len(records)) if i not in bad])
    return frame, sorted(problems, key=lambda p: (p.row or 0, p.column or ""))


def _records(model: type[UploadRow]) -> st.SearchStrategy[list[dict[str, Any]]]:
    fields = {name: DICTS if name in ("answers", "names", "rater_scores") else CELLS for name in model.model_fields}
    return st.lists(st.fixed_dictionaries({}, optional=fields), max_size=12)


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_the_fast_path_equals_the_row_models(data: st.DataObject) -> None:
    for kind, model in ROW_MODELS.items():
        records = data.draw(_records(model), label=kind)
        frame, problems = validate_rows(records, model, column_of)
        expected_frame, expected_problems = reference(records, model)
        pd.testing.assert_frame_equal(frame, expected_frame)
        assert problems == expected_problems


def test_valid_rows_of_every_model_take_the_fast_path_with_the_same_values() -> None:
    base = {"item_id": " i1 ", "judge": "j", "raw_output": "[[A]]", "repetition": 2.0, "prompt": math.nan}
    records = {"items": {"item_id": "i", "instruction": "do", "response": "done", "rater_scores": {"r": 4.0}},
               "pairs": {"item_id": "i", "prompt": "q", "answers": {"a": "x", "b": ""}, "names": {}},
               "pairwise-log": base | {"first_candidate": "a", "second_candidate": " b"},
               "rubric-log": base | {"ordering": "3,4,5", "score": 4},
               "listwise-log": base | {"slots": "a,b,c", "pick": "A"}}
    for kind, record in records.items():
        model = ROW_MODELS[kind]
        rows = [record] * 3
        assert split_rows(rows, model, _FAST_CHECKS)[1].all(), f"{kind} rows left the fast path"
        frame, problems = validate_rows(rows, model, column_of)
        expected_frame, expected_problems = reference(rows, model)
        assert not problems and len(frame) == 3, kind
        pd.testing.assert_frame_equal(frame, expected_frame)
