"""`metrics calibration --json` on the SummEval demo runs: one run by default, named; kappa interval by item
bootstrap; the experts' agreement (ordinal Krippendorff's alpha) as the human ceiling, with a plain reading."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

from judgebias_core.stats.agreement import cohens_kappa, krippendorff_alpha
from tests.app_helpers import open_page
from tests.test_metrics_agreement import run_cli

RUNS = ["demo-summeval-coherence-permutation", "demo-summeval-coherence-repeat"]


def _calibration(capsys: pytest.CaptureFixture[str], db: Path, *extra: str) -> dict:
    return run_cli(capsys, db, "metrics", "calibration", "--dataset", "summeval", "--judge", "simulated:demo-judge",
                   *extra)


def test_default_is_one_named_run_and_pooling_is_explicit(bundled_db_master: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    one = _calibration(capsys, bundled_db_master)
    assert one["pooled_runs"] == [RUNS[0]] and one["study"] == RUNS[0] and one["n"] == 400
    repeat = _calibration(capsys, bundled_db_master, "--study", RUNS[1])
    pooled = _calibration(capsys, bundled_db_master, "--all-runs")
    assert pooled["pooled_runs"] == RUNS and pooled["n"] == 800
    assert one["kappa"] != pytest.approx(repeat["kappa"], abs=0.01)  # the runs differ: pooling must be a choice


def test_kappa_interval_resamples_items(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    payload = _calibration(capsys, bundled_db_master)
    assert payload["kappa_interval"].startswith("item-bootstrap")
    with duckdb.connect(str(bundled_db_master), read_only=True) as con:
        rows = con.execute(
            "WITH l AS (SELECT item_id, rubric_id, floor(median(score) + 0.5)::INTEGER AS h FROM human_labels "
            "WHERE dataset_id = 'summeval' AND score IS NOT NULL GROUP BY ALL) SELECT j.item_id, l.h, j.score "
            "FROM judge_calls j JOIN l USING (item_id, rubric_id) WHERE j.dataset_id = 'summeval' AND j.study = ? "
            "AND j.parse_status = 'ok'", [RUNS[0]]).fetchall()
    items, human, judge = zip(*rows, strict=True)
    expected = cohens_kappa(list(human), [int(s) for s in judge], list(items))
    assert payload["kappa"] == pytest.approx(expected.estimate)
    assert payload["kappa_ci"] == pytest.approx([expected.low, expected.high])
    assert "independent" in payload["weighted_kappa_interval"] and "independent" in payload["correlation_p_values"]


def test_human_agreement_is_the_experts_ordinal_alpha(bundled_db_master: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    payload = _calibration(capsys, bundled_db_master)
    with duckdb.connect(str(bundled_db_master), read_only=True) as con:
        long = con.execute(
            "SELECT item_id, rater, score FROM human_labels WHERE dataset_id = 'summeval' AND (item_id, rubric_id) "
            "IN (SELECT (item_id, rubric_id) FROM judge_calls WHERE study = ?) AND score IS NOT NULL", [RUNS[0]]).df()
    wide = long.pivot(index="item_id", columns="rater", values="score").sort_index()
    expected = krippendorff_alpha(wide.to_numpy(dtype=np.float64), "ordinal", wide.index.tolist())
    humans = payload["human_agreement"]
    assert humans["items"] == 40 and humans["estimate"] == pytest.approx(expected.estimate)
    assert humans["low"] == pytest.approx(expected.low)
    judge = payload["judge_human_alpha"]
    overlap = judge["low"] <= humans["high"] and humans["low"] <= judge["high"]
    assert ("about as well as" in payload["human_agreement_reading"]) == overlap


def test_calibration_page_names_the_run_and_the_human_ceiling(app_env: Path) -> None:
    at = open_page("calibration.py")
    next(box for box in at.selectbox if box.label == "Dataset").set_value("summeval").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "Runs pooled:" in captions and "item-bootstrap" in captions
    assert any("Human ceiling: this judge agrees with the experts" in box.value for box in at.info)
