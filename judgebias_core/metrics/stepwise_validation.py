"""An out-of-sample check of the selected stepwise model (METHODS.md section 7), in place of reading its
post-selection p-values: K-fold cross-validated mean squared error of the selected model, of the intercept alone,
and of the selected model without each kept factor (Hastie, Tibshirani & Friedman 2009, sec. 7.10)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebias_core.metrics.stepwise import WEIGHT_COLUMN, StepwiseResult, _DesignBlocks

FOLDS = 5
SEED = 0


@dataclass(frozen=True)
class CrossValidated:
    """Cross-validated mean squared error (weighted by pairs when the fit is) of the selected model and its
    neighbours; a factor earns its place when removing it raises the out-of-sample error."""

    target: str
    folds: int
    seed: int
    units: int
    selected_mse: float
    intercept_mse: float
    mse_without: dict[str, float]  # the selected model without each kept factor
    weights: str

    @property
    def improvement_over_intercept(self) -> float:
        """Share of the intercept-only out-of-sample error the selected model removes (out-of-sample R²)."""
        return 1 - self.selected_mse / self.intercept_mse if self.intercept_mse > 0 else float("nan")

    def earns_its_place(self, factor: str) -> bool:
        """True when the model without ``factor`` predicts held-out units worse."""
        return self.mse_without[factor] > self.selected_mse


def _cv_mse(design: _DesignBlocks, variables: list[str], fold_of: np.ndarray, folds: int) -> float:
    columns = np.hstack([np.ones((len(design.y), 1)), *(design.blocks[v] for v in variables)])
    weights = design.weights if design.weights is not None else np.ones(len(design.y))
    squared, total = 0.0, 0.0
    for fold in range(folds):
        held = fold_of == fold
        root = np.sqrt(weights[~held])
        # Least squares on the training units (minimum-norm where a level is missing from them).
        coefficients = np.linalg.lstsq(columns[~held] * root[:, None], design.y[~held] * root, rcond=None)[0]
        errors = design.y[held] - columns[held] @ coefficients
        squared += float(np.sum(weights[held] * errors**2))
        total += float(np.sum(weights[held]))
    return squared / total


def cross_validate(units: pd.DataFrame, result: StepwiseResult, folds: int = FOLDS,
                   seed: int = SEED) -> CrossValidated | None:
    """K-fold cross-validation (units shuffled into folds with ``seed``) of the selected model; None with fewer
    units than twice the folds."""
    data = units.dropna(subset=[result.target, *result.final_variables]).reset_index(drop=True)
    if len(data) < 2 * folds:
        return None
    if result.weights == "pairs" and WEIGHT_COLUMN not in data.columns:
        return None
    design = _DesignBlocks(data, result.target, result.final_variables, result.weights)
    fold_of = np.random.default_rng(seed).permutation(np.arange(len(data)) % folds)
    final = list(result.final_variables)
    return CrossValidated(
        target=result.target, folds=folds, seed=seed, units=len(data),
        selected_mse=_cv_mse(design, final, fold_of, folds), intercept_mse=_cv_mse(design, [], fold_of, folds),
        mse_without={v: _cv_mse(design, [u for u in final if u != v], fold_of, folds) for v in final},
        weights=result.weights,
    )
