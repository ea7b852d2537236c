"""CLI: ``metrics rubric`` (rubric position bias of a run) and ``export trials`` (a run's calls to a file)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from judgebias_core.analyses.rubric_view import RubricView, rubric_view, unmarked
from judgebias_core.cli.common import add_json_flag, emit, open_store, progress
from judgebias_core.errors import InvalidArgument
from judgebias_core.exports import csv_bytes
from judgebias_core.metrics.bias_cost_bootstrap import BiasCostRanking
from judgebias_core.metrics.rubric import WithinItemSpread
from judgebias_core.metrics.rubric_correlation import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CorrelationEstimate
from judgebias_core.metrics.rubric_geval import GEvalSummary
from judgebias_core.metrics.rubric_report import CANDIDATE_DESIGNS, RubricReport
from judgebias_core.store.rubric_queries import run_calls_for_export

EXPORT_FORMATS = ("csv", "jsonl", "parquet")


def _estimate(estimate: CorrelationEstimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {"pearson": estimate.pearson, "spearman": estimate.spearman, "pearson_ci": list(estimate.pearson_ci),
            "spearman_ci": list(estimate.spearman_ci), "n": estimate.n}


def _interval(interval: tuple[float, float]) -> list[float]:
    return [interval[0], interval[1]]


def exposure_payload(report: RubricReport) -> dict[str, Any]:
    exposure = report.exposure
    return {"design_balanced": exposure.design_balanced, "parsed_balanced": exposure.balanced,
            "counts": [list(row) for row in exposure.counts], "parsed": exposure.parsed,
            "max_deviation": exposure.max_deviation, "worst_score": exposure.worst_score,
            "worst_position": exposure.worst_position, "weighting": exposure.weighting}


def position_tests_payload(report: RubricReport) -> dict[str, Any]:
    tests = report.position_tests
    corrected = tests.corrected
    return {
        "weighting": tests.weighting, "items": tests.items, "test": tests.test_method,
        "correction": {"method": corrected.method, "name": corrected.method_name, "family_size": corrected.family_size,
                       "alpha": corrected.alpha},
        "positions": [
            {"position": p, "share": share.rate, "interval": [share.low, share.high], "interval_method": share.method,
             "degenerate": share.degenerate, "degenerate_reason": share.degenerate_reason,
             "design_effect": share.design_effect, "t": t, "p": raw, "corrected_p": fixed, "reject": reject}
            for p, (share, t, raw, fixed, reject) in enumerate(zip(
                tests.shares, tests.t_statistics, corrected.p_values, corrected.corrected, corrected.reject,
                strict=True), start=1)],
    }


def bias_cost_payload(costs: BiasCostRanking) -> dict[str, Any]:
    return {
        "defined": costs.defined, "reason": costs.reason, "k": costs.k, "interval_kind": costs.interval_kind,
        "resamples": costs.resamples, "seed": costs.seed, "confidence": costs.confidence, "items": costs.items,
        "few_items": costs.few_items, "stability": None if costs.stability != costs.stability else costs.stability,
        "tied_lowest": costs.tied_lowest,
        "orderings": [{"ordering": list(i.ordering), "bias_cost": i.bias_cost, "interval": [i.low, i.high],
                       "difference_from_recommended": i.difference,
                       "difference_interval": [i.difference_low, i.difference_high], "lowest_share": i.lowest_share}
                      for i in costs.intervals] or [{"ordering": list(c.ordering), "bias_cost": c.bias_cost}
                                                    for c in costs.ranking],
    }


def spread_payload(spread: WithinItemSpread | None) -> dict[str, Any] | None:
    if spread is None:
        return None
    return {"mean_sd": spread.mean_sd, "ddof": spread.ddof, "items": spread.items, "parsed_calls": spread.trials,
            "calls_per_item_min": spread.calls_per_item_min, "calls_per_item_max": spread.calls_per_item_max,
            "single_call_items": spread.single_call_items, "description": spread.description()}


def geval_payload(geval: GEvalSummary) -> dict[str, Any] | None:
    if not geval.available:
        return None
    return {
        "calls": geval.calls, "with_expected_score": geval.with_expected, "compared_calls": geval.compared,
        "expected_score_unparsed_calls": geval.expected_unparsed, "items": geval.items,
        "mean_expected_score": geval.mean_expected, "mean_parsed_score": geval.mean_parsed,
        "call_pearson_expected_vs_parsed": geval.call_pearson, "label_source": geval.label_source,
        "expected_vs_labels": _estimate(geval.expected_vs_labels), "parsed_vs_labels": _estimate(geval.parsed_vs_labels),
        "difference": _estimate(geval.difference), "interval_kind": geval.interval_kind,
        "bootstrap": {"resamples": geval.resamples, "seed": geval.seed, "confidence": geval.confidence},
        "position_pull": [{"position": p.position, "expected": p.expected, "expected_interval": _interval(p.expected_ci),
                           "expected_degenerate": p.expected_degenerate, "parsed": p.parsed,
                           "parsed_interval": _interval(p.parsed_ci), "parsed_degenerate": p.parsed_degenerate}
                          for p in geval.pulls],
        "position_pull_reason": geval.pull_reason,
    }


def report_payload(report: RubricReport) -> dict[str, Any]:
    """The JSON contract of ``metrics rubric`` (rates are fractions in [0, 1])."""
    share = report.position
    human = report.human
    return {
        "run_id": report.run.run_id, "dataset_id": report.run.dataset_id, "judge": report.run.judge,
        "protocol": report.run.protocol, "simulated": report.run.simulated, "rubric_id": report.run.rubric_id,
        "k": report.k, "scores": list(report.scores), "trials": report.trials, "parsed": report.parsed,
        "parse_failures": report.parse_failures, "no_reply": report.no_reply, "balanced": report.balanced,
        "exposure": exposure_payload(report), "position_tests": position_tests_payload(report),
        "position_share": list(share.shares), "position_counts": list(share.counts),
        "position_share_ci": [[low, high] for low, high in zip(share.ci_low, share.ci_high, strict=True)],
        "score_position": [list(row) if row is not None else None for row in report.score_position.rows],
        "score_position_counts": [list(row) for row in report.score_position.counts],
        "orderings": [
            {"ordering": list(o.ordering), "trials": o.trials, "parsed": o.parsed, "pearson": o.pearson,
             "spearman": o.spearman, "n": o.n, "rank": o.rank, "bias_cost": o.bias_cost, "canonical": o.canonical}
            for o in report.orderings
        ],
        "probe_run_id": report.probe_run_id,
        "recommended_ordering": None if report.recommended is None else {
            "ordering": list(report.recommended.ordering), "bias_cost": report.recommended.bias_cost,
            "correlation_rank": report.correlation_rank(report.recommended.ordering),
            "stability": report.bias_cost.stability},
        "bias_cost": bias_cost_payload(report.bias_cost),
        "within_item_sd": {
            "permutation": report.spread_permutation.mean_sd,
            "permutation_items": report.spread_permutation.items,
            "repeat": report.spread_repeat.mean_sd if report.spread_repeat else None,
            "repeat_items": report.spread_repeat.items if report.spread_repeat else None,
            "ddof": report.spread_permutation.ddof,
            "permutation_detail": spread_payload(report.spread_permutation),
            "repeat_detail": spread_payload(report.spread_repeat),
        },
        "repeat_run_id": report.repeat_run.run_id if report.repeat_run else None,
        "human_correlation": None if human is None else {
            "label_source": human.label_source, "permutation": _estimate(human.permutation),
            "repeat": _estimate(human.repeat), "difference": _estimate(human.difference),
            "bootstrap": {"resamples": human.resamples, "seed": human.seed, "confidence": human.confidence},
        },
        "geval": geval_payload(report.geval),
        "geval_reason": report.geval.reason,
    }


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or value != value else f"{value:.{digits}f}"


def _ci(interval: tuple[float, float]) -> str:
    return f"[{_fmt(interval[0])}, {_fmt(interval[1])}]"


def report_text(report: RubricReport) -> str:
    """A short human-readable summary of the same numbers."""
    share = report.position
    lines = [
        f"run {report.run.run_id} · judge {report.run.judge} · dataset {report.run.dataset_id}"
        + (" · SIMULATED judge" if report.run.simulated else ""),
        f"k={report.k} trials={report.trials} parsed={report.parsed} parse_failures={report.parse_failures} "
        f"no_reply={report.no_reply} balanced={report.balanced}",
        f"position share (n={share.n}): "
        + "  ".join(f"p{p}={_fmt(s)} [{_fmt(lo)}, {_fmt(hi)}]"
                    for p, (s, lo, hi) in enumerate(zip(share.shares, share.ci_low, share.ci_high, strict=True), 1)),
        recommendation_text(report),
    ]
    for o in report.orderings:
        lines.append(f"  {o.ordering} trials={o.trials} pearson={_fmt(o.pearson)} rank={o.rank} "
                     f"bias_cost={_fmt(o.bias_cost)}" + (" (canonical)" if o.canonical else ""))
    if report.human is not None:
        human = report.human
        for name, est in (("permutation", human.permutation), ("repeat", human.repeat)):
            if est is not None:
                lines.append(f"{name} vs {human.label_source}: pearson {_fmt(est.pearson)} {_ci(est.pearson_ci)} "
                             f"spearman {_fmt(est.spearman)} {_ci(est.spearman_ci)} n={est.n}")
    geval = report.geval
    if not geval.available:
        lines.append(f"G-Eval expected score: none ({geval.reason})")
    else:
        lines.append(f"G-Eval expected score on {geval.compared} calls: mean {_fmt(geval.mean_expected)} "
                     f"(parsed {_fmt(geval.mean_parsed)})")
        for name, est in (("expected", geval.expected_vs_labels), ("parsed", geval.parsed_vs_labels)):
            if est is not None:
                lines.append(f"  {name} vs {geval.label_source}: pearson {_fmt(est.pearson)} {_ci(est.pearson_ci)}")
    return "\n".join(lines)


def recommendation_text(report: RubricReport) -> str:
    best, costs = report.recommended, report.bias_cost
    if best is None:
        return f"no recommended ordering (probe {report.probe_run_id}): {costs.reason}"
    return (f"recommended ordering (probe {report.probe_run_id}): {list(best.ordering)} bias cost "
            f"{_fmt(best.bias_cost)}; lowest in {costs.stability:.0%} of {costs.resamples} item resamples "
            f"({costs.items} items)")


def _text(text: str | None) -> str | None:
    return None if text is None else unmarked(text)


def sentences_payload(view: RubricView) -> dict[str, Any]:
    """What the Rubric bias page says, word for word (without its bold marks): plain sentences and their rules."""
    balance = view.position.balance
    return {
        "position": view.position.sentence, "position_rule": view.position.decided,
        "balance": None if balance is None else balance.sentence,
        "never_chosen": view.never_chosen, "correlation": view.correlation.sentence, "spread": view.spread.sentence,
        "ordering_rank": _text(view.ordering_rank.sentence), "ordering_rank_rule": view.ordering_rank.decided,
        "bias_cost": unmarked(view.own_cost.sentence), "bias_cost_interval": view.own_cost.interval,
        "geval": _text(view.geval.sentence) or _text(view.geval.unavailable), "geval_rule": view.geval.decided,
    }


def probe_choice_payload(view: RubricView) -> dict[str, Any] | None:
    """The page's "probe, then choose" block: the recommendation only when stable, else why none."""
    if view.probe_error is not None:
        return {"error": str(view.probe_error)}
    choice = view.probe
    if choice is None:
        return None
    return {"probe_run_id": choice.probe_run_id, "candidates": choice.design, "candidates_name": choice.design_name,
            "recommended_ordering": choice.recommended, "sentence": choice.sentence, "rank": choice.rank,
            "interval": choice.interval, "interval_note": choice.interval_note, "empty": choice.empty,
            "orderings": [asdict(row) for row in choice.rows]}


