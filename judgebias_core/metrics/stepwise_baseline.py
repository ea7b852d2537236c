"""How much of a stepwise fit the quality gap's bound alone produces (METHODS.md section 7).

The quality gap of a unit is |win rate - 1/2| with inconsistent pairs counted as half a win, which is exactly
PC / 2 times the quality margin |wins - losses| / consistent pairs. So the gap carries PC inside it, whatever the
candidates' quality. The baseline keeps every unit's PC (and target) and shuffles the quality margins across units:
the gap that results has the same bound but no real quality in it, and what it still adds to the selected model is
what the bound alone produces (a permutation baseline: Good 2005, "Permutation, Parametric and Bootstrap Tests").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebias_core.metrics.stepwise import StepwiseResult, _DesignBlocks

GAP = "quality_gap"
PERMUTATIONS = 200
SEED = 0


@dataclass(frozen=True)
class BoundBaseline:
    """The quality gap's AIC gain (over the selected model without it) and R² alone, observed and with the
    quality margins shuffled (the bound alone)."""

    target: str
    permutations: int
    seed: int
    observed_aic_gain: float  # AIC of the model without the gap minus with it (positive: the gap helps)
    null_aic_gain_mean: float
    null_aic_gain_high: float  # 95th percentile under shuffling
    permutation_p: float  # (1 + shuffles gaining at least as much) / (1 + shuffles)
    observed_r_squared: float  # the target on the quality gap alone
    null_r_squared_mean: float
    weights: str
    rule: str = ("quality margins |wins - losses| / consistent pairs shuffled across units, each unit keeping its "
                 "PC; the shuffled gap = margin x PC / 2 is refitted in the selected model's place of the gap")

    @property
    def bound_share_of_r_squared(self) -> float:
        """The share of the gap's R² alone that the shuffled gaps reach on average (the bound's part)."""
        if not self.observed_r_squared > 0:
            return float("nan")
        return float(min(1.0, self.null_r_squared_mean / self.observed_r_squared))


def quality_margin(units: pd.DataFrame) -> np.ndarray:
    """|wins - losses| / consistent pairs per unit, from the gap and PC (gap = margin x PC / 2; 0 where PC = 0)."""
    consistency = units["position_consistency"].to_numpy(float)
    gap = units[GAP].to_numpy(float)
    return np.divide(2 * gap, consistency, out=np.zeros_like(gap), where=consistency > 0)


class _GapFits:
    """AIC of the selected model's other factors plus one gap column, and R² of the target on the gap alone, for
    many gap columns from one factorisation of the other factors' design.

    Frisch-Waugh-Lovell (Davidson & MacKinnon 2004, sec. 2.4): adding a column g to a least-squares fit lowers its
    residual sum of squares by (r_y . r_g)^2 / (r_g . r_g), r_ being the residuals after projecting on the other
    columns. That is the fit statsmodels makes of the whole design (the same projection, pinv cut-off and rank
    rule), without a new SVD per shuffle; the AIC and log-likelihood are statsmodels' formulas.
    """

    def __init__(self, design: _DesignBlocks, others: list[str]) -> None:
        rows = len(design.y)
        self.weights = design.weights if design.weights is not None else np.ones(rows)
        self.root = np.sqrt(self.weights)
        columns = np.hstack([np.ones((rows, 1)), *(design.blocks[v] for v in others)]) * self.root[:, None]
        basis, singular, _ = np.linalg.svd(columns, full_matrices=False)
        # statsmodels' pinv keeps singular values above 1e-15 x the largest; its rank is numpy's matrix_rank.
        self.basis = basis[:, singular > 1e-15 * singular.max()]
        self.rank = int(np.sum(singular > singular.max() * max(columns.shape) * np.finfo(float).eps))
        self.tolerance = max(rows, columns.shape[1] + 1) * np.finfo(float).eps
        self.y = design.y * self.root
        self.y_residual = self._residual(self.y)
        self.ssr_without = float(self.y_residual @ self.y_residual)
        self.log_weights = float(np.sum(np.log(self.weights))) if design.weights is not None else 0.0
        self.y_centred = design.y - np.average(design.y, weights=self.weights)

    def _residual(self, column: np.ndarray) -> np.ndarray:
        return column - self.basis @ (self.basis.T @ column)

    def aic(self, ssr: float, rank: int) -> float:
        half = len(self.y) / 2.0
        llf = -np.log(ssr) * half - (1 + np.log(np.pi / half)) * half + 0.5 * self.log_weights
        return float(-2 * llf + 2 * rank)

    def with_gap(self, gap: np.ndarray) -> tuple[float, float]:
        """(AIC of the other factors plus ``gap``, R² of the target on ``gap`` alone)."""
        residual = self._residual(gap * self.root)
        spread = float(residual @ residual)
        if spread > (self.tolerance * max(float(np.abs(gap * self.root).max()), 1.0)) ** 2:
            aic = self.aic(self.ssr_without - float(self.y_residual @ residual) ** 2 / spread, self.rank + 1)
        else:  # the gap lies in the span of the other factors: the fit does not change
            aic = self.aic(self.ssr_without, self.rank)
        centred = gap - np.average(gap, weights=self.weights)
        total = float(np.sum(self.weights * self.y_centred**2))
        gap_spread = float(np.sum(self.weights * centred**2))
        explained = float(np.sum(self.weights * centred * self.y_centred)) ** 2 / gap_spread if gap_spread > 0 else 0.0
        return aic, explained / total


def bound_baseline(units: pd.DataFrame, result: StepwiseResult, permutations: int = PERMUTATIONS,
                   seed: int = SEED) -> BoundBaseline | None:
    """The baseline for a stepwise result (None when the gap was not offered or is constant)."""
    data = units.dropna(subset=[result.target, *result.final_variables, GAP]).reset_index(drop=True)
    if GAP in result.constant_predictors or data[GAP].nunique() < 2:
        return None
    others = [v for v in result.final_variables if v != GAP]
    fits = _GapFits(_DesignBlocks(data, result.target, others, result.weights), others)
    without = fits.aic(fits.ssr_without, fits.rank)
    observed_aic, observed_r2 = fits.with_gap(data[GAP].to_numpy(float))
    margin = quality_margin(data)
    consistency = data["position_consistency"].to_numpy(float)
    rng = np.random.default_rng(seed)
    gains, r2 = np.empty(permutations), np.empty(permutations)
    for b in range(permutations):
        aic, r2[b] = fits.with_gap(rng.permutation(margin) * consistency / 2)
        gains[b] = without - aic
    observed_gain = without - observed_aic
    return BoundBaseline(
        target=result.target, permutations=permutations, seed=seed, observed_aic_gain=observed_gain,
        null_aic_gain_mean=float(gains.mean()), null_aic_gain_high=float(np.quantile(gains, 0.95)),
        permutation_p=float((1 + np.sum(gains >= observed_gain)) / (1 + permutations)),
        observed_r_squared=observed_r2, null_r_squared_mean=float(r2.mean()), weights=result.weights,
    )
