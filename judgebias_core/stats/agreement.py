"""Chance-corrected agreement: Cohen's kappa for two raters, Krippendorff's alpha for any number of raters with
missing values, both with item-clustered bootstrap intervals; the effective number of independent judges.

- Cohen's kappa: Cohen 1960, "A coefficient of agreement for nominal scales", Educ. Psychol. Meas. 20:37-46,
  kappa = (p_o - p_e) / (1 - p_e) from the raters' contingency table (equal to statsmodels ``cohens_kappa``).
- Krippendorff's alpha: Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability" (Annenberg School for
  Communication, repository.upenn.edu/asc_papers/43): the coincidence matrix o_ck = sum over units u with m_u >= 2
  pairable values of n_uc (n_uk - [c = k]) / (m_u - 1), marginals n_c, n = sum n_c, and
  alpha = 1 - (n - 1) sum o_ck delta2_ck / sum n_c n_k delta2_ck with the nominal, ordinal, interval or ratio
  difference delta2 given there.
- Intervals: whole items resampled (all units, e.g. pairs or calls, of an item together); both statistics are
  functions of per-item additive tables, so each resample sums those tables.
- Effective number of judges: n_eff = k^2 / sum_ij R_ij = k / (1 + (k - 1) mean off-diagonal r), the number of
  independent judges whose average has the same error variance as the average of these k (equal error variances;
  Kish 1965, "Survey Sampling", sec. 8.2, the design effect of k correlated measurements). k independent judges give
  k, perfectly correlated ones 1; it is clipped to [1, k] (negative error correlation would claim more than k).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from judgebias_core.stats.estimate import small_sample_warning
from judgebias_core.stats.resampling import item_resample_sums
from judgebias_core.stats.settings import CONFIDENCE, MIN_BOOTSTRAP_ITEMS, RESAMPLES, SEED

Level = Literal["nominal", "ordinal", "interval", "ratio"]
KappaWeights = Literal["quadratic"] | None


@dataclass(frozen=True)
class AgreementEstimate:
    """An agreement coefficient with its item-bootstrap interval.

    ``method`` is ``item-bootstrap``, or ``item-bootstrap-few-items`` below 20 items (percentile intervals
    under-cover there: read them as rough). ``degenerate`` when the coefficient is undefined (e.g. every value the
    same, so no disagreement is expected by chance) or no interval can be drawn.
    """

    estimate: float
    low: float
    high: float
    method: str
    degenerate: bool
    degenerate_reason: str | None
    items: int
    units: int
    confidence: float
    warning: str | None = None  # fewer than 30 items (stats.estimate.small_sample_warning)


@dataclass(frozen=True)
class EffectiveJudges:
    """Effective number of independent judges from the judges' error correlation matrix (Kish's formula)."""

    effective: float
    judges: tuple[str, ...]
    mean_correlation: float
    left_out: tuple[str, ...]
    formula: str = "k / (1 + (k - 1) * mean off-diagonal error correlation), clipped to [1, k] (Kish 1965)"


def _interval(point: float, draws: np.ndarray, n_items: int, n_units: int, confidence: float,
              reason: str | None) -> AgreementEstimate:
    nan = float("nan")
    warning = small_sample_warning(n_items)
    if reason is not None or not np.isfinite(point):
        return AgreementEstimate(point if reason is None else nan, nan, nan, "none", True,
                                 reason or "the coefficient is undefined", n_items, n_units, confidence, warning)
    draws = draws[np.isfinite(draws)]
    tail = (1 - confidence) / 2
    low, high = np.quantile(draws, [tail, 1 - tail]) if len(draws) else (nan, nan)
    method = "item-bootstrap" if n_items >= MIN_BOOTSTRAP_ITEMS else "item-bootstrap-few-items"
    if not high > low:
        return AgreementEstimate(point, nan, nan, method, True,
                                 f"every item resample gave the same value over {n_items} items", n_items,
                                 n_units, confidence, warning)
    return AgreementEstimate(point, float(min(low, point)), float(max(high, point)), method, False, None, n_items,
                             n_units, confidence, warning)


def _kappa_from_tables(tables: np.ndarray, weights: KappaWeights = None) -> np.ndarray:
    """Cohen's kappa of each contingency table (... x V x V); ``quadratic`` weighs a disagreement by the squared
    distance of the category indices (Cohen 1968; statsmodels ``cohens_kappa(wt="quadratic")``)."""
    total = tables.sum(axis=(-2, -1))
    v = tables.shape[-1]
    index = np.arange(v)
    disagreement = (index[:, None] - index[None, :]) ** 2 if weights == "quadratic" else (
        index[:, None] != index[None, :]).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.sum(tables * disagreement, axis=(-2, -1)) / total
        chance = tables.sum(axis=-1)[..., :, None] * tables.sum(axis=-2)[..., None, :]
        expected = np.sum(chance * disagreement, axis=(-2, -1)) / total**2
        return 1 - observed / expected


def _per_item_tables(labels_a: Sequence[object], labels_b: Sequence[object], item_ids: Sequence[str] | None,
                     categories: Sequence[object] | None) -> tuple[np.ndarray, list[str], int]:
    """Per item, the flattened V x V table of the two raters' labels (units with a missing label dropped)."""
    frame = pd.DataFrame({"a": list(labels_a), "b": list(labels_b),
                          "item": list(item_ids) if item_ids is not None else range(len(labels_a))}).dropna()
    cats = list(categories) if categories is not None else sorted(set(frame["a"]) | set(frame["b"]), key=str)
    code = {c: i for i, c in enumerate(cats)}
    v = len(cats)
    items, item_index = np.unique(frame["item"].astype(str).to_numpy(), return_inverse=True)
    cells = frame["a"].map(code).to_numpy() * v + frame["b"].map(code).to_numpy()
    per_item = np.zeros((len(items), v * v))
    np.add.at(per_item, (item_index, cells.astype(int)), 1)
    return per_item, [str(i) for i in items], v


