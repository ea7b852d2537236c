"""Judge scores against human (or reference-judge) scores: Pearson, Spearman, item-bootstrap intervals."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from judgebias_core.metrics.rubric import CONFIDENCE
from judgebias_core.metrics.rubric_bootstrap import NAN_INTERVAL, Interval, bootstrap_correlations
from judgebias_core.stats.estimate import small_sample_warning
from judgebias_core.stats.settings import RESAMPLES, SEED

BOOTSTRAP_RESAMPLES = RESAMPLES  # kept names: the defaults live in stats.settings
BOOTSTRAP_SEED = SEED


@dataclass(frozen=True)
class CorrelationEstimate:
    """Pearson and Spearman over n items, each with a bootstrap interval that resamples items."""

    pearson: float
    spearman: float
    pearson_ci: Interval
    spearman_ci: Interval
    n: int
    warning: str | None = None  # fewer than 30 items (stats.estimate.small_sample_warning)


@dataclass(frozen=True)
class HumanCorrelation:
    """Permutation vs Repeat against the labels; ``difference`` is permutation minus repeat on shared items."""

    label_source: str
    permutation: CorrelationEstimate
    repeat: CorrelationEstimate | None
    difference: CorrelationEstimate | None
    resamples: int
    seed: int
    confidence: float = CONFIDENCE


def row_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of x with the same row of y; NaN where either row is constant."""
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    denominator = np.sqrt((xc * xc).sum(axis=-1) * (yc * yc).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=-1) / denominator
    # A constant row gives 0/0; rounding can give a tiny denominator instead, so test the spread explicitly.
    flat = (np.ptp(x, axis=-1) == 0) | (np.ptp(y, axis=-1) == 0)
    return np.where(flat, np.nan, np.clip(r, -1.0, 1.0))


def row_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman rho per row: Pearson of the average ranks."""
    return row_pearson(rankdata(x, axis=-1), rankdata(y, axis=-1))


def _no_estimate(n: int) -> CorrelationEstimate:
    return CorrelationEstimate(float("nan"), float("nan"), NAN_INTERVAL, NAN_INTERVAL, n, small_sample_warning(n))


def correlation_estimate(scores: np.ndarray, labels: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                         seed: int = BOOTSTRAP_SEED) -> CorrelationEstimate:
    """Pearson and Spearman of paired item values with percentile bootstrap intervals over items."""
    n = len(scores)
    if n < 3:
        return _no_estimate(n)
    [(pearson_ci, spearman_ci)] = bootstrap_correlations([scores], labels, resamples, seed, CONFIDENCE)
    return CorrelationEstimate(
        pearson=float(row_pearson(scores, labels)), spearman=float(row_spearman(scores, labels)),
        pearson_ci=pearson_ci, spearman_ci=spearman_ci, n=n, warning=small_sample_warning(n),
    )


def correlation_difference(first: np.ndarray, second: np.ndarray, labels: np.ndarray,
                           resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> CorrelationEstimate:
    """r(first, labels) - r(second, labels) on the same items, resampling items jointly for the interval."""
    n = len(labels)
    if n < 3:
        return _no_estimate(n)
    pearson_ci, spearman_ci = bootstrap_correlations([first, second], labels, resamples, seed, CONFIDENCE)[2]
    return CorrelationEstimate(
        pearson=float(row_pearson(first, labels) - row_pearson(second, labels)),
        spearman=float(row_spearman(first, labels) - row_spearman(second, labels)),
        pearson_ci=pearson_ci, spearman_ci=spearman_ci, n=n, warning=small_sample_warning(n),
    )


def human_correlation(permutation_means: pd.Series, repeat_means: pd.Series | None, labels: pd.Series,
                      label_source: str, resamples: int = BOOTSTRAP_RESAMPLES,
                      seed: int = BOOTSTRAP_SEED) -> HumanCorrelation:
    """Per-item mean scores of each run against the per-item label (mean of raters), indexed by item_id."""
    perm = pd.concat([permutation_means.rename("score"), labels.rename("label")], axis=1, join="inner").dropna()
    if repeat_means is None:
        permutation = correlation_estimate(perm["score"].to_numpy(float), perm["label"].to_numpy(float), resamples,
                                           seed)
        return HumanCorrelation(label_source, permutation, None, None, resamples, seed)
    rep = pd.concat([repeat_means.rename("score"), labels.rename("label")], axis=1, join="inner").dropna()
    both = pd.concat([permutation_means.rename("perm"), repeat_means.rename("rep"), labels.rename("label")],
                     axis=1, join="inner").dropna()
    # Three independent seeded bootstraps: numpy's draws and products release the GIL, so they overlap on
    # threads with results identical to running them one after another. The difference, the largest, goes first.
    with ThreadPoolExecutor(max_workers=2) as pool:
        difference_job = pool.submit(correlation_difference, both["perm"].to_numpy(float),
                                     both["rep"].to_numpy(float), both["label"].to_numpy(float), resamples, seed)
        permutation_job = pool.submit(correlation_estimate, perm["score"].to_numpy(float),
                                      perm["label"].to_numpy(float), resamples, seed)
        repeat_job = pool.submit(correlation_estimate, rep["score"].to_numpy(float), rep["label"].to_numpy(float),
                                 resamples, seed)
        permutation, repeat, difference = permutation_job.result(), repeat_job.result(), difference_job.result()
    return HumanCorrelation(label_source, permutation, repeat, difference, resamples, seed)


def ordering_correlations(item_scores: pd.DataFrame, labels: pd.Series) -> pd.DataFrame:
    """Per ordering (a column of item x ordering scores): Pearson, Spearman and n against the labels.

    Rank 1 = highest Pearson; equal values share the better rank; an ordering without a correlation has no rank.
    """
    aligned = labels.reindex(item_scores.index).to_numpy(float)
    rows = []
    for key in item_scores.columns:  # one pass per ordering (at most k! columns), vectorised over items
        scores = item_scores[key].to_numpy(float)
        paired = np.isfinite(scores) & np.isfinite(aligned)
        x, y = scores[paired], aligned[paired]
        enough = int(paired.sum()) >= 3
        rows.append({
            "ordering_key": key, "n": int(paired.sum()),
            "pearson": float(row_pearson(x, y)) if enough else float("nan"),
            "spearman": float(row_spearman(x, y)) if enough else float("nan"),
        })
    frame = pd.DataFrame(rows, columns=["ordering_key", "n", "pearson", "spearman"])
    frame["rank"] = frame["pearson"].rank(method="min", ascending=False).astype("Int64")
    return frame
