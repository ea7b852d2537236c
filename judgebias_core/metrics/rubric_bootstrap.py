"""Item bootstrap of correlations, counted over the distinct value rows of the items.

The items are drawn by the package's resampling engine (``stats.resampling``); each resample's draws are counted per
distinct row of values (an item's mean scores and label), which gives the same sums. Rubric scores take few distinct
values (means of 2k integer scores), so the correlations are computed on a few columns instead of n.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from judgebias_core.stats.resampling import count_blocks, grouped_resample_sums

Interval = tuple[float, float]
NAN_INTERVAL: Interval = (float("nan"), float("nan"))


def distinct_rows(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of the paired columns (P x m), how often each occurs (P) and each item's row (n)."""
    rows, row_of, counts = np.unique(np.column_stack(columns), axis=0, return_inverse=True, return_counts=True)
    return rows, counts, row_of.ravel()


def item_bootstrap_sums(columns: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Per resample of the items (drawn with replacement, as many as there are), the column sums (resamples x m):
    the resampling engine's draws counted per distinct row (identical items share one count)."""
    return grouped_resample_sums(columns, resamples, seed)


def _correlation(total: np.ndarray, sums: tuple[np.ndarray, ...]) -> np.ndarray:
    """Pearson r per resample from the weighted sums (x, y, xx, yy, xy); NaN where x or y has no spread."""
    sum_x, sum_y, sum_xx, sum_yy, sum_xy = sums
    var_x = sum_xx - sum_x**2 / total
    var_y = sum_yy - sum_y**2 / total
    covariance = sum_xy - sum_x * sum_y / total
    with np.errstate(invalid="ignore", divide="ignore"):
        r = covariance / np.sqrt(var_x * var_y)
    # A resample that drew one value only has zero spread up to rounding: treat a tiny relative spread as none.
    flat = (var_x <= 1e-9 * sum_xx) | (var_y <= 1e-9 * sum_yy)
    return np.where(flat, np.nan, np.clip(r, -1.0, 1.0))


def weighted_pearson(weights: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r per row of ``weights`` (counts over the distinct rows whose values are x and y); NaN when x or y
    is constant in a resample."""
    sums = (weights @ x, weights @ y, weights @ (x * x), weights @ (y * y), weights @ (x * y))
    return _correlation(weights.sum(axis=1), sums)


def _counts_by(weights: np.ndarray, group_of: np.ndarray, groups: int) -> np.ndarray:
    """Per resample, the summed weight of each group of columns (resamples x groups)."""
    one_hot = sparse.csr_matrix((np.ones(len(group_of)), (np.arange(len(group_of)), group_of)),
                                shape=(len(group_of), groups))
    return np.asarray((one_hot.T @ weights.T).T)


def _level_ranks(per_level: np.ndarray) -> np.ndarray:
    """Average rank of each value level given how many items hold each level (levels in increasing order)."""
    return np.cumsum(per_level, axis=1) - per_level + (per_level + 1) / 2


def weighted_spearman(weights: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman rho per row of ``weights``: the weighted Pearson of the average ranks, summed per value level.

    Every row with the same (x, y) levels holds the same ranks, so the sums need only the weight of each
    distinct (x level, y level) pair, far fewer than the distinct rows when other columns made them distinct.
    """
    x_levels, x_of = np.unique(x, return_inverse=True)
    y_levels, y_of = np.unique(y, return_inverse=True)
    pairs, pair_of = np.unique(x_of * len(y_levels) + y_of, return_inverse=True)
    pair_x, pair_y = pairs // len(y_levels), pairs % len(y_levels)
    per_pair = _counts_by(weights, pair_of.ravel(), len(pairs))
    per_x, per_y = _counts_by(per_pair, pair_x, len(x_levels)), _counts_by(per_pair, pair_y, len(y_levels))
    rank_x, rank_y = _level_ranks(per_x), _level_ranks(per_y)
    sums = ((per_x * rank_x).sum(axis=1), (per_y * rank_y).sum(axis=1), (per_x * rank_x**2).sum(axis=1),
            (per_y * rank_y**2).sum(axis=1), (per_pair * rank_x[:, pair_x] * rank_y[:, pair_y]).sum(axis=1))
    return _correlation(weights.sum(axis=1), sums)


def percentile_interval(values: np.ndarray, confidence: float) -> Interval:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return NAN_INTERVAL
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_correlations(scores: list[np.ndarray], labels: np.ndarray, resamples: int, seed: int,
                           confidence: float) -> list[tuple[Interval, Interval]]:
    """Pearson and Spearman intervals of each score column against the labels, resampling items jointly.

    With two score columns a third entry gives the interval of their difference (first minus second).
    """
    rows, _, row_of = distinct_rows(*scores, labels)
    label_values = rows[:, -1]
    pearson: list[list[np.ndarray]] = [[] for _ in scores]
    spearman: list[list[np.ndarray]] = [[] for _ in scores]
    for weights in count_blocks(len(row_of), resamples, seed, row_of, len(rows)):
        for column in range(len(scores)):
            values = rows[:, column]
            pearson[column].append(weighted_pearson(weights, values, label_values))
            spearman[column].append(weighted_spearman(weights, values, label_values))
    pearson_all = [np.concatenate(parts) for parts in pearson]
    spearman_all = [np.concatenate(parts) for parts in spearman]
    if len(scores) == 2:
        pearson_all.append(pearson_all[0] - pearson_all[1])
        spearman_all.append(spearman_all[0] - spearman_all[1])
    return [(percentile_interval(p, confidence), percentile_interval(s, confidence))
            for p, s in zip(pearson_all, spearman_all, strict=True)]