def cohens_kappa(labels_a: Sequence[object], labels_b: Sequence[object], item_ids: Sequence[str] | None = None,
                 confidence: float = CONFIDENCE, resamples: int = RESAMPLES, seed: int = SEED,
                 weights: KappaWeights = None, categories: Sequence[object] | None = None) -> AgreementEstimate:
    """Cohen's kappa of two raters' categorical labels on the same units (None marks a missing label, dropped).

    ``item_ids`` groups units into items for the bootstrap (default: every unit its own item). ``weights``
    ``quadratic`` gives the weighted kappa of ordered ``categories`` (default: the labels seen, sorted).
    """
    per_item, _, v = _per_item_tables(labels_a, labels_b, item_ids, categories)
    n_items, n_units = len(per_item), int(per_item.sum())
    if n_units == 0:
        return _interval(float("nan"), np.array([]), 0, 0, confidence, "no unit labelled by both raters")
    point = float(_kappa_from_tables(per_item.sum(axis=0).reshape(v, v), weights))
    reason = None if np.isfinite(point) else "both raters gave one and the same label throughout: kappa is undefined"
    if reason is None and n_items < 2:
        reason = "one item: no between-item variation can be estimated"
    draws = _kappa_from_tables(item_resample_sums(per_item, resamples, seed).reshape(-1, v, v), weights) \
        if reason is None else np.array([])
    return _interval(point, draws, n_items, n_units, confidence, reason)


