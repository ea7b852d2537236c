"""CLI: analysis stepwise (what drives position bias: bidirectional stepwise OLS on AIC)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from judgebias_core.analyses.stepwise import stepwise_units
from judgebias_core.cli.common import CommandGroups, add_json_flag, db_path, emit, progress
from judgebias_core.metrics.stepwise import TARGETS, StepwiseResult, plain_summary, stepwise_select
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import dataset_summary
from judgebias_core.store.schema import migrate


def stepwise_payload(result: StepwiseResult) -> dict[str, Any]:
    """The JSON object of one stepwise analysis (the CLI contract plus the final model)."""
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
        "summary": plain_summary(result),
    }


def _text(result: StepwiseResult) -> str:
    lines = [f"start ({result.start}): {', '.join(result.start_variables) or '(intercept only)'}, "
             f"AIC {result.start_aic:.2f}"]
    lines += [f"{n}. {s.action} {s.variable}: AIC {s.aic_before:.2f} -> {s.aic_after:.2f}"
              for n, s in enumerate(result.steps, start=1)]
    lines.append(f"final: {', '.join(result.final_variables) or '(intercept only)'}, AIC {result.final_aic:.2f}, "
                 f"{result.units} units ({result.units_left_out} left out)")
    lines.append(plain_summary(result))
    return "\n".join(lines)


def _stepwise(args: argparse.Namespace) -> int:
    path = db_path(args)
    migrate(path)
    with Store(path).reader() as reader:
        dataset_summary(reader, args.dataset)  # NotFoundError for an unknown dataset
        units, left_out = stepwise_units(reader, args.dataset, args.study)
    result = stepwise_select(units, args.target, start=args.start, units_left_out=left_out)
    if args.export_units:
        units.to_csv(args.export_units, index=False)
        progress(f"unit table ({len(units)} rows) written to {args.export_units}")
    emit(args, stepwise_payload(result), _text(result))
    return 0


def register(groups: CommandGroups) -> None:
    analysis = groups.root.add_parser("analysis", help="model-based analyses of the stored judgments").add_subparsers(
        dest="analysis", metavar="ANALYSIS", required=True)
    parser = analysis.add_parser(
        "stepwise", help="bidirectional stepwise OLS on AIC: which of judge, candidate, task, quality gap and "
        "lengths explain position consistency or preference fairness over (judge, candidate, task) units")
    parser.add_argument("--dataset", required=True, help="dataset id")
    parser.add_argument("--study", default="full", help="study (default full; a run id for engine runs)")
    parser.add_argument("--target", required=True, choices=TARGETS, help="what to explain")
    parser.add_argument("--start", choices=("empty", "full"), default="empty", help="starting model (default empty)")
    parser.add_argument("--export-units", metavar="PATH.csv", help="write the unit table the fit used to this CSV")
    add_json_flag(parser)
    parser.set_defaults(handler=_stepwise)
