"""The "What drives the bias" topic's view: everything the Factors page, the report's factors section and
`analysis stepwise --json` show, built once from one store snapshot (issue 24: one view per topic)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from judgebias_core.analyses.stepwise import stepwise_units
from judgebias_core.metrics.stepwise import (
    CLUSTERS,
    NUMERIC,
    POST_SELECTION_NOTE,
    QUALITY_GAP_CAVEAT,
    TARGETS,
    WEIGHTS,
    Start,
    StepwiseResult,
    check_target,
    fitted_effect,
    plain_summary,
    stepwise_select,
)
from judgebias_core.metrics.stepwise_baseline import PERMUTATIONS, SEED, BoundBaseline, bound_baseline
from judgebias_core.metrics.stepwise_validation import CrossValidated, cross_validate
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.verdict import Verdict
from judgebias_core.wording.verdict_factors import factors_verdict

__all__ = ["CLUSTERS", "NUMERIC", "TARGETS", "WEIGHTS", "FactorsView", "factors_view", "factors_views"]

TARGET_LABELS = {"position_consistency": "Position consistency", "preference_fairness": "Preference fairness"}


def words(name: str) -> str:
    """A predictor or target as a reader names it ("quality gap", not "quality_gap")."""
    return name.replace("_", " ")


@dataclass(frozen=True)
class FactorsView:
    """What a reader sees of one stepwise selection: the selection over the (judge, candidate, task) units of one
    study, the unit table, the quality gap's bound baseline and the out-of-sample check, the verdict, the summary,
    what was set aside, and in place of a path of one dot, the sentence saying the start model was kept. The
    coefficients' p-values are post-selection (no correction family applies; the cross-validation stands in)."""

    dataset_id: str
    study: str
    target: str
    start: str
    weights: str
    cluster: str
    result: StepwiseResult
    units: pd.DataFrame
    baseline: BoundBaseline | None
    validation: CrossValidated | None
    judges: tuple[str, ...]
    verdict: Verdict
    summary: str
    path_sentence: str | None  # no step changed the model: a sentence instead of a chart with one dot
    set_aside: str | None
    confounded: str | None
    fitted_effects: tuple[tuple[str, pd.DataFrame], ...]  # numeric predictors kept: fitted line over their range
    quality_gap_caveat: str = QUALITY_GAP_CAVEAT
    post_selection_note: str = POST_SELECTION_NOTE

    @property
    def target_label(self) -> str:
        return words(self.target)


def path_sentence(result: StepwiseResult) -> str:
    """What a stepwise path without a step says, in place of a chart with one dot."""
    start = ", ".join(words(v) for v in result.start_variables) or "no factor (intercept only)"
    return (f"Stepwise path for {words(result.target)}: no step changed the model; it stays at its start, {start} "
            f"(AIC {result.final_aic:.1f}).")


def _set_aside(result: StepwiseResult) -> str | None:
    parts = [f"{', '.join(map(words, result.constant_predictors))} (the same in every unit)"] \
        if result.constant_predictors else []
    if result.saturating_predictors:
        parts.append(f"{', '.join(map(words, result.saturating_predictors))} (one level per unit: it would fit every "
                     "unit exactly, leaving nothing to compare AIC on)")
    return "Not offered to the model: " + "; ".join(parts) + "." if parts else None


def _view(units: pd.DataFrame, left_out: int, dataset_id: str, study: str, target: str, start: Start, weights: str,
          cluster: str, permutations: int, seed: int) -> FactorsView:
    result = stepwise_select(units, target, start=start, units_left_out=left_out, weights=weights, cluster=cluster)
    baseline = bound_baseline(units, result, permutations, seed) if permutations else None
    confounded = (f"Nearly collinear predictors: {', '.join(map(words, result.confounded_with_task))} is the same "
                  "for every unit of a task here, so the task and it explain the same thing; which of them the steps "
                  "keep is arbitrary.") if result.confounded_with_task else None
    return FactorsView(
        dataset_id=dataset_id, study=study, target=target, start=start, weights=weights, cluster=cluster,
        result=result, units=units, baseline=baseline, validation=cross_validate(units, result),
        judges=tuple(sorted(units["judge"].astype(str).unique())) if "judge" in units else (),
        verdict=factors_verdict(result, baseline), summary=plain_summary(result),
        path_sentence=None if result.steps else path_sentence(result), set_aside=_set_aside(result),
        confounded=confounded,
        fitted_effects=tuple((v, fitted_effect(units, result, v)) for v in result.final_variables if v in NUMERIC))


def factors_view(reader: StoreReader, dataset_id: str, study: str, target: str, start: Start = "empty",
                 weights: str = "none", cluster: str = "none", permutations: int = PERMUTATIONS,
                 seed: int = SEED) -> FactorsView:
    """Stepwise selection of ``target`` over the units of one (dataset, study); ``weights`` "pairs" for WLS by
    classified pairs, ``cluster`` for cluster-robust standard errors of the final model; the bound baseline from
    ``permutations`` shuffles (0: none)."""
    return factors_views(reader, dataset_id, study, (target,), start, weights, cluster, permutations, seed)[0]


def factors_views(reader: StoreReader, dataset_id: str, study: str, targets: Sequence[str] = TARGETS,
                  start: Start = "empty", weights: str = "none", cluster: str = "none",
                  permutations: int = PERMUTATIONS, seed: int = SEED) -> list[FactorsView]:
    """One view per target from one unit table (as the report shows both targets)."""
    for target in targets:
        check_target(target)
    units, left_out = stepwise_units(reader, dataset_id, study)
    return [_view(units, left_out, dataset_id, study, target, start, weights, cluster, permutations, seed)
            for target in targets]