def mean_pairwise_kappa(ratings: pd.DataFrame, categories: Sequence[object], weights: KappaWeights = None,
                        against: str | None = None, confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
                        seed: int = SEED) -> AgreementEstimate:
    """Mean Cohen's kappa over every pair of raters (the columns of ``ratings``; the index level ``item_id`` names
    each unit's item, NaN = not rated), or with ``against`` over the pairs of that column with each other one.
    The interval draws the same items for every pair in each resample."""
    raters = list(ratings.columns)
    items = ratings.index.get_level_values("item_id").astype(str).tolist()
    pairs = [(a, b) for i, a in enumerate(raters) for b in raters[i + 1:]] if against is None else [
        (against, b) for b in raters if b != against]
    if not pairs:
        return _interval(float("nan"), np.array([]), 0, 0, confidence, "fewer than two raters")
    universe = sorted(set(items))
    tables = []
    for a, b in pairs:
        per_item, named, v = _per_item_tables(ratings[a].tolist(), ratings[b].tolist(), items, categories)
        aligned = np.zeros((len(universe), v * v))
        aligned[np.searchsorted(universe, named)] = per_item
        tables.append(aligned)
    stacked = np.concatenate(tables, axis=1)  # items x (pairs * V * V): one draw of items for every pair
    v = len(categories)
    units = int(stacked.sum()) // len(pairs)
    point = float(np.mean(_kappa_from_tables(stacked.sum(axis=0).reshape(len(pairs), v, v), weights)))
    reason = None if np.isfinite(point) else "some pair of raters gave one label throughout: kappa is undefined"
    if reason is None and len(universe) < 2:
        reason = "one item: no between-item variation can be estimated"
    # a resample where some pair's kappa is undefined gives NaN, left out of the percentiles
    draws = np.array([]) if reason else np.mean(_kappa_from_tables(
        item_resample_sums(stacked, resamples, seed).reshape(-1, len(pairs), v, v), weights), axis=1)
    return _interval(point, draws, len(universe), units, confidence, reason)


def _squared_differences(values: np.ndarray, marginals: np.ndarray, level: Level) -> np.ndarray:
    """delta2_ck of Krippendorff 2011; V x V, or ... x V x V for ordinal (which depends on the marginals n_g)."""
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        return (c != k).astype(np.float64)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(c + k == 0, 0.0, ((c - k) / (c + k)) ** 2)
    # ordinal: (sum_{g between c and k} n_g - (n_c + n_k) / 2)^2, the sum running over both ends
    cumulative = np.cumsum(marginals, axis=-1)
    index = np.arange(len(values))
    n_c, n_k = marginals[..., :, None], marginals[..., None, :]
    between = np.abs(cumulative[..., None, :] - cumulative[..., :, None]) + np.where(index[:, None] <= index[None, :],
                                                                                      n_c, n_k)
    return (between - (n_c + n_k) / 2) ** 2


