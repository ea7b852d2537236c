"""Prediction-powered inference for a mean (a human win rate or mean score) from judge verdicts on many items and
human labels on a few.

PPI: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023, "Prediction-powered inference", Science 382:669-674,
the mean-estimation case: theta = mean(f over unlabelled) + mean(Y - f over labelled) (the "rectifier"), with the
CLT interval theta +- z sqrt(var(f_unlabelled)/N + var(Y - f)/n). PPI++: Angelopoulos, Duchi & Zrnic 2023,
"PPI++: Efficient Prediction-Powered Inference", arXiv 2311.01453, eq. for the mean: theta_lambda = mean(Y) +
lambda (mean f_unlabelled - mean f_labelled) with the power-tuned lambda = cov(Y, f) / ((1 + n/N) var(f)), clipped
to [0, 1] so it never does worse than the human-only estimate in the limit. The labelled and unlabelled sets are
disjoint; labelled items must be a uniform random sample of all items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.stats import norm

from judgebias_core.stats.clustered import CONFIDENCE

PPIMethod = Literal["ppi", "ppi++"]


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its CLT interval; ``label`` says what it estimates."""

    estimate: float
    low: float
    high: float
    n: int
    method: str
    label: str


@dataclass(frozen=True)
class PredictionPoweredEstimate:
    """The prediction-powered estimate of the human mean next to the human-only and judge-only figures.

    ``tuning`` is the PPI++ lambda (1 for plain PPI). ``judge_only`` is the judge's own mean over every item: it
    estimates what the judge says, not what humans say, and carries no valid interval for the human mean.
    """

    ppi: MeanInterval
    human_only: MeanInterval
    judge_only: MeanInterval
    tuning: float
    labelled: int
    unlabelled: int
    confidence: float
    interval: str = ("normal (CLT) interval over independent units (items), the rectifier's variance over the "
                     "labelled items plus the judge's over the unlabelled ones")


def _clt(values_mean: float, variance: float, n: int, confidence: float, method: str, label: str) -> MeanInterval:
    half = float(norm.ppf(0.5 + confidence / 2)) * float(np.sqrt(variance))
    return MeanInterval(values_mean, values_mean - half, values_mean + half, n, method, label)


def prediction_powered_mean(human_labelled: np.ndarray, judge_labelled: np.ndarray, judge_unlabelled: np.ndarray,
                            method: PPIMethod = "ppi++", confidence: float = CONFIDENCE) -> PredictionPoweredEstimate:
    """PPI (or power-tuned PPI++) estimate of the human mean from n labelled and N unlabelled judge predictions.

    ``human_labelled[i]`` and ``judge_labelled[i]`` are the human label and the judge's prediction of item i of
    the labelled sample (for a win rate: 1, 1/2 for a tie, 0); ``judge_unlabelled`` the predictions on the others.
    """
    y = np.asarray(human_labelled, dtype=np.float64)
    f_labelled = np.asarray(judge_labelled, dtype=np.float64)
    f_unlabelled = np.asarray(judge_unlabelled, dtype=np.float64)
    n, big_n = len(y), len(f_unlabelled)
    if n < 2 or big_n < 2 or len(f_labelled) != n:
        raise ValueError("need at least two labelled items (with a prediction each) and two unlabelled ones")
    variance_f = float(np.var(np.concatenate([f_labelled, f_unlabelled]), ddof=1))
    tuning = 1.0
    if method == "ppi++":
        covariance = float(np.cov(y, f_labelled, ddof=1)[0, 1])
        tuning = float(np.clip(covariance / ((1 + n / big_n) * variance_f), 0, 1)) if variance_f > 0 else 0.0
    estimate = float(y.mean() + tuning * (f_unlabelled.mean() - f_labelled.mean()))
    variance = float(np.var(y - tuning * f_labelled, ddof=1)) / n + tuning**2 * float(np.var(f_unlabelled, ddof=1)) / big_n
    ppi = _clt(estimate, variance, n + big_n, confidence, method,
               "prediction-powered estimate of the human mean (judge predictions rectified by the human labels)")
    human = _clt(float(y.mean()), float(np.var(y, ddof=1)) / n, n, confidence, "human-only",
                 "human labels only")
    judge_all = np.concatenate([f_labelled, f_unlabelled])
    judge = _clt(float(judge_all.mean()), float(np.var(judge_all, ddof=1)) / len(judge_all), len(judge_all),
                 confidence, "judge-only", "the judge's own mean: not an estimate of the human mean")
    return PredictionPoweredEstimate(ppi, human, judge, tuning, n, big_n, confidence)
