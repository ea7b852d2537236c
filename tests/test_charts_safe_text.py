"""Names from data never reach a plotly figure as markup: labels, titles, legends and hover text are escaped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import pytest

from judgebias_core.analyses.other_biases import verbosity
from judgebias_core.analyses.pairwise import pairwise_metrics, unit_metrics
from judgebias_core.charts.calibration import confusion_heatmap, correlation_forest
from judgebias_core.charts.other_biases import longer_answer_chart
from judgebias_core.charts.pairwise import flip_rate_forest, judge_task_heatmap, quality_gap_scatter
from judgebias_core.charts.stepwise import _term_label
from judgebias_core.metrics.calibration import Correlation
from judgebias_core.metrics.pairwise import task_breakdown
from judgebias_core.store.schema import migrate
from tests.hostile_store import CANDIDATE, DATASET_ID, HOSTILE_STRINGS, JUDGE, TASK, build_hostile_store
from tests.store_helpers import read

BOLD = "<b>bold</b>"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif hasattr(value, "tolist"):
        yield from _strings(value.tolist())


def _assert_literal(fig: go.Figure, *names: str) -> None:
    """No raw hostile markup anywhere in the figure, and each name present in its escaped form."""
    strings = list(_strings(fig.to_plotly_json()))
    for hostile in (*HOSTILE_STRINGS, BOLD):
        assert not any(hostile in s for s in strings), hostile
    for name in names:
        escaped = name.replace("<", "&lt;").replace(">", "&gt;")
        assert any(escaped in s for s in strings), name


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("charts") / "hostile.duckdb"
    migrate(path)
    return build_hostile_store(path)


def test_pairwise_charts_escape_judge_candidate_and_task(hostile_db: Path) -> None:
    results = read(pairwise_metrics, hostile_db, DATASET_ID, None, "full", resamples=50)
    _assert_literal(flip_rate_forest(results), JUDGE)
    units = read(unit_metrics, hostile_db, DATASET_ID, "full")
    for metric in ("position_consistency", "preference_fairness"):
        _assert_literal(judge_task_heatmap(task_breakdown(units), metric), JUDGE, TASK)
        scatter = quality_gap_scatter(units, metric)
        _assert_literal(scatter, JUDGE, CANDIDATE, TASK)
        assert all(JUDGE not in trace.hovertemplate for trace in scatter.data)  # named via %{fullData.name}


def test_judge_and_calibration_charts_escape_names(hostile_db: Path) -> None:
    curve = longer_answer_chart(read(verbosity, hostile_db, DATASET_ID, ["full"], [JUDGE], bins=2).judges)
    _assert_literal(curve)
    assert all("%{fullData.name}" in trace.hovertemplate for trace in curve.data)
    _assert_literal(confusion_heatmap([CANDIDATE, BOLD, "tie"], [[1, 0, 0], [0, 1, 0], [0, 0, 1]], f"title {BOLD}",
                                      human_label=BOLD), CANDIDATE, BOLD)
    correlation = Correlation(statistic=0.5, ci_low=0.1, ci_high=0.8, p_value=0.01, n=20, method="Fisher z")
    _assert_literal(correlation_forest([(JUDGE, correlation)]), JUDGE)


def test_stepwise_terms_read_as_words_and_escape_names() -> None:
    assert _term_label("C(judge)[T.<b>bold</b>]") == "judge = &lt;b&gt;bold&lt;/b&gt;"
    assert _term_label("quality_gap") == "quality gap"