def _alpha_from_coincidences(coincidences: np.ndarray, values: np.ndarray, level: Level) -> np.ndarray:
    marginals = coincidences.sum(axis=-1)
    total = marginals.sum(axis=-1)
    delta2 = _squared_differences(values, marginals, level)
    observed = np.sum(coincidences * delta2, axis=(-2, -1))
    expected = np.sum(marginals[..., :, None] * marginals[..., None, :] * delta2, axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1 - (total - 1) * observed / expected


def krippendorff_alpha(ratings: np.ndarray, level: Level = "nominal", item_ids: Sequence[str] | None = None,
                       confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
                       seed: int = SEED) -> AgreementEstimate:
    """Krippendorff's alpha of a units x raters matrix of numeric values (NaN = missing).

    For nominal data any numeric codes will do; ordinal, interval and ratio use the values' order and differences.
    ``item_ids`` (one per unit) groups units into items for the bootstrap; by default each unit is its own item.
    """
    matrix = np.asarray(ratings, dtype=np.float64)
    values, codes = np.unique(matrix[~np.isnan(matrix)], return_inverse=True)
    counts = np.zeros((len(matrix), len(values)))
    rows = np.nonzero(~np.isnan(matrix))[0]
    np.add.at(counts, (rows, codes), 1)
    pairable = counts.sum(axis=1)
    keep = pairable >= 2
    units = np.asarray(item_ids if item_ids is not None else np.arange(len(matrix)).astype(str))[keep]
    counts, pairable = counts[keep], pairable[keep]
    items, item_index = np.unique(units, return_inverse=True)
    n_items, n_units = len(items), int(keep.sum())
    if n_units == 0 or len(values) < 2:
        undefined = "no unit has two values" if n_units == 0 else "every value is the same: alpha is undefined"
        return _interval(float("nan"), np.array([]), n_items, n_units, confidence, undefined)
    weighted = counts / (pairable - 1)[:, None]
    v = len(values)
    per_unit = weighted[:, :, None] * counts[:, None, :]
    per_unit[:, np.arange(v), np.arange(v)] -= weighted
    per_item = np.zeros((n_items, v * v))
    np.add.at(per_item, item_index, per_unit.reshape(n_units, v * v))
    point = float(_alpha_from_coincidences(per_item.sum(axis=0).reshape(v, v), values, level))
    reason: str | None = "one item: no between-item variation can be estimated" if n_items < 2 else None
    draws = np.array([]) if reason else _alpha_from_coincidences(
        item_resample_sums(per_item, resamples, seed).reshape(-1, v, v), values, level)
    return _interval(point, draws, n_items, n_units, confidence, reason)


def effective_judges(errors: pd.DataFrame) -> EffectiveJudges:
    """Effective number of independent judges from an instances x judges frame of errors (NaN = not judged).

    An error is what the panel is averaged against, e.g. 1 where a judge disagrees with the human label, or a
    score's difference from the human score. Correlations are pairwise-complete (pandas ``corr``); judges whose
    errors do not vary (no correlation defined) are left out and named.
    """
    varying = [judge for judge in errors.columns if errors[judge].dropna().nunique() > 1]
    correlation = errors[varying].corr().to_numpy()
    k = len(varying)
    left_out = tuple(str(j) for j in errors.columns if j not in varying)
    if k == 0:
        return EffectiveJudges(float("nan"), (), float("nan"), left_out)
    correlation = np.nan_to_num(correlation, nan=0.0)  # two judges with no instance in common: taken as uncorrelated
    mean_r = float((correlation.sum() - k) / (k * (k - 1))) if k > 1 else float("nan")
    total = float(correlation.sum())
    effective = float(np.clip(k**2 / total, 1, k)) if k > 1 and total > 0 else float(k)
    return EffectiveJudges(effective, tuple(str(j) for j in varying), mean_r, left_out)


def item_bootstrap_correlations(x: Sequence[float], y: Sequence[float], item_ids: Sequence[str],
                                confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
                                seed: int = SEED) -> dict[str, tuple[float, float]]:
    """Percentile intervals of Pearson, Spearman and Kendall (tau-b) correlations from resampling whole items (all
    units of an item together, the same item picks as every other item bootstrap). NaN bounds where a resample
    leaves either variable constant so often that no interval can be read."""
    xs, ys = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    items, item_index = np.unique(np.asarray(item_ids).astype(str), return_inverse=True)
    order = np.argsort(item_index, kind="stable")
    starts = np.searchsorted(item_index[order], np.arange(len(items)))
    sizes = np.diff(np.append(starts, len(order)))
    counts = item_resample_sums(np.eye(len(items)), resamples, seed).astype(int)  # resamples x items picks
    draws = np.full((resamples, 3), np.nan)
    for r, picks in enumerate(counts):
        chosen = np.repeat(np.arange(len(items)), picks)
        rows = order[np.concatenate([np.arange(starts[i], starts[i] + sizes[i]) for i in chosen])]
        a, b = xs[rows], ys[rows]
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            continue
        draws[r] = (np.corrcoef(a, b)[0, 1],
                    np.corrcoef(scipy_stats.rankdata(a), scipy_stats.rankdata(b))[0, 1],
                    scipy_stats.kendalltau(a, b).statistic)
    tail = (1 - confidence) / 2
    result = {}
    for k, name in enumerate(("pearson", "spearman", "kendall")):
        finite = draws[np.isfinite(draws[:, k]), k]
        enough = len(finite) >= confidence * resamples
        low, high = np.quantile(finite, [tail, 1 - tail]) if enough else (np.nan, np.nan)
        result[name] = (float(low), float(high))
    return result
