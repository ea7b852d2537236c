"""The by-task heatmap keeps every cell readable: with more tasks than fit side by side (Auto-J's 58 scenarios), the
tasks become the rows; every cell reads "rate (count)" and its hover names the judge, then the task."""

from __future__ import annotations

import pandas as pd

from judgebias_core.charts.pairwise import MAX_TASK_COLUMNS, judge_task_heatmap


def _breakdown(tasks: int, judges: tuple[str, ...] = ("judge-a",)) -> pd.DataFrame:
    return pd.DataFrame([{"judge": judge, "task": f"task-{t:02d}", "position_consistency": 0.5 + t / 100,
                          "classified": 10 + t, "units": 2} for judge in judges for t in range(tasks)])


def test_few_tasks_are_the_columns() -> None:
    fig = judge_task_heatmap(_breakdown(5, ("judge-a", "judge-b")), "position_consistency")
    heatmap = fig.data[0]
    assert list(heatmap.x) == [f"task-{t:02d}" for t in range(5)] and fig.layout.xaxis.title.text == "task"
    assert heatmap.text[0][3] == "0.53 (13)"


def test_many_tasks_become_the_rows_with_rate_and_count_in_every_cell() -> None:
    tasks = MAX_TASK_COLUMNS + 8
    fig = judge_task_heatmap(_breakdown(tasks), "position_consistency")
    heatmap = fig.data[0]
    assert list(heatmap.y) == [f"task-{t:02d}" for t in range(tasks)] and list(heatmap.x) == ["judge-a"]
    assert fig.layout.yaxis.title.text == "task" and fig.layout.xaxis.title.text == "judge"
    assert [row[0] for row in heatmap.text] == [f"{0.5 + t / 100:.2f} ({10 + t})" for t in range(tasks)]
    assert heatmap.hovertemplate.startswith("%{customdata[3]} · %{customdata[2]}")  # judge, then task
    assert fig.layout.height >= 20 * tasks  # room for one row per task
