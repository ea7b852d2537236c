"""Logistic fits with cluster-robust standard errors, shared by verbosity and self-preference.

Judgments of one item share its question (and a candidate's answers share its quality), so the standard errors of a
logit fitted on pairs are cluster-robust (the CR1 sandwich of statsmodels ``cov_type="cluster"``: Liang & Zeger
1986; Cameron & Miller 2015). Fractional outcomes (a tie scored 1/2) are fitted as a quasi-likelihood binomial
model (Papke & Wooldridge 1996), whose sandwich standard errors stay valid.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.stats import norm

from judgebias_core.stats.settings import CONFIDENCE

# Cameron, Gelbach & Miller (2008): cluster-robust inference is unreliable with fewer than about 20-50 clusters.
FEW_CLUSTERS = 20


@dataclass(frozen=True)
class ClusteredTerm:
    """One coefficient of a logit fit, its interval and Wald p-value, and how they were obtained."""

    term: str
    estimate: float
    std_err: float
    ci_low: float
    ci_high: float
    p_value: float
    cluster: str  # what the standard errors are clustered by ("none": observations assumed independent)
    clusters: int
    observations: int
    method: str  # in words, for a page or report
    degenerate: bool = False
    degenerate_reason: str | None = None


def full_rank_columns(design: np.ndarray, keep_first: int = 1) -> list[int]:
    """Indices of a set of columns with the design's rank, the first ``keep_first`` columns always kept (greedy)."""
    design = np.unique(design, axis=0)  # the same rank on far fewer rows when designs repeat (one row per pair)
    kept = list(range(min(keep_first, design.shape[1])))
    rank = np.linalg.matrix_rank(design[:, kept]) if kept else 0
    for column in range(len(kept), design.shape[1]):
        trial = np.linalg.matrix_rank(design[:, [*kept, column]])
        if trial > rank:
            kept.append(column)
            rank = trial
    return kept


def player_design(first: pd.Series, second: pd.Series) -> pd.DataFrame:
    """Bradley-Terry style fixed effects: +1 for the first player of a row, -1 for the second (one column each)."""
    players = sorted(set(first) | set(second))
    codes = {name: i for i, name in enumerate(players)}
    matrix = np.zeros((len(first), len(players)))
    rows = np.arange(len(first))
    matrix[rows, first.map(codes).to_numpy()] += 1.0
    matrix[rows, second.map(codes).to_numpy()] -= 1.0
    return pd.DataFrame(matrix, columns=players, index=first.index)


def _degenerate(term: str, cluster: str, clusters: int, observations: int, reason: str) -> ClusteredTerm:
    nan = float("nan")
    return ClusteredTerm(term, nan, nan, nan, nan, nan, cluster, clusters, observations,
                         "not estimated", True, reason)


def clustered_logit_terms(outcome: np.ndarray, design: pd.DataFrame, terms: Sequence[str],
                          groups: np.ndarray | None, cluster: str, confidence: float = CONFIDENCE
                          ) -> list[ClusteredTerm]:
    """Fit a binomial logit of ``outcome`` (0, 1 or fractions) on ``design`` (with its own constant) and report
    ``terms``; standard errors cluster-robust over ``groups`` (None: observations assumed independent)."""
    n = len(outcome)
    clusters = int(len(np.unique(groups))) if groups is not None else n
    if n < 3 or np.unique(outcome).size < 2:
        return [_degenerate(t, cluster, clusters, n, "every observation has the same outcome") for t in terms]
    if groups is not None and clusters < 2:
        return [_degenerate(t, cluster, clusters, n, f"one {cluster}: no between-cluster variation") for t in terms]
    kwargs = {"cov_type": "cluster", "cov_kwds": {"groups": groups}} if groups is not None else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # separation and fractional outcomes warn; convergence is checked below
        try:
            fit = sm.GLM(outcome, design, family=sm.families.Binomial()).fit(tol=1e-12, maxiter=200, **kwargs)
        except (np.linalg.LinAlgError, ValueError) as error:
            return [_degenerate(t, cluster, clusters, n, f"the fit failed ({error})") for t in terms]
    kind = (f"cluster-robust (CR1) by {cluster}, {clusters:,} clusters" if groups is not None
            else "observations assumed independent")
    if groups is not None and clusters < FEW_CLUSTERS:
        kind += f"; fewer than {FEW_CLUSTERS} clusters, so the interval is too narrow"
    z = float(norm.ppf(0.5 + confidence / 2))
    results = []
    for term in terms:
        estimate, se = float(fit.params[term]), float(fit.bse[term])
        if not (fit.converged and np.isfinite(estimate) and np.isfinite(se) and se > 0):
            results.append(_degenerate(term, cluster, clusters, n, "the fit did not converge (separation)"))
            continue
        results.append(ClusteredTerm(term, estimate, se, estimate - z * se, estimate + z * se,
                                     float(2 * norm.sf(abs(estimate / se))), cluster, clusters, n, kind))
    return results
