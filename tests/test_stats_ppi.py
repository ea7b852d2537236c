"""Prediction-powered inference: hand formulas, and coverage on the bundled Auto-J pairs (human labels on every pair)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student_t

from judgebias_core.stats.ppi import prediction_powered_mean

AUTOJ = Path(__file__).resolve().parents[1] / "data" / "autoj-pairwise"
_HUMAN = {"response_1": 1.0, "response_2": 0.0, "tie": 0.5}


def autoj_labels() -> tuple[np.ndarray, np.ndarray]:
    """Per pair: the human win value of response_1 and the judge's, averaged over both orders (tie = 1/2)."""
    pairs = pd.read_json(AUTOJ / "pairs.jsonl.gz", lines=True)
    verdicts = pd.read_json(AUTOJ / "autoj_verdicts.jsonl.gz", lines=True)
    winner = np.where(verdicts["verdict"] == "first", verdicts["first"],
                      np.where(verdicts["verdict"] == "second", verdicts["second"], "tie"))
    verdicts = verdicts.assign(value=pd.Series(winner).map(_HUMAN).to_numpy())
    judge = verdicts.groupby("pair_id")["value"].mean()
    human = pairs.set_index("pair_id")["human_label"].map(_HUMAN)
    return human.to_numpy(), judge.reindex(human.index).to_numpy()


def test_plain_ppi_by_hand() -> None:
    y, f = np.array([1.0, 0.0, 1.0, 0.5]), np.array([1.0, 0.5, 0.5, 0.5])
    f_unlabelled = np.array([1.0, 0.0, 0.5, 0.5, 1.0, 1.0])
    result = prediction_powered_mean(y, f, f_unlabelled, method="ppi")
    rectifier = (y - f).mean()
    assert result.tuning == 1 and result.ppi.estimate == pytest.approx(f_unlabelled.mean() + rectifier)
    # Student t with n - 1 = 3 df; the rectifier's variance with two pseudo-values at its mean +- half the range
    # of the labels and the centred predictions, so a rectifier without spread cannot collapse the interval
    rectified = y - f
    judge = np.r_[f, f_unlabelled]
    scale = np.r_[y, judge - judge.mean() + y.mean()]
    half_range = (scale.max() - scale.min()) / 2
    plus_two = np.r_[rectified, rectified.mean() - half_range, rectified.mean() + half_range]
    half = student_t.ppf(0.975, 3) * np.sqrt(np.var(plus_two, ddof=1) / 4 + np.var(f_unlabelled, ddof=1) / 6)
    assert (result.ppi.low, result.ppi.high) == pytest.approx((result.ppi.estimate - half, result.ppi.estimate + half))
    assert result.human_only.estimate == pytest.approx(y.mean())
    assert result.judge_only.estimate == pytest.approx(np.r_[f, f_unlabelled].mean())


def test_useless_predictions_tune_to_the_human_only_estimate() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200).astype(float)
    f_labelled = 1 - y  # anti-correlated: lambda is clipped to 0
    result = prediction_powered_mean(y, f_labelled, rng.integers(0, 2, 2000).astype(float))
    assert result.tuning == 0 and result.ppi.estimate == pytest.approx(result.human_only.estimate)


def test_too_few_labels_are_an_error() -> None:
    with pytest.raises(ValueError):
        prediction_powered_mean(np.array([1.0]), np.array([1.0]), np.array([0.0, 1.0]))


@pytest.mark.parametrize("method", ["ppi", "ppi++"])
def test_autoj_interval_covers_the_all_labels_human_win_rate(method: str) -> None:
    human, judge = autoj_labels()
    assert len(human) == 1392 and not np.isnan(judge).any()
    target = human.mean()
    rng = np.random.default_rng(2023)
    covered, ppi_widths, human_widths = 0, [], []
    for _ in range(100):
        labelled = np.zeros(len(human), dtype=bool)
        labelled[rng.choice(len(human), size=len(human) // 10, replace=False)] = True
        result = prediction_powered_mean(human[labelled], judge[labelled], judge[~labelled], method=method)  # type: ignore[arg-type]
        covered += result.ppi.low <= target <= result.ppi.high
        ppi_widths.append(result.ppi.high - result.ppi.low)
        human_widths.append(result.human_only.high - result.human_only.low)
    assert covered >= 93, covered
    if method == "ppi++":  # power tuning never loses to the human-only interval (plain PPI does here, r = 0.58)
        assert np.mean(ppi_widths) < np.mean(human_widths)
