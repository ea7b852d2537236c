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

from judgebias_core.stats.clustered import CONFIDENCE, MIN_BOOTSTRAP_ITEMS, RESAMPLES, SEED, item_resample_sums

Level = Literal["nominal", "ordinal", "interval", "ratio"]


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
    if reason is not None or not np.isfinite(point):
        return AgreementEstimate(point if reason is None else nan, nan, nan, "none", True,
                                 reason or "the coefficient is undefined", n_items, n_units, confidence)
    draws = draws[np.isfinite(draws)]
    tail = (1 - confidence) / 2
    low, high = np.quantile(draws, [tail, 1 - tail]) if len(draws) else (nan, nan)
    method = "item-bootstrap" if n_items >= MIN_BOOTSTRAP_ITEMS else "item-bootstrap-few-items"
    if not high > low:
        return AgreementEstimate(point, nan, nan, method, True,
                                 f"every item resample gave the same value over {n_items} items", n_items,
                                 n_units, confidence)
    return AgreementEstimate(point, float(min(low, point)), float(max(high, point)), method, False, None, n_items,
                             n_units, confidence)


def _kappa_from_tables(tables: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each contingency table (... x V x V)."""
    total = tables.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(tables, axis1=-2, axis2=-1) / total
        expected = np.sum(tables.sum(axis=-1) * tables.sum(axis=-2), axis=-1) / total**2
        return (observed - expected) / (1 - expected)


def cohens_kappa(labels_a: Sequence[object], labels_b: Sequence[object], item_ids: Sequence[str] | None = None,
                 confidence: float = CONFIDENCE, resamples: int = RESAMPLES, seed: int = SEED) -> AgreementEstimate:
    """Cohen's kappa of two raters' categorical labels on the same units (None marks a missing label, dropped).

    ``item_ids`` groups units into items for the bootstrap (default: every unit its own item).
    """
    frame = pd.DataFrame({"a": list(labels_a), "b": list(labels_b),
                          "item": list(item_ids) if item_ids is not None else range(len(labels_a))}).dropna()
    categories = sorted(set(frame["a"]) | set(frame["b"]), key=str)
    code = {c: i for i, c in enumerate(categories)}
    v = len(categories)
    items, item_index = np.unique(frame["item"].astype(str).to_numpy(), return_inverse=True)
    cells = frame["a"].map(code).to_numpy() * v + frame["b"].map(code).to_numpy()
    per_item = np.zeros((len(items), v * v))
    np.add.at(per_item, (item_index, cells.astype(int)), 1)
    n_items, n_units = len(items), len(frame)
    if n_units == 0:
        return _interval(float("nan"), np.array([]), 0, 0, confidence, "no unit labelled by both raters")
    point = float(_kappa_from_tables(per_item.sum(axis=0).reshape(v, v)))
    reason = None if np.isfinite(point) else "both raters gave one and the same label throughout: kappa is undefined"
    if reason is None and n_items < 2:
        reason = "one item: no between-item variation can be estimated"
    draws = _kappa_from_tables(item_resample_sums(per_item, resamples, seed).reshape(-1, v, v)) if reason is None \
        else np.array([])
    return _interval(point, draws, n_items, n_units, confidence, reason)


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
