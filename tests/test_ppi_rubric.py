"""Prediction-powered human mean score (rubric): a hand computation with several calls and raters per item, coverage
on a synthetic dataset with a known mean and on the SummEval demo runs, and `metrics ppi --json` on the demo."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import t as student_t

from judgebias_core.cli import main
from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.ppi import (
    DEFAULT_MIN_LABELS,
    FEW_LABELS,
    default_label_fraction,
    few_labels_caveat,
    labelled_sample,
    labels_worth_sentence,
    prediction_powered_mean_score,
)
from judgebias_core.stats.ppi import prediction_powered_mean
from judgebias_core.store.calibration_queries import rubric_trials_with_labels
from judgebias_core.store.handle import Store
from tests.test_metrics_agreement import run_cli

JUDGE = "simulated:demo-judge"
RUNS = ["demo-summeval-coherence-permutation", "demo-summeval-coherence-repeat"]


def _trials(judge_calls: dict[str, list[float | None]], raters: dict[str, list[float]]) -> pd.DataFrame:
    """Rows shaped like ``rubric_trials_with_labels``: one per call, the item's raters' mean and count beside it."""
    return pd.DataFrame([{"study": "s", "item_id": item, "rubric_id": "r", "repetition": k, "score": score,
                          "human_mean": float(np.mean(raters[item])), "raters": len(raters[item]),
                          "label_source": "human"}
                         for item, scores in judge_calls.items() for k, score in enumerate(scores)])


def test_items_are_the_units_and_the_estimate_equals_the_formula_by_hand() -> None:
    rng = np.random.default_rng(5)
    items = [f"i{k:02d}" for k in range(30)]
    calls: dict[str, list[float | None]] = {i: list(rng.integers(1, 6, size=int(rng.integers(1, 5))).astype(float))
                                            for i in items}
    calls[items[3]].append(None)  # an unparsed call: left out, counted
    raters = {i: list(rng.integers(1, 6, size=int(rng.integers(1, 4))).astype(float)) for i in items}
    result = prediction_powered_mean_score(_trials(calls, raters), "d", "j", None, "r", 0.4, 11, method="ppi")
    judge = np.array([np.mean([s for s in calls[i] if s is not None]) for i in items])
    human = np.array([np.mean(raters[i]) for i in items])
    labelled = labelled_sample(len(items), 0.4, 11)
    n, big_n = labelled.sum(), (~labelled).sum()
    rectifier = human[labelled] - judge[labelled]
    point = judge[~labelled].mean() + rectifier.mean()
    # Student t (n - 1 df); the rectifier's variance with two pseudo-values at its mean +- half the range of the
    # labels and the centred predictions (stats.ppi)
    scale = np.r_[human[labelled], np.r_[judge[labelled], judge[~labelled]] - judge.mean() + human[labelled].mean()]
    half_range = (scale.max() - scale.min()) / 2
    plus_two = np.r_[rectifier, rectifier.mean() - half_range, rectifier.mean() + half_range]
    half = student_t.ppf(0.975, n - 1) * np.sqrt(plus_two.var(ddof=1) / n + judge[~labelled].var(ddof=1) / big_n)
    e = result.estimate
    assert (e.ppi.estimate, e.ppi.low, e.ppi.high) == pytest.approx((point, point - half, point + half))
    assert e.human_only.estimate == pytest.approx(human[labelled].mean()) and e.human_only.n == n == result.labelled
    assert e.judge_only.estimate == pytest.approx(judge.mean()) and e.judge_only.n == len(items) == result.items
    assert result.all_labels_human_mean == pytest.approx(human.mean())
    assert result.calls == sum(len(v) for v in calls.values()) - 1 and result.unparsed_calls == 1
    assert (result.raters_min, result.raters_max) == (min(map(len, raters.values())), max(map(len, raters.values())))
    # PPI++: lambda = cov(Y, f) / ((1 + n/N) var f), clipped to [0, 1], cross-fitted: each labelled item's lambda
    # from the other folds (item k of the labelled sample in fold k mod 5)
    tuned = prediction_powered_mean_score(_trials(calls, raters), "d", "j", None, "r", 0.4, 11).estimate
    y_l, f_l = human[labelled], judge[labelled]
    fold = np.arange(n) % 5
    lam = np.empty(n)
    for k in range(5):
        train = fold != k
        lam[~train] = np.clip(np.cov(y_l[train], f_l[train])[0, 1] / ((1 + n / big_n) * judge.var(ddof=1)), 0, 1)
    assert tuned.tuning == pytest.approx(lam.mean())
    assert tuned.ppi.estimate == pytest.approx((y_l - lam * f_l).mean() + lam.mean() * judge[~labelled].mean())


def _synthetic(rng: np.random.Generator, items: int, calls: int = 4) -> tuple[pd.DataFrame, float]:
    """Items of true quality q ~ N(3, 0.8); three raters score q + N(0, 0.5); the judge is lenient by +0.4 and
    scores ``calls`` calls of 0.6 q + 1.6 + N(0, 0.6) each, rounded to the 1-5 scale. The known human mean is 3."""
    quality = rng.normal(3, 0.8, items)
    human = (quality[:, None] + rng.normal(0, 0.5, (items, 3))).mean(axis=1)
    scores = np.clip(np.round(0.6 * quality[:, None] + 1.6 + rng.normal(0, 0.6, (items, calls))), 1, 5)
    item_ids = np.repeat([f"i{k:04d}" for k in range(items)], calls)
    return pd.DataFrame({"study": "s", "item_id": item_ids, "rubric_id": "r", "score": scores.ravel(),
                         "human_mean": np.repeat(human, calls), "raters": 3, "label_source": "human"}), 3.0


@pytest.mark.parametrize("method", ["ppi", "ppi++"])
def test_synthetic_interval_covers_the_known_human_mean(method: str) -> None:
    rng = np.random.default_rng(2023)
    covered, narrower = 0, 0
    for seed in range(100):
        trials, truth = _synthetic(rng, 600)
        e = prediction_powered_mean_score(trials, "d", "j", None, "r", 0.1, seed, method=method).estimate  # type: ignore[arg-type]
        covered += e.ppi.low <= truth <= e.ppi.high
        narrower += e.ppi.high - e.ppi.low < e.human_only.high - e.human_only.low
        assert not e.judge_only.low <= truth <= e.judge_only.high  # the lenient judge alone misses the truth
    assert covered >= 93, covered
    assert narrower >= 90, narrower  # the judge (r about 0.8 with people) is worth something


@settings(max_examples=25, deadline=None)
@given(shift=st.floats(-2, 2), seed=st.integers(0, 10_000), method=st.sampled_from(["ppi", "ppi++"]))
def test_a_constant_judge_bias_moves_nothing(shift: float, seed: int, method: str) -> None:
    """The rectifier absorbs a judge lenient or harsh by a constant: the estimate and interval stay put."""
    trials, _ = _synthetic(np.random.default_rng(seed), 60, calls=2)
    base = prediction_powered_mean_score(trials, "d", "j", None, "r", 0.3, seed, method=method).estimate  # type: ignore[arg-type]
    moved = prediction_powered_mean_score(trials.assign(score=trials["score"] + shift), "d", "j", None, "r", 0.3,
                                          seed, method=method).estimate  # type: ignore[arg-type]
    assert (moved.ppi.estimate, moved.ppi.low, moved.ppi.high) == pytest.approx(
        (base.ppi.estimate, base.ppi.low, base.ppi.high))
    assert moved.judge_only.estimate == pytest.approx(base.judge_only.estimate + shift)


@pytest.fixture(scope="module")
def demo_trials(bundled_db_master: Path) -> pd.DataFrame:
    with Store(bundled_db_master).reader() as reader:
        return rubric_trials_with_labels(reader, "summeval", JUDGE)


def test_demo_interval_covers_the_all_labels_human_mean(demo_trials: pd.DataFrame) -> None:
    results = [prediction_powered_mean_score(demo_trials, "summeval", JUDGE, None, "summeval-coherence", 0.25, seed)
               for seed in range(100)]
    assert {r.items for r in results} == {40} and {r.labelled for r in results} == {10}
    assert {r.calls for r in results} == {800} and {(r.raters_min, r.raters_max) for r in results} == {(3, 3)}
    target = results[0].all_labels_human_mean
    covered = sum(r.estimate.ppi.low <= target <= r.estimate.ppi.high for r in results)
    assert covered >= 93, covered
    assert all(r.caveat is not None and "below 30" in r.caveat for r in results)  # 10 labels: cautioned (issue 23)


def test_fewer_than_30_labels_carry_a_caveat(demo_trials: pd.DataFrame) -> None:
    few = prediction_powered_mean_score(demo_trials, "summeval", JUDGE, None, "summeval-coherence", 0.1, 0)
    assert few.labelled == 4 and few.caveat is not None and f"below {FEW_LABELS}" in few.caveat
    default = prediction_powered_mean_score(demo_trials, "summeval", JUDGE, None, "summeval-coherence", None, 0)
    assert default.label_fraction == default_label_fraction(40) == 0.25 and default.labelled == DEFAULT_MIN_LABELS
    assert FEW_LABELS == 30 and default.caveat is not None and "only 10 labelled items" in default.caveat
    assert few_labels_caveat(29) is not None and few_labels_caveat(30) is None
    assert default_label_fraction(1392) == 0.1 and default_label_fraction(5) == 0.5
    with pytest.raises(InvalidArgument, match="at least two labelled"):
        prediction_powered_mean_score(demo_trials, "summeval", JUDGE, None, "summeval-coherence", 0.01, 0)


def test_worth_sentence_reads_the_widths() -> None:
    rng = np.random.default_rng(0)
    y = rng.normal(3, 1, 100)
    good = prediction_powered_mean(y, y + rng.normal(0, 0.1, 100), rng.normal(3, 1, 900))
    ratio = (good.ppi.high - good.ppi.low) / (good.human_only.high - good.human_only.low)
    sentence = labels_worth_sentence(good)
    assert f"{ratio:.0%} as wide" in sentence and f"about {100 / ratio**2 - 100:,.0f} extra labels" in sentence
    useless = prediction_powered_mean(y, -y, rng.normal(3, 1, 900))
    assert useless.tuning == 0 and "add nothing" in labels_worth_sentence(useless)
    flat = prediction_powered_mean(np.ones(5), np.ones(5), np.ones(20))
    assert labels_worth_sentence(flat).startswith("No reading")


def test_ppi_cli_on_a_rubric_run_equals_a_direct_computation(bundled_db_master: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    payload = run_cli(capsys, bundled_db_master, "metrics", "ppi", "--dataset", "summeval", "--judge", JUDGE,
                      "--study", RUNS[0], "--label-fraction", "0.5", "--seed", "3")
    with duckdb.connect(str(bundled_db_master), read_only=True) as con:
        raw = con.execute(
            "WITH h AS (SELECT item_id, rubric_id, avg(score) AS human FROM human_labels WHERE dataset_id = "
            "'summeval' AND score IS NOT NULL GROUP BY ALL) SELECT j.item_id, avg(j.score) AS judge, "
            "any_value(h.human) AS human FROM judge_calls j JOIN h USING (item_id, rubric_id) WHERE j.study = ? "
            "AND j.parse_status = 'ok' GROUP BY j.item_id ORDER BY j.item_id", [RUNS[0]]).df()
    labelled = labelled_sample(len(raw), 0.5, 3)
    human, judge = raw["human"].to_numpy(), raw["judge"].to_numpy()
    expected = prediction_powered_mean(human[labelled], judge[labelled], judge[~labelled])
    assert payload["kind"] == "rubric mean score" and payload["runs"] == [RUNS[0]]
    assert payload["items"] == len(raw) == 40 and payload["labelled"] == 20 and payload["calls"] == 400
    estimate = payload["estimate"]
    for name in ("ppi", "human_only", "judge_only"):
        for bound in ("estimate", "low", "high"):
            assert estimate[name][bound] == pytest.approx(getattr(getattr(expected, name), bound))
    assert estimate["interval"].startswith("Student t interval (labelled items - 1 degrees of freedom)")
    assert payload["all_labels_human_mean"] == pytest.approx(human.mean())
    pooled = run_cli(capsys, bundled_db_master, "metrics", "ppi", "--dataset", "summeval", "--judge", JUDGE)
    assert pooled["runs"] == RUNS and pooled["calls"] == 800 and pooled["label_fraction"] == 0.25


def test_labels_as_stored_use_the_items_that_have_a_human_score(bundled_db: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    with duckdb.connect(str(bundled_db)) as con:
        items = [r[0] for r in con.execute("SELECT DISTINCT item_id FROM judge_calls WHERE study = ? ORDER BY 1",
                                           [RUNS[0]]).fetchall()]
        con.execute("DELETE FROM human_labels WHERE dataset_id = 'summeval' AND item_id IN (SELECT unnest(?))",
                    [items[:25]])
        human = con.execute("SELECT item_id, avg(score) FROM human_labels WHERE dataset_id = 'summeval' AND "
                            "rubric_id = 'summeval-coherence' AND item_id IN (SELECT unnest(?)) GROUP BY 1 "
                            "ORDER BY 1", [items]).df().set_index("item_id").iloc[:, 0]
        judge = con.execute("SELECT item_id, avg(score) FROM judge_calls WHERE study = ? AND parse_status = 'ok' "
                            "GROUP BY 1 ORDER BY 1", [RUNS[0]]).df().set_index("item_id").iloc[:, 0]
    payload = run_cli(capsys, bundled_db, "metrics", "ppi", "--dataset", "summeval", "--judge", JUDGE, "--study",
                      RUNS[0], "--labels", "stored")
    labelled = judge.index.isin(human.index)
    expected = prediction_powered_mean(human.reindex(judge.index)[labelled].to_numpy(), judge[labelled].to_numpy(),
                                       judge[~labelled].to_numpy())
    assert (payload["labels"], payload["labelled"], payload["items"]) == ("stored", 15, 40)
    assert payload["seed"] is None and payload["all_labels_human_mean"] is None
    assert payload["label_fraction"] == pytest.approx(15 / 40) and payload["sampling"].startswith("the items with")
    for name in ("ppi", "human_only", "judge_only"):
        for bound in ("estimate", "low", "high"):
            assert payload["estimate"][name][bound] == pytest.approx(getattr(getattr(expected, name), bound))


def test_labels_as_stored_need_unlabelled_items(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(bundled_db_master), "metrics", "ppi", "--dataset", "summeval", "--judge", JUDGE,
                 "--labels", "stored"]) != 0
    assert "40 of the 40 items" in capsys.readouterr().err
