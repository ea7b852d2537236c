"""What drives position bias (METHODS.md section 7): bidirectional stepwise OLS on AIC over (judge, candidate, task)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from statsmodels.regression.linear_model import RegressionResultsWrapper

from judgebias_core.errors import InvalidArgument, NotFoundError

Target = Literal["position_consistency", "preference_fairness"]
Start = Literal["empty", "full"]
Weights = Literal["none", "pairs"]
Cluster = Literal["none", "task", "judge", "candidate"]
WEIGHTS: tuple[str, ...] = ("none", "pairs")
CLUSTERS: tuple[str, ...] = ("none", "task", "judge", "candidate")
# Cameron, Gelbach & Miller (2008): cluster-robust standard errors are unreliable below about 20-50 clusters.
FEW_CLUSTERS = 20
TARGETS: tuple[str, ...] = ("position_consistency", "preference_fairness")
CATEGORICAL: tuple[str, ...] = ("judge", "candidate", "task")
NUMERIC: tuple[str, ...] = ("quality_gap", "input_length", "output_length", "prompt_length")
PREDICTORS: tuple[str, ...] = CATEGORICAL + NUMERIC
UNIT_COLUMNS = ["judge", "candidate", "task", "pairs", "classified", "position_consistency", "preference_fairness",
                "quality_gap", "input_length", "output_length", "prompt_length"]
# AIC must fall by more than this to count as lower (guards against float noise between equal models).
AIC_TOLERANCE = 1e-9
# The quality gap |win rate - 1/2| counts inconsistent pairs as half a win, so it cannot exceed PC / 2: part of
# any fit of PC (or PF) on it is built into the two metrics' definitions, not found in the data.
QUALITY_GAP_CAVEAT = ("The quality gap is bounded by construction: inconsistent pairs count as half a win, so "
                      "|win rate - 1/2| is at most PC / 2, and a judge with no position bias at all still shows "
                      "PC rising with the gap. A fit that keeps the quality gap is partly explained by that bound.")
POST_SELECTION_NOTE = ("Intervals and p-values are those of the selected model refitted as if it had been chosen in "
                       "advance (post-selection): they are too narrow and are no test of the selected factors.")
WEIGHT_COLUMN = "classified"  # weighted least squares weighs a unit by its classified pairs


@dataclass(frozen=True)
class StepwiseStep:
    action: Literal["add", "drop"]
    variable: str
    aic_before: float
    aic_after: float


@dataclass(frozen=True)
class StepwiseResult:
    """The steps, the final model and how much each kept predictor matters."""

    target: str
    start: str
    steps: list[StepwiseStep]
    start_variables: list[str]
    start_aic: float
    final_variables: list[str]
    final_aic: float
    units: int
    units_left_out: int
    constant_predictors: list[str]  # offered but constant over the units, so never fitted
    saturating_predictors: list[str]  # offered but with one level per unit (a perfect, meaningless fit)
    aic_rise_when_removed: dict[str, float]
    coefficients: pd.DataFrame = field(repr=False)  # term, coef, std_err, p_value, ci_low, ci_high
    r_squared: float = float("nan")
    summary_text: str = ""
    confounded_with_task: list[str] = field(default_factory=list)  # numeric predictors fixed by the task
    weights: str = "none"  # "pairs": weighted least squares by classified pairs per unit
    cluster: str = "none"  # what the coefficients' standard errors are clustered by ("none": units independent)
    clusters: int = 0
    standard_errors: str = "units assumed independent (OLS)"


def formula(target: str, variables: Sequence[str]) -> str:
    """The statsmodels formula of ``target`` on ``variables`` (categoricals as factors)."""
    terms = [f"C({v})" if v in CATEGORICAL else v for v in variables]
    return f"{target} ~ {' + '.join(terms) if terms else '1'}"


def fit(units: pd.DataFrame, target: str, variables: Sequence[str], weights: str = "none",
        cluster: str = "none") -> RegressionResultsWrapper:
    """OLS (or WLS by classified pairs) fit of ``target`` on ``variables`` through the formula interface (named
    terms, for reporting); standard errors cluster-robust by ``cluster`` unless it is "none"."""
    covariance: dict[str, object] = {}
    if cluster != "none":
        covariance = {"cov_type": "cluster", "cov_kwds": {"groups": pd.factorize(units[cluster])[0]}}
    with warnings.catch_warnings():
        # Nearly collinear predictors are expected here (METHODS.md section 7); the step table shows them.
        warnings.simplefilter("ignore")
        if weights == "pairs":
            return smf.wls(formula(target, variables), data=units, weights=units[WEIGHT_COLUMN]).fit(**covariance)
        return smf.ols(formula(target, variables), data=units).fit(**covariance)


class _DesignBlocks:
    """Each predictor's columns built once (treatment-coded dummies, as C() codes them), so a search step only
    stacks blocks; fits equal the formula fits of the same variables."""

    def __init__(self, data: pd.DataFrame, target: str, predictors: Sequence[str], weights: str = "none") -> None:
        self.y = data[target].to_numpy(dtype=float)
        self.weights = data[WEIGHT_COLUMN].to_numpy(dtype=float) if weights == "pairs" else None
        self.blocks: dict[str, np.ndarray] = {}
        self._fits: dict[tuple[str, ...], RegressionResultsWrapper] = {}
        for name in predictors:
            if name in CATEGORICAL:
                levels = sorted(data[name].astype(str).unique())
                codes = pd.Categorical(data[name].astype(str), categories=levels)
                self.blocks[name] = pd.get_dummies(codes, drop_first=True).to_numpy(dtype=float)
            else:
                self.blocks[name] = data[[name]].to_numpy(dtype=float)

    def fit(self, variables: Sequence[str]) -> RegressionResultsWrapper:
        """The fit of ``variables`` (in that column order), made once: a search meets the same model again (the
        move back to the previous step, the single-factor checks, the final model without each factor)."""
        key = tuple(variables)
        if key not in self._fits:
            columns = [np.ones((len(self.y), 1)), *(self.blocks[v] for v in variables)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if self.weights is not None:
                    self._fits[key] = sm.WLS(self.y, np.hstack(columns), weights=self.weights).fit()
                else:
                    self._fits[key] = sm.OLS(self.y, np.hstack(columns)).fit()
        return self._fits[key]


def _allowed_aic(result: RegressionResultsWrapper) -> float:
    """AIC of a fit, or +inf for a saturated one (no residual degrees of freedom: AIC is meaningless there)."""
    return float(result.aic) if result.df_resid >= 1 else float("inf")


def _order(variables: set[str]) -> list[str]:
    return [v for v in PREDICTORS if v in variables] + sorted(variables - set(PREDICTORS))


def stepwise_select(units: pd.DataFrame, target: str, predictors: Sequence[str] = PREDICTORS,
                    start: Start = "empty", units_left_out: int = 0, weights: str = "none",
                    cluster: str = "none") -> StepwiseResult:
    """Bidirectional stepwise selection: take the single addition or removal that lowers AIC most, until none does.

    ``weights`` "pairs" fits weighted least squares by classified pairs per unit; ``cluster`` makes the final
    model's standard errors cluster-robust (the selection, on AIC, does not depend on it)."""
    if target not in units.columns:
        raise InvalidArgument(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")
    check_options(weights, cluster)
    data = units.dropna(subset=[target, *predictors])
    if len(data) < 3:
        raise InvalidArgument(f"only {len(data)} unit(s) with a classified pair: too few to fit a regression")
    if data[target].nunique() < 2:
        raise InvalidArgument(f"{target} is the same in every unit: there is nothing to explain")
    constant = [p for p in predictors if data[p].nunique() < 2]
    design = _DesignBlocks(data, target, [p for p in predictors if p not in constant], weights)
    # A factor with a level per unit fits every unit exactly on its own: no residual left to compare AIC on.
    saturating = [p for p in design.blocks if design.fit([p]).df_resid < 1]
    usable = [p for p in design.blocks if p not in saturating]
    if cluster != "none" and data[cluster].nunique() < 2:
        raise InvalidArgument(f"every unit has the same {cluster}: standard errors cannot be clustered by it")
    current = set(usable) if start == "full" else set()
    current_aic = _allowed_aic(design.fit(_order(current)))
    start_variables, start_aic = _order(current), current_aic
    steps: list[StepwiseStep] = []
    while True:
        moves = [("add", v, current | {v}) for v in usable if v not in current]
        moves += [("drop", v, current - {v}) for v in usable if v in current]
        scored = [(_allowed_aic(design.fit(_order(after))), action, v, after) for action, v, after in moves]
        if not scored:
            break
        best_aic, action, variable, after = min(scored, key=lambda move: move[0])
        if not best_aic < current_aic - AIC_TOLERANCE:
            break
        steps.append(StepwiseStep(action, variable, current_aic, best_aic))  # type: ignore[arg-type]
        current, current_aic = after, best_aic
    final = _order(current)
    result = fit(data, target, final, weights, cluster)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the summary's joint Wald test warns on a rank-deficient clustered covariance
        summary = str(result.summary())
    clusters = int(data[cluster].nunique()) if cluster != "none" else 0
    rises = {v: _allowed_aic(design.fit([u for u in final if u != v])) - current_aic for v in final}
    return StepwiseResult(
        target=target, start=start, steps=steps, start_variables=start_variables, start_aic=start_aic,
        final_variables=final, final_aic=current_aic, units=len(data), units_left_out=units_left_out,
        constant_predictors=constant, saturating_predictors=saturating, aic_rise_when_removed=rises, coefficients=coefficient_table(result),
        r_squared=float(result.rsquared), summary_text=summary,
        confounded_with_task=_fixed_by_task(data, usable), weights=weights, cluster=cluster, clusters=clusters,
        standard_errors=standard_errors_text(weights, cluster, clusters),
    )


def standard_errors_text(weights: str, cluster: str, clusters: int) -> str:
    """How the final model's standard errors were obtained, in words."""
    fitted = "weighted least squares by classified pairs per unit" if weights == "pairs" else "OLS"
    if cluster == "none":
        return f"units assumed independent ({fitted})"
    text = f"cluster-robust (CR1) by {cluster}, {clusters} clusters ({fitted})"
    return text + (f"; fewer than {FEW_CLUSTERS} clusters, so the intervals are too narrow"
                   if clusters < FEW_CLUSTERS else "")


def check_options(weights: str, cluster: str) -> None:
    """InvalidArgument for weights or a cluster that are not offered."""
    if weights not in WEIGHTS:
        raise InvalidArgument(f"unknown weights {weights!r}; choose one of {', '.join(WEIGHTS)}")
    if cluster not in CLUSTERS:
        raise InvalidArgument(f"unknown cluster {cluster!r}; choose one of {', '.join(CLUSTERS)}")


def coefficient_table(result: RegressionResultsWrapper) -> pd.DataFrame:
    """Coefficients with their 95% intervals and p-values, one row per term."""
    intervals = result.conf_int()
    return pd.DataFrame({
        "term": result.params.index, "coef": result.params.to_numpy(), "std_err": result.bse.to_numpy(),
        "p_value": result.pvalues.to_numpy(), "ci_low": intervals[0].to_numpy(), "ci_high": intervals[1].to_numpy(),
    })


def _fixed_by_task(data: pd.DataFrame, usable: Sequence[str]) -> list[str]:
    """Numeric predictors constant within every task, where some task holds several units."""
    if "task" not in data.columns or data["task"].nunique() < 2 or data["task"].nunique() == len(data):
        return []
    per_task = data.groupby("task")
    return [v for v in NUMERIC if v in usable and bool((per_task[v].nunique() <= 1).all())]


def fitted_effect(units: pd.DataFrame, result: StepwiseResult, variable: str, points: int = 40) -> pd.DataFrame:
    """Predicted target over the range of one numeric predictor, others held at their mean or most common level."""
    data = units.dropna(subset=[result.target, *result.final_variables])
    model = fit(data, result.target, result.final_variables, result.weights, result.cluster)
    grid = pd.DataFrame({variable: np.linspace(data[variable].min(), data[variable].max(), points)})
    for other in result.final_variables:
        if other != variable:
            grid[other] = data[other].mode().iloc[0] if other in CATEGORICAL else data[other].mean()
    predicted = model.get_prediction(grid).summary_frame(alpha=0.05)
    return pd.DataFrame({"value": grid[variable], "predicted": predicted["mean"].to_numpy(),
                         "ci_low": predicted["mean_ci_lower"].to_numpy(),
                         "ci_high": predicted["mean_ci_upper"].to_numpy()})


def stepwise_unit_table(units: pd.DataFrame, lengths: pd.DataFrame, dataset_id: str,
                        study: str) -> tuple[pd.DataFrame, int]:
    """The unit table from unit metrics (``unit_metrics_from_counts``) and unit lengths: one row per judge,
    candidate, task (repetitions pooled), and how many units were left out.

    Units without a classified pair (every pair failed to parse) are left out and counted.
    """
    if units.empty:
        raise NotFoundError(f"no classified pairs in study {study!r} of dataset {dataset_id!r}")
    table = units.merge(lengths, on=["judge", "candidate", "task"], how="left")[UNIT_COLUMNS]
    kept = table[table["classified"] > 0].reset_index(drop=True)
    return kept, len(table) - len(kept)


def check_target(target: str) -> None:
    """InvalidArgument for a target that is not one of ``TARGETS``."""
    if target not in TARGETS:
        raise InvalidArgument(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")


def plain_summary(result: StepwiseResult) -> str:
    """One or two sentences that say what drives the bias in this data."""
    label = result.target.replace("_", " ")
    if not result.final_variables:
        return (f"None of the factors explains {label} better than its average over the {result.units} units: "
                "no single factor lowers AIC.")
    ranked = sorted(result.aic_rise_when_removed.items(), key=lambda pair: -pair[1])
    leader, rise = ranked[0]
    others = [name.replace("_", " ") for name, _ in ranked[1:]]
    text = (f"Across {result.units} (judge, candidate, task) units, {label} is explained most by "
            f"{leader.replace('_', ' ')} (removing it raises AIC by {rise:.2f})")
    text += f", then by {', '.join(others)}." if others else "."
    text += f" The final model explains {result.r_squared:.0%} of the variation (R²)"
    text += ": a weak fit, so these factors leave most of the bias unexplained." if result.r_squared < 0.1 else "."
    if result.confounded_with_task:
        fixed = ", ".join(v.replace("_", " ") for v in result.confounded_with_task)
        several = len(result.confounded_with_task) > 1
        text += (f" Note: {fixed} {'are' if several else 'is'} fixed by the task here, so "
                 f"{'they' if several else 'it'} and the task are interchangeable.")
    return text
