"""Messages for people: problems counted as they are listed, stored values shown without Python brackets, rubrics
on New run by their criterion text, the run cost as money."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from judgebias_core.errors import RowProblem
from tests.app_helpers import open_page
from ui.run_panel import dollars
from ui.state import problems_count
from ui.upload_panel import _cell_text


def test_one_problem_on_many_rows_counts_once_with_its_rows() -> None:
    unmapped = [RowProblem(row=r, column="Human Verdict", reason="preference value 'GPT4' is not mapped")
                for r in range(1, 30)]
    other = [RowProblem(row=r, column="Human Verdict", reason="preference value 'x' is not mapped") for r in (40, 41)]
    assert problems_count(unmapped + other) == "2 problems, on 31 rows"
    assert problems_count(unmapped[:1]) == "1 problem"
    assert problems_count([RowProblem(row=None, column=None, reason="the file is empty")]) == "1 problem"
    assert problems_count([RowProblem(row=2, column="a", reason="x"), RowProblem(row=3, column="b", reason="y")]) \
        == "2 problems"


def test_stored_values_read_as_text() -> None:
    assert _cell_text(["first turn", "second turn"]) == "first turn / second turn"
    assert _cell_text(np.array(["one"])) == "one"
    assert _cell_text({"a": "é"}) == '{"a": "é"}'
    assert _cell_text(float("nan")) is None and _cell_text(3) == "3"


def test_run_cost_as_money() -> None:
    assert dollars(0.0) == "$0.00"
    assert dollars(0.01234) == "$0.0123"


def test_new_run_lists_rubrics_by_their_criterion(app_env: Path) -> None:
    at = open_page("new_run.py")
    next(box for box in at.selectbox if box.label == "Dataset").set_value("prometheus-vicuna").run()
    assert not at.exception
    box = next(box for box in at.selectbox if box.label == "Rubric")
    shown = list(box.options[1:])  # AppTest holds the options as displayed
    assert shown and all("(prometheus-" in label and ", k = " in label for label in shown), shown[:3]
    assert all(not label.startswith("prometheus-") for label in shown)  # the criterion text comes first