def view_payload(view: RubricView) -> dict[str, Any]:
    """``report_payload`` and, as new keys, the view's sentences and the probe's choice (docs/JSON_CHANGELOG.md)."""
    return {**report_payload(view.report), "sentences": sentences_payload(view),
            "probe_choice": probe_choice_payload(view)}


def view_text(view: RubricView) -> str:
    lines = [report_text(view.report), unmarked(view.own_cost.sentence)]
    if view.probe_error is not None:
        lines.append(f"probe choice: {view.probe_error}")
    elif view.probe is not None:
        lines.append(f"probe choice ({view.probe.design_name}): {view.probe.empty or view.probe.sentence}")
    return "\n".join(lines)


def _metrics_rubric(args: argparse.Namespace) -> int:
    store = open_store(args)
    with store.reader() as reader:
        # The topic's view: what the Rubric bias page and the report draw, the probe's choice included.
        view = rubric_view(reader, args.run_id, args.repeat_run_id, args.probe_run_id, args.resamples, args.seed,
                           design=args.candidates)
    emit(args, view_payload(view), view_text(view))
    return 0


def export_frame(frame: pd.DataFrame, out: Path, file_format: str) -> None:
    """Write a run's calls as CSV (lists as JSON text, formula-like cells neutralised), JSON Lines or Parquet."""
    if file_format not in EXPORT_FORMATS:
        raise InvalidArgument(f"unknown export format {file_format!r}; use one of {', '.join(EXPORT_FORMATS)}")
    out.parent.mkdir(parents=True, exist_ok=True)
    if file_format == "parquet":
        frame.to_parquet(out, index=False)
    elif file_format == "jsonl":
        frame.to_json(out, orient="records", lines=True, date_format="iso", force_ascii=False)
    else:
        out.write_bytes(csv_bytes(frame))


