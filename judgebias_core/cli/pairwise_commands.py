"""CLI: metrics pairwise, metrics repetition, metrics listwise, gate (flip-rate check for CI pipelines)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

import pandas as pd

from judgebias_core.analyses.pairwise import (
    judge_flip_rate_bound,
    listwise_metrics,
    repetition_metrics,
)
from judgebias_core.cli.common import add_json_flag, emit, open_store
from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.pairwise_family import correction_words, dataset_families
from judgebias_core.stats.multiple import Correction
from judgebias_core.stats.position_test import TIE_RULE
from judgebias_core.stats.settings import GATE_RESAMPLES, SEED
from judgebias_core.store.queries import dataset_summary

TEXT_COLUMNS = ["dataset", "study", "judge", "repetition", "pairs", "failed_pairs", "position_consistency",
                "flip_rate", "flip_rate_decision_high", "flip_rate_decision_method", "design_effect",
                "flip_rate_ci_high", "first_slot_share", "position_p", "position_p_corrected", "family_size",
                "preference_fairness", "preference_fairness_scaled", "flip_rate_excess", "flip_rate_excess_low",
                "flip_rate_excess_high"]
_CORRECTIONS: dict[str, Correction] = {"holm": "holm", "bh": "fdr_bh", "none": "none"}


def _text_table(rows: list[dict], columns: list[str] | None = None) -> str:
    if not rows:
        return "no matching judge calls in the store"
    frame = pd.DataFrame(rows)
    return frame[columns or list(frame.columns)].to_string(index=False, float_format=lambda v: f"{v:.4f}")


def _scoped_results(args: argparse.Namespace, compute: Callable[..., Sequence[Any]]) -> Sequence[Any]:
    """``compute(reader, dataset, judges, study)`` on one reader; an unknown dataset is a NotFoundError (exit 2)."""
    store = open_store(args)
    with store.reader() as reader:
        if args.dataset:
            dataset_summary(reader, args.dataset)
        return compute(reader, args.dataset, args.judge, args.study)


def _metric_handler(compute: Callable[..., Sequence[object]],
                    columns: list[str] | None = None) -> Callable[[argparse.Namespace], int]:
    """A handler that prints one row per result of ``compute(reader, dataset, judges, study)``."""

    def handler(args: argparse.Namespace) -> int:
        results = _scoped_results(args, compute)
        rows = [asdict(r) for r in results]
        emit(args, rows, _text_table(rows, columns))
        return 0

    return handler


def _pairwise(args: argparse.Namespace) -> int:
    """metrics pairwise: every row, with its position test corrected over the family of rows printed."""
    # Imported here: the view carries verdicts, whose wording module loads scipy.stats; the gate, in this module
    # too, must stay light (tests/test_wilson.py).
    from judgebias_core.analyses.pairwise_view import pairwise_view  # noqa: PLC0415

    store = open_store(args)
    with store.reader() as reader:
        if args.dataset:
            dataset_summary(reader, args.dataset)
        # The topic's view (what the Pairwise bias page and the report draw), without the page's detail parts.
        view = pairwise_view(reader, args.dataset, (args.study,) if args.study else None, args.judge,
                             correction=_CORRECTIONS[args.correction], details=False)
    rows = view.json_rows()
    family = view.family
    # Each dataset's own family (what the Pairwise bias page corrects in its default view), beside the printed one.
    own = dataset_families(list(view.results), family.method)
    text = _text_table(rows, TEXT_COLUMNS)
    if rows:
        text += (f"\nposition_p: the position test (symmetric, {TIE_RULE}, items clustered); corrected with "
                 f"{correction_words(family)}. binomial_p and mcnemar_p (JSON) assume pairs independent.")
        if len(own) > 1:
            sizes = ", ".join(f"{d} {f.family_size}" for d, f in own.items())
            text += (f"\nThe family above spans {len(own)} datasets ({family.family_size} tests); the Pairwise bias "
                     f"page corrects one dataset at a time ({sizes} tests), so its corrected p-values are no larger: "
                     "JSON position_p_corrected_in_dataset and dataset_family_size give them.")
    emit(args, rows, text)
    return 0


def _compare(args: argparse.Namespace) -> int:
    # Imported here: the view carries a verdict, whose wording module loads scipy.stats; the gate must stay light.
    from judgebias_core.analyses.pairwise_compare_view import pairwise_compare_view  # noqa: PLC0415

    store = open_store(args)
    with store.reader() as reader:
        dataset_summary(reader, args.dataset)
        view = pairwise_compare_view(reader, args.dataset, args.study, args.judge_a, args.judge_b, args.repetition)
    # The view the Pairwise bias page reads: its plain reading first, then how it was decided.
    emit(args, view.payload(), "\n".join([view.sentence, "", "How this was decided:", *view.method]))
    return 0


_BOUND_NAMES = {"clustered": "item-clustered", "wilson": "Wilson (pairs assumed independent)"}


def _gate(args: argparse.Namespace) -> int:
    store = open_store(args)
    resamples = args.resamples if args.resamples is not None else GATE_RESAMPLES
    if resamples < 100:
        raise InvalidArgument(f"--resamples must be at least 100 (got {resamples})")
    with store.reader() as reader:
        dataset_summary(reader, args.dataset)  # raises NotFoundError (exit 2) for an unknown dataset
        bound = judge_flip_rate_bound(reader, args.dataset, args.study, args.judge, args.bound, resamples, args.seed)
    decision = bound.decision(args.max_flip_rate)
    passed = decision == "pass"
    verdict = {"pass": "pass", "fail": "FAIL", "too close to call": "TOO CLOSE TO CALL"}[decision]
    comparison = {"pass": "<=", "fail": ">", "too close to call": "~"}[decision]
    line = (f"{verdict}: {args.judge} on {args.dataset}/{args.study}: flip rate {bound.rate:.4f} "
            f"({bound.flips} of {bound.classified} pairs over {bound.items} items, design effect "
            f"{bound.design_effect:.2f}), {_BOUND_NAMES[bound.rule]} {bound.level_words} {bound.upper:.4f} "
            f"[{bound.method}] {comparison} max {args.max_flip_rate:.4f}")
    if bound.resamples:
        low, high = bound.upper_band
        line += (f"; Monte Carlo error of the bound over seeds: {low:.4f} to {high:.4f} (99% of seeds, "
                 f"{bound.resamples:,} resamples, seed {bound.seed})")
    if decision == "too close to call":
        line += (f". The threshold lies inside that range: another seed could decide the other way, so the gate "
                 f"does not pass; rerun with more --resamples (e.g. {resamples * 4:,}) to decide")
    if bound.degenerate_reason:
        line += f" ({bound.degenerate_reason})"
    if bound.warning:
        line += f" Warning: {bound.warning}."
    payload = {"dataset": args.dataset, "study": args.study, "judge": args.judge, "pairs": bound.classified,
               "items": bound.items, "flips": bound.flips, "flip_rate": bound.rate, "bound": bound.upper,
               "bound_method": bound.method, "bound_rule": bound.rule, "design_effect": bound.design_effect,
               "bound_one_sided_level": bound.one_sided_level, "confidence": bound.confidence,
               "bound_monte_carlo_range": list(bound.upper_band), "resamples": bound.resamples, "seed": bound.seed,
               "clustered_upper": bound.clustered_upper, "wilson_upper_pairs_assumed_independent": bound.wilson_upper,
               "degenerate_reason": bound.degenerate_reason, "warning": bound.warning,
               "max_flip_rate": args.max_flip_rate, "decision": decision, "passed": passed}
    emit(args, payload, line)
    if not passed and args.json:
        print(line, file=sys.stderr)
    return 0 if passed else 1


def _add_scope(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", help="only this dataset id")
    parser.add_argument("--judge", action="append", help="only this judge (repeatable)")
    parser.add_argument("--study", help="only this study (full, repetition, or a run id)")
    add_json_flag(parser)


def metrics_pairwise_arguments(parser: argparse.ArgumentParser) -> None:
    _add_scope(parser)
    parser.add_argument("--correction", choices=sorted(_CORRECTIONS), default="holm",
                        help="how the position and excess tests of the rows printed are corrected together: holm "
                        "(default, family-wise error), bh (Benjamini-Hochberg, false discovery rate) or none")
    parser.set_defaults(handler=_pairwise)


def metrics_pairwise_compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True, help="dataset id")
    parser.add_argument("--study", default="full", help="study (default full; a run id for engine runs)")
    parser.add_argument("--judge-a", required=True, help="first judge (the difference is a minus b)")
    parser.add_argument("--judge-b", required=True, help="second judge")
    parser.add_argument("--repetition", type=int, help="only this repetition (default: all, an item's pairs of every "
                        "repetition resampled together)")
    add_json_flag(parser)
    parser.set_defaults(handler=_compare)


def metrics_repetition_arguments(parser: argparse.ArgumentParser) -> None:
    _add_scope(parser)
    parser.set_defaults(handler=_metric_handler(repetition_metrics))


def metrics_listwise_arguments(parser: argparse.ArgumentParser) -> None:
    _add_scope(parser)
    parser.set_defaults(handler=_metric_handler(listwise_metrics))


def gate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True, help="dataset id")
    parser.add_argument("--judge", required=True, help="judge name")
    parser.add_argument("--max-flip-rate", required=True, type=float, help="largest acceptable flip rate, in [0, 1]")
    parser.add_argument("--study", default="full", help="study (default full; a run id for engine runs)")
    parser.add_argument("--bound", choices=sorted(_BOUND_NAMES), default="clustered",
                        help="which upper bound decides: clustered (default; items resampled, pairs of an item "
                        "are not independent) or wilson (the earlier rule, pairs assumed independent)")
    parser.add_argument("--resamples", type=int, default=None,
                        help=f"item bootstrap resamples of the clustered bound (default {GATE_RESAMPLES:,}; more "
                        "narrows the Monte Carlo error that can make a case too close to call)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"bootstrap seed (default {SEED})")
    add_json_flag(parser)
    parser.set_defaults(handler=_gate)
