"""The leaderboard's Bradley-Terry fit: the design matrix of candidate pairs and the ridge-penalised strengths,
fitted for the full data and every item resample at once (split from ``metrics.leaderboard``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebias_core.stats.bradley_terry import RIDGE


def _bt_design(combos: pd.DataFrame, players: list[str], reference: str) -> np.ndarray:
    free = [p for p in players if p != reference]
    design = np.zeros((len(combos), len(free)))
    column = {p: i for i, p in enumerate(free)}
    rows = np.arange(len(combos))
    cand, opp = combos["candidate"].map(column), combos["opponent"].map(column)
    design[rows[cand.notna()], cand.dropna().astype(int)] = 1.0
    design[rows[opp.notna()], opp.dropna().astype(int)] = -1.0
    return design


class _HessianCells:
    """sum_m weight[b, m] * outer(design[m], design[m]) for every row b of ``weight``, from the nonzero cells only:
    a Bradley-Terry design row holds at most two nonzeros (+1 and -1), so its outer product at most four. The sums
    run over the combos in order, as ``np.einsum("bm,mi,mj->bij", ...)`` runs them with its zero terms."""

    def __init__(self, design: np.ndarray) -> None:
        self.size = design.shape[1]
        combos, cells, signs = [], [], []
        for m, row in enumerate(design):
            for i in np.flatnonzero(row):
                for j in np.flatnonzero(row):
                    combos.append(m)
                    cells.append(i * self.size + j)
                    signs.append(row[i] * row[j])
        self.combos, self.cells = np.asarray(combos, dtype=np.int64), np.asarray(cells, dtype=np.int64)
        self.signs = np.asarray(signs, dtype=float)

    def __call__(self, weight: np.ndarray) -> np.ndarray:
        rows, cells = len(weight), self.size * self.size
        index = (np.arange(rows, dtype=np.int64)[:, None] * cells + self.cells[None, :]).ravel()
        values = (weight[:, self.combos] * self.signs).ravel()
        return np.bincount(index, weights=values, minlength=rows * cells).reshape(rows, self.size, self.size)


def _bt_fit_resamples(design: np.ndarray, wins: np.ndarray, totals: np.ndarray, ridge: float = RIDGE,
                      iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Ridge-penalised Bradley-Terry log-odds strengths for every row of ``wins`` / ``totals`` at once.

    Maximises sum(w log p + (n - w) log(1 - p)) - ridge * sum(beta^2), p = logistic(design @ beta), by damped
    Newton steps (each step at most 2 log-odds per strength). The penalty keeps every estimate finite when a
    candidate wins (or loses) every pair, where the unpenalised maximum does not exist. Returns the strengths and,
    per row, the largest absolute gradient of the penalised log-likelihood at them (0 at the exact maximum).
    """
    beta = np.zeros((len(wins), design.shape[1]))
    penalty = 2 * ridge * np.eye(design.shape[1])
    hessian_of = _HessianCells(design)
    for _ in range(iterations):
        share = 1 / (1 + np.exp(-(beta @ design.T)))
        gradient = (wins - totals * share) @ design - 2 * ridge * beta
        weight = totals * share * (1 - share)
        hessian = hessian_of(weight) + penalty
        step = np.linalg.solve(hessian, gradient[..., None])[..., 0]
        step *= np.minimum(1.0, 2.0 / np.maximum(np.abs(step).max(axis=1, keepdims=True), 1e-300))
        beta = beta + step
        if np.abs(step).max() < 1e-10:
            break
    share = 1 / (1 + np.exp(-(beta @ design.T)))
    gradient = (wins - totals * share) @ design - 2 * ridge * beta
    return beta, np.abs(gradient).max(axis=1, initial=0.0)


def _bt_fit(design: np.ndarray, wins: np.ndarray, totals: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """The full-data strengths: the same estimator as every resample (:func:`_bt_fit_resamples`)."""
    return _bt_fit_resamples(design, wins[None, :], totals[None, :], ridge)[0][0]