def _export_trials(args: argparse.Namespace) -> int:
    store = open_store(args)
    with store.reader() as reader:
        frame = run_calls_for_export(reader, args.run_id, lists_as_json=args.format == "csv")
    out = Path(args.out)
    export_frame(frame, out, args.format)
    progress(f"wrote {len(frame):,} judge calls of run {args.run_id} to {out}")
    emit(args, {"run_id": args.run_id, "rows": len(frame), "format": args.format, "out": str(out)},
         f"{len(frame):,} rows -> {out}")
    return 0


def metrics_rubric_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-id", required=True, help="the permutation run to analyse")
    parser.add_argument("--repeat-run-id", help="the repeat (canonical ordering) run to compare against")
    parser.add_argument("--probe-run-id", help="estimate P(position | score) for Bias Cost on this run "
                        "(default: the analysed run); the probe the candidates are ranked under, as on the page")
    parser.add_argument("--candidates", choices=CANDIDATE_DESIGNS, default=CANDIDATE_DESIGNS[0],
                        help="the candidate orderings the probe ranks, as the Rubric bias page's 'Candidate "
                        "orderings': run (the analysed run's orderings), balanced, all, latin, reverse "
                        f"(default {CANDIDATE_DESIGNS[0]})")
    parser.add_argument("--resamples", type=int, default=BOOTSTRAP_RESAMPLES,
                        help=f"bootstrap resamples over items (default {BOOTSTRAP_RESAMPLES})")
    parser.add_argument("--seed", type=int, default=BOOTSTRAP_SEED, help=f"bootstrap seed (default {BOOTSTRAP_SEED})")
    add_json_flag(parser)
    parser.set_defaults(handler=_metrics_rubric)


def export_trials_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run-id", required=True, help="the run to export")
    parser.add_argument("--format", choices=EXPORT_FORMATS, default="csv", help="file format (default csv)")
    parser.add_argument("--out", required=True, help="the file to write")
    add_json_flag(parser)
    parser.set_defaults(handler=_export_trials)
