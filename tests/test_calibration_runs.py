"""`metrics calibration --json` on the SummEval demo runs: one run by default, named; kappa interval by item
bootstrap; the experts' agreement (ordinal Krippendorff's alpha) as the human ceiling, with a plain reading."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from judgebias_core.stats.agreement import cohens_kappa, krippendorff_alpha, mean_pairwise_kappa
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
    weighted = cohens_kappa(list(human), [int(s) for s in judge], list(items), weights="quadratic",
                            categories=payload["levels"])
    assert payload["weighted_kappa"] == pytest.approx(weighted.estimate)
    assert payload["weighted_kappa_ci"] == pytest.approx([weighted.low, weighted.high])
    assert payload["weighted_kappa_interval"].startswith("item-bootstrap")
    # per-call correlations: item-bootstrap intervals, no p-value; one value per item keeps its p-value
    for name in ("pearson", "spearman", "kendall"):
        assert payload[f"{name}_interval"].startswith("item-bootstrap") and payload[f"{name}_p"] is None
        assert payload[f"{name}_ci_low"] <= payload[name] <= payload[f"{name}_ci_high"]
    assert payload["item_pearson_p"] is not None


def test_weighted_kappa_equals_statsmodels_and_the_interval_is_wider_than_iid() -> None:
    from statsmodels.stats.inter_rater import cohens_kappa as statsmodels_kappa

    rng = np.random.default_rng(4)
    human = np.repeat(rng.integers(1, 6, 30), 10)  # ten calls share each item's label
    judge = np.clip(human + rng.integers(-1, 2, 300), 1, 5)
    items = [str(i // 10) for i in range(300)]
    table = np.zeros((5, 5))
    np.add.at(table, (human - 1, judge - 1), 1)
    clustered = cohens_kappa(human.tolist(), judge.tolist(), items, weights="quadratic", categories=[1, 2, 3, 4, 5])
    iid = statsmodels_kappa(table, wt="quadratic")
    assert clustered.estimate == pytest.approx(iid.kappa)
    assert clustered.high - clustered.low > iid.kappa_upp - iid.kappa_low


def test_mean_pairwise_kappa_is_the_mean_of_the_pairs() -> None:
    rng = np.random.default_rng(6)
    truth = rng.integers(1, 6, 60)
    raters = {f"r{k}": np.clip(truth + rng.integers(-1, 2, 60), 1, 5) for k in range(3)}
    wide = pd.DataFrame(raters, index=pd.Index([str(i // 2) for i in range(60)], name="item_id"))
    mean = mean_pairwise_kappa(wide, [1, 2, 3, 4, 5])
    pairs = [("r0", "r1"), ("r0", "r2"), ("r1", "r2")]
    assert mean.estimate == pytest.approx(np.mean([cohens_kappa(wide[a], wide[b]).estimate for a, b in pairs]))
    assert mean.low < mean.estimate < mean.high and mean.items == 30
    against = mean_pairwise_kappa(wide, [1, 2, 3, 4, 5], against="r0")
    assert against.estimate == pytest.approx(np.mean([cohens_kappa(wide["r0"], wide[b]).estimate
                                                      for b in ("r1", "r2")]))


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
    # the same ceiling in kappa, like with like: the judge against each expert, the experts against each other
    humans_kappa, judge_kappa = payload["human_pairwise_kappa"], payload["judge_rater_kappa"]
    assert humans_kappa["items"] == 40 and judge_kappa["units"] == 400
    assert humans_kappa["method"] == "item-bootstrap" and not humans_kappa["degenerate"]
    overlap = judge_kappa["low"] <= humans_kappa["high"] and humans_kappa["low"] <= judge_kappa["high"]
    assert ("about as well as" in payload["human_pairwise_kappa_reading"]) == overlap


def test_calibration_page_names_the_run_and_the_human_ceiling(app_env: Path) -> None:
    at = open_page("calibration.py")
    next(box for box in at.selectbox if box.label == "Dataset").set_value("summeval").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "Runs pooled:" in captions and "item-bootstrap" in captions
    # The demo judge is simulated: the sentence comparing it with the experts says so itself.
    assert sum("Human ceiling: simulated:demo-judge (a simulated judge, not a model) agrees with the experts"
               in box.value.replace("\\", "") for box in at.info) == 2
    ceiling = next(d.value for d in at.dataframe if "humans among themselves" in d.value.columns)
    assert len(ceiling) == 2 and "n/a" not in set(ceiling["humans among themselves"])


def test_calibration_page_pools_runs_only_when_asked(app_env: Path) -> None:
    at = open_page("calibration.py")
    next(box for box in at.selectbox if box.label == "Dataset").set_value("summeval").run()
    assert "Runs pooled: demo\\-summeval\\-coherence\\-permutation (one run" in " ".join(c.value for c in at.caption)
    next(box for box in at.checkbox if box.label.startswith("Pool all 2 runs")).check().run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "(every run of the judge)" in captions and "coherence\\-repeat" in captions
    assert _metrics_of(at)["Judge calls (n)"] == "800"


def _metrics_of(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_calibration_page_shows_the_prediction_powered_win_rate(app_env: Path) -> None:
    at = open_page("calibration.py")
    next(box for box in at.selectbox if box.label == "Dataset").set_value("autoj").run()
    assert not at.exception
    assert any("people's win rate from a few labels" in h.value for h in at.subheader)
    table = next(d.value for d in at.dataframe if "what it is" in d.value.columns)
    assert table["estimate"].tolist() == ["prediction-powered", "human labels only", "judge only"]
    assert table["items (n)"].tolist()[:2] == [1392, 139]
    assert any("item-bootstrap" in c.value for c in at.caption)  # the kappa interval names its method


def test_report_reads_the_human_ceiling_in_both_coefficients(bundled_db_master: Path) -> None:
    from judgebias_core.analyses.calibration import calibration
    from judgebias_core.analyses.calibration_view import human_ceiling_sentences
    from judgebias_core.metrics.calibration import RubricCalibration
    from tests.store_helpers import read

    result = read(calibration, bundled_db_master, "summeval", "simulated:demo-judge")
    assert isinstance(result, RubricCalibration)
    alpha, kappa = human_ceiling_sentences(result)
    assert alpha.startswith("Human ceiling: This judge agrees with the experts") and "ordinal alpha" in alpha
    assert "mean pairwise Cohen's kappa" in kappa and "judge vs each rater" in kappa
    from judgebias_core.wording.verdict import calibration_verdict

    verdict = calibration_verdict(result, "simulated:demo-judge (a simulated judge)", simulated=True)
    lines = {line.heading: line.text for line in verdict.lines}
    named = human_ceiling_sentences(result, "simulated:demo-judge (a simulated judge)")[1]
    assert lines["Against the experts"] == named.removeprefix("Human ceiling: ").split(" (judge vs")[0] + "."
    assert lines["Against the experts"].startswith("simulated:demo-judge (a simulated judge) agrees with the experts")
    assert lines["How sure we are"].startswith("Fairly sure: the score lies between")
    rules = {line.heading: line.rule for line in verdict.lines}
    assert rules["How sure we are"].startswith("95% item-bootstrap interval")
    assert "judge vs each rater" in rules["Against the experts"]
    assert lines["What to do"].startswith("This simulated judge is not a substitute for people's labels")
