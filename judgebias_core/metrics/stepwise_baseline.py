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


def _with_gap(units: pd.DataFrame, target: str, others: list[str], gap: np.ndarray, weights: str
              ) -> tuple[float, float]:
    data = units.assign(**{GAP: gap})
    design = _DesignBlocks(data, target, [*others, GAP], weights)
    return float(design.fit([*others, GAP]).aic), float(design.fit([GAP]).rsquared)


def bound_baseline(units: pd.DataFrame, result: StepwiseResult, permutations: int = PERMUTATIONS,
                   seed: int = SEED) -> BoundBaseline | None:
    """The baseline for a stepwise result (None when the gap was not offered or is constant)."""
    data = units.dropna(subset=[result.target, *result.final_variables, GAP]).reset_index(drop=True)
    if GAP in result.constant_predictors or data[GAP].nunique() < 2:
        return None
    others = [v for v in result.final_variables if v != GAP]
    without = float(_DesignBlocks(data, result.target, others, result.weights).fit(others).aic)
    observed_aic, observed_r2 = _with_gap(data, result.target, others, data[GAP].to_numpy(float), result.weights)
    margin = quality_margin(data)
    consistency = data["position_consistency"].to_numpy(float)
    rng = np.random.default_rng(seed)
    gains, r2 = np.empty(permutations), np.empty(permutations)
    for b in range(permutations):
        aic, r2[b] = _with_gap(data, result.target, others, rng.permutation(margin) * consistency / 2,
                               result.weights)
        gains[b] = without - aic
    observed_gain = without - observed_aic
    return BoundBaseline(
        target=result.target, permutations=permutations, seed=seed, observed_aic_gain=observed_gain,
        null_aic_gain_mean=float(gains.mean()), null_aic_gain_high=float(np.quantile(gains, 0.95)),
        permutation_p=float((1 + np.sum(gains >= observed_gain)) / (1 + permutations)),
        observed_r_squared=observed_r2, null_r_squared_mean=float(r2.mean()), weights=result.weights,
    )
