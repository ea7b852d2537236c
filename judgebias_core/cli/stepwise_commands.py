"""CLI: analysis stepwise (what drives position bias: bidirectional stepwise OLS on AIC)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from judgebias_core.analyses.factors_view import FactorsView, factors_view
from judgebias_core.cli.common import add_json_flag, emit, open_store, progress
from judgebias_core.metrics.stepwise import (
    CLUSTERS,
    POST_SELECTION_NOTE,
    TARGETS,
    WEIGHTS,
    StepwiseResult,
    plain_summary,
)
from judgebias_core.metrics.stepwise_baseline import PERMUTATIONS, SEED, BoundBaseline
from judgebias_core.store.queries import dataset_summary


def stepwise_payload(view: FactorsView) -> dict[str, Any]:
    """The JSON object of one stepwise analysis (the CLI contract plus the final model and the bound baseline)."""
    result, baseline, validation = view.result, view.baseline, view.validation
    return {
        "target": result.target, "start": result.start,
        "steps": [asdict(step) for step in result.steps],
        "final_variables": result.final_variables, "final_aic": result.final_aic,
        "units": result.units, "units_left_out": result.units_left_out,
        "start_variables": result.start_variables, "start_aic": result.start_aic,
        "aic_rise_when_removed": result.aic_rise_when_removed, "r_squared": result.r_squared,
        "constant_predictors": result.constant_predictors, "saturating_predictors": result.saturating_predictors,
        "confounded_with_task": result.confounded_with_task,
        "coefficients": result.coefficients.to_dict(orient="records"),
        "summary": view.summary,
        "weights": result.weights, "cluster": result.cluster, "clusters": result.clusters,
        "standard_errors": result.standard_errors, "coefficients_are_post_selection": True,
        "post_selection_note": view.post_selection_note, "quality_gap_caveat": view.quality_gap_caveat,
        "bound_baseline": asdict(baseline) if baseline is not None else None,
        "cross_validation": ({**asdict(validation),
                              "improvement_over_intercept": validation.improvement_over_intercept}
                             if validation is not None else None),
    }


def _text(result: StepwiseResult, baseline: BoundBaseline | None) -> str:
    lines = [f"start ({result.start}): {', '.join(result.start_variables) or '(intercept only)'}, "
             f"AIC {result.start_aic:.2f}"]
    lines += [f"{n}. {s.action} {s.variable}: AIC {s.aic_before:.2f} -> {s.aic_after:.2f}"
              for n, s in enumerate(result.steps, start=1)]
    lines.append(f"final: {', '.join(result.final_variables) or '(intercept only)'}, AIC {result.final_aic:.2f}, "
                 f"{result.units} units ({result.units_left_out} left out)")
    lines.append(plain_summary(result))
    lines.append(f"standard errors: {result.standard_errors}; {POST_SELECTION_NOTE}")
    if baseline is not None:
        lines.append(f"quality gap bound baseline ({baseline.permutations} shuffles of the quality margins): the gap "
                     f"lowers AIC by {baseline.observed_aic_gain:.2f}; the bound alone by "
                     f"{baseline.null_aic_gain_mean:.2f} on average (95th percentile "
                     f"{baseline.null_aic_gain_high:.2f}; permutation p {baseline.permutation_p:.3f})")
    return "\n".join(lines)


def _stepwise(args: argparse.Namespace) -> int:
    store = open_store(args)
    with store.reader() as reader:
        dataset_summary(reader, args.dataset)  # NotFoundError for an unknown dataset
        view = factors_view(reader, args.dataset, args.study, args.target, args.start, args.weights, args.cluster,
                            args.bound_permutations, args.seed)
    if args.export_units:
        view.units.to_csv(args.export_units, index=False)
        progress(f"unit table ({len(view.units)} rows) written to {args.export_units}")
    emit(args, stepwise_payload(view), _text(view.result, view.baseline))
    return 0


def analysis_arguments(parser: argparse.ArgumentParser) -> None:
    analysis = parser.add_subparsers(
        dest="analysis", metavar="ANALYSIS", required=True)
    parser = analysis.add_parser(
        "stepwise", help="bidirectional stepwise OLS on AIC: which of judge, candidate, task, quality gap and "
        "lengths explain position consistency or preference fairness over (judge, candidate, task) units")
    parser.add_argument("--dataset", required=True, help="dataset id")
    parser.add_argument("--study", default="full", help="study (default full; a run id for engine runs)")
    parser.add_argument("--target", required=True, choices=TARGETS, help="what to explain")
    parser.add_argument("--start", choices=("empty", "full"), default="empty", help="starting model (default empty)")
    parser.add_argument("--weights", choices=WEIGHTS, default="none",
                        help="'pairs': weighted least squares by classified pairs per unit (default none: OLS)")
    parser.add_argument("--cluster", choices=CLUSTERS, default="none",
                        help="cluster-robust standard errors of the final model by task, judge or candidate "
                             "(default none: units assumed independent)")
    parser.add_argument("--bound-permutations", type=int, default=PERMUTATIONS,
                        help="shuffles of the quality margins for the quality-gap bound baseline (0: skip)")
    parser.add_argument("--seed", type=int, default=SEED, help="seed of the shuffles")
    parser.add_argument("--export-units", metavar="PATH.csv", help="write the unit table the fit used to this CSV")
    add_json_flag(parser)
    parser.set_defaults(handler=_stepwise)
