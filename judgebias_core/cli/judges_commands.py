"""CLI: metrics calibration, agreement, verbosity and leaderboard (judges compared with each other and with people)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from judgebias_core.analyses.calibration_view import calibration_view
from judgebias_core.analyses.judges import agreement_report
from judgebias_core.analyses.judges_view import judges_view
from judgebias_core.analyses.leaderboard_view import leaderboard_view
from judgebias_core.analyses.other_biases_view import other_biases_view
from judgebias_core.analyses.ppi_view import ppi_view
from judgebias_core.cli.common import add_json_flag, db_path, emit
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.calibration import PairwiseCalibration, RubricCalibration
from judgebias_core.metrics.leaderboard import DEFAULT_RESAMPLES, DEFAULT_SEED
from judgebias_core.metrics.ppi import (
    DEFAULT_MIN_LABELS,
    FEW_LABELS,
    PredictionPoweredMeanScore,
    labels_worth_sentence,
)
from judgebias_core.metrics.verbosity import CLUSTERS, CONTROLS, verbosity_frame
from judgebias_core.stats.multiple import CorrectedTests
from judgebias_core.store.agreement_queries import pairwise_studies
from judgebias_core.store.handle import Store, StoreReader

PPI_HELP = ("prediction-powered estimate from judge calls plus a fraction of human labels: a candidate's human win "
            "rate (pairwise) or the human mean score (rubric)")
CORRELATIONS = ("pearson", "spearman", "kendall", "item_pearson", "item_spearman", "item_kendall")


def rubric_payload(result: RubricCalibration) -> dict[str, Any]:
    """Flat JSON of a rubric calibration: each coefficient a number, with ``_ci_low``, ``_ci_high`` and ``_ci``."""
    payload = {k: v for k, v in asdict(result).items() if k not in CORRELATIONS}
    for name in ("kappa", "weighted_kappa"):
        payload[f"{name}_ci"] = [payload[f"{name}_ci_low"], payload[f"{name}_ci_high"]]
    for name in CORRELATIONS:
        correlation = getattr(result, name)
        payload.update({name: correlation.statistic, f"{name}_ci_low": correlation.ci_low,
                        f"{name}_ci_high": correlation.ci_high, f"{name}_ci": [correlation.ci_low, correlation.ci_high],
                        f"{name}_p": correlation.p_value, f"{name}_n": correlation.n,
                        f"{name}_interval": correlation.method})
    return payload


def _calibration_text(result: PairwiseCalibration | RubricCalibration) -> str:
    if isinstance(result, RubricCalibration):
        readings = [result.human_agreement_reading, result.human_pairwise_kappa_reading]
        return "\n".join(
            [f"{result.judge} on {result.dataset_id} vs {result.label_source} labels: n={result.n} calls "
             f"({result.items} items; runs {', '.join(result.pooled_runs)}), kappa={result.kappa:.3f} "
             f"[{result.kappa_ci_low:.3f}, {result.kappa_ci_high:.3f}], quadratic kappa={result.weighted_kappa:.3f} "
             f"[{result.weighted_kappa_ci_low:.3f}, {result.weighted_kappa_ci_high:.3f}], "
             f"pearson={result.pearson.statistic:.3f}, spearman={result.spearman.statistic:.3f}, "
             f"kendall={result.kendall.statistic:.3f} (intervals: item-bootstrap)"]
            + [f"  human ceiling: {reading}" for reading in readings if reading])
    lines = [f"{result.judge} on {result.dataset_id} vs {result.label_source} labels ({result.pairs} pairs)"]
    for name in ("original", "swapped", "swap_aggregated"):
        table = getattr(result, name)
        lines.append(f"  {name:<16} n={table.n:<6} accuracy={table.accuracy:.4f} kappa={table.kappa:.4f}")
    lines.append(f"  correct in both orders: {result.both_orders_correct} of {result.pairs} "
                 f"({result.both_orders_correct_rate:.4f}); position consistency {result.position_consistency:.4f} "
                 f"({result.consistent_pairs} of {result.pairs - result.failed_pairs})")
    return "\n".join(lines)


def _calibration(args: argparse.Namespace) -> int:
    with Store(db_path(args)).reader() as reader:
        result = calibration_view(reader, args.dataset, args.judge, args.study, args.all_runs).result
    payload = rubric_payload(result) if isinstance(result, RubricCalibration) else result
    emit(args, payload, _calibration_text(result))
    return 0


def _agreement(args: argparse.Namespace) -> int:
    with Store(db_path(args)).reader() as reader:
        view = judges_view(reader, args.dataset, args.study, args.repetition)
    result = view.result
    text = "\n".join(
        [f"{len(result.judges)} judges over {result.instances} calls; studies {', '.join(result.studies)}"]
        + [f"  {p.a} / {p.b}: {p.agreement:.4f} of {p.n} · without ties {p.agreement_without_ties:.4f} of "
           f"{p.n_without_ties}" + (f" · kappa {p.kappa.estimate:.4f} [{p.kappa.low:.4f}, {p.kappa.high:.4f}]"
                                    if p.kappa is not None else "")
           for p in result.pairs + result.ensemble_pairs]
        + ([f"Krippendorff's alpha (nominal) {result.krippendorff_alpha.estimate:.4f} "
            f"[{result.krippendorff_alpha.low:.4f}, {result.krippendorff_alpha.high:.4f}] "
            f"({result.krippendorff_alpha.method})"] if result.krippendorff_alpha is not None else [])
        + ([f"effective judges {result.effective_judges.effective:.2f} of {len(result.effective_judges.judges)}"]
           if result.effective_judges is not None else [])
        + [f"ensemble rows: {result.ensemble_comparison}"]
        + list(view.sentences)
    )
    # The result's fields as before, then what the Judges page and the report say of it (issue 24).
    emit(args, asdict(result) | {
        "verdict": view.verdict, "sentences": list(view.sentences), "scope_sentence": view.scope_sentence,
        "studies_note": view.studies_note, "kappa_note": view.kappa_note, "alpha_note": view.alpha_note,
        "family_sentence": view.family_sentence, "disagreement_sentence": view.disagreement_sentence,
        "too_few_judges": view.too_few_judges}, text)
    return 0


def _ppi(args: argparse.Namespace) -> int:
    with Store(db_path(args)).reader() as reader:
        # The view the Calibration page and the report read: the plain reading comes first in the text, and
        # --json adds its keys to the result's own.
        view = ppi_view(reader, args.dataset, args.judge, args.candidate, args.rubric, args.study,
                        args.label_fraction, args.seed, args.method, args.labels == "stored")
    result = view.result
    e = result.estimate
    if isinstance(result, PredictionPoweredMeanScore):
        raters = str(result.raters_min) if result.raters_min == result.raters_max \
            else f"{result.raters_min}-{result.raters_max}"
        head = (f"human mean score on {result.rubric_id} ({result.label_source} labels, {raters} raters per item "
                f"averaged), {result.dataset_id}, judge {view.who} "
                f"(runs {', '.join(result.runs)}; {result.calls} parsed calls averaged per item)")
        everything = (f"all labels: {result.all_labels_human_mean:.4f}" if result.all_labels_human_mean is not None
                      else f"labels as stored ({result.sampling})")
    else:
        head = f"{result.candidate}'s human win rate on {result.dataset_id}, judge {view.who}"
        everything = f"all human labels: {result.all_labels_human_win_rate:.4f}"
    text = "\n".join(
        [view.sentence, "", f"{head}: {result.labelled} of {result.items} items' labels "
         + ("as stored" if result.seed is None else f"kept (seed {result.seed})")]
        + [f"  {row.method:<10} {row.estimate:.4f} [{row.low:.4f}, {row.high:.4f}]  {row.label}"
           for row in (e.ppi, e.human_only, e.judge_only)]
        + [f"  {everything}; PPI++ tuning {e.tuning:.3f}; interval: {e.interval}",
           f"  {labels_worth_sentence(e)}"]
        + ([f"  caution: {result.caveat}"] if result.caveat else []))
    emit(args, asdict(result) | view.json_keys(), text)
    return 0


def _default_studies(reader: StoreReader, args: argparse.Namespace) -> list[str]:
    if args.study:
        return list(args.study)
    return pairwise_studies(reader, args.dataset)["study"].tolist()[:1]


def _corrected_line(tests: CorrectedTests) -> str:
    return ", ".join(f"{label} {p:.3g}" for label, p in zip(tests.labels, tests.corrected, strict=True))


def _verbosity(args: argparse.Namespace) -> int:
    with Store(db_path(args)).reader() as reader:
        studies = _default_studies(reader, args)
        judges = args.judge or [*agreement_report(reader, args.dataset, studies).judges, ENSEMBLE_JUDGE]
        view = other_biases_view(reader, args.dataset, studies, judges, args.cluster, args.control,
                                 with_self_preference=False)
    report = view.report
    # The report's and the page's default families beside the family of the judges printed (issue 24).
    emit(args, {"dataset": args.dataset, "studies": studies, "judges": report.judges, "cluster": report.cluster,
                "control": report.control, "tests": report.tests, "family": view.verbosity_family,
                "report_family_tests": view.report_tests, "page_family_tests": view.page_tests},
         verbosity_frame(report.judges).round(4).to_string(index=False)
         + "\n" + "\n".join(f"{r.judge}: slope {report.reading(r.judge)}" for r in report.judges)
         + f"\ncorrected p in the report's family: {_corrected_line(view.report_tests)}"
         + f"\ncorrected p in the page's default family: {_corrected_line(view.page_tests)}")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    with Store(db_path(args)).reader() as reader:
        # The topic's view (what the Leaderboard page and the report draw); its board is the JSON.
        board = leaderboard_view(reader, args.dataset, _default_studies(reader, args), args.judge, args.resamples,
                                 args.seed).board
    columns = ["rank_win_rate", "candidate", "pairs", "win_rate", "win_rate_ci_low", "win_rate_ci_high", "strength",
               "rank_strength", "rank_first_slot", "rank_second_slot", "order_holds_share", "order_holds_call",
               "position_artefact"]
    emit(args, board, board.frame()[columns].round(4).to_string(index=False)
         + f"\nflip rate {board.flip_rate:.4f}, top of its item-clustered two-sided 95% interval (one-sided 97.5% "
           f"upper bound) {board.flip_rate_clustered_high:.4f} ({board.flip_bound_method}); top two within it: "
           f"{board.top_two_within_flip_bound}"
         + f"\nneighbour orders unsure (position_artefact, on the upper row): {board.flagged_pairs} of "
           f"{board.neighbour_pairs} ({board.pairs_changing_with_presentation} change with presentation, "
           f"{board.pairs_not_separated} not shown to hold in 95% of resamples, {board.pairs_too_close_to_call} of "
           f"them too close to call; {board.orders_established_holm} established "
           "after Holm)"
         + (f"\nseparation: {board.separation_note}; strengths rest on the ridge penalty ({board.ridge})"
            if board.separation_note else "")
         + (f"\ncaution: {board.interval_warning}" if board.interval_warning else ""))
    return 0


def metrics_calibration_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True, help="dataset id (e.g. autoj, summeval)")
    parser.add_argument("--judge", required=True, help="judge name as stored")
    parser.add_argument("--study", help="study or run id (default: the judge's first run on the dataset)")
    parser.add_argument("--all-runs", action="store_true",
                        help="pool every run of the judge on the dataset (named in pooled_runs)")
    add_json_flag(parser)
    parser.set_defaults(handler=_calibration)


def metrics_agreement_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True, help="dataset id")
    parser.add_argument("--study", action="append", required=True,
                        help="study or run id (repeatable: judges run separately can be compared)")
    parser.add_argument("--repetition", type=int, help="only this repetition (default: all)")
    add_json_flag(parser)
    parser.set_defaults(handler=_agreement)


def metrics_ppi_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True,
                        help="dataset with human labels: pairwise preferences (e.g. autoj) or rubric scores "
                             "(e.g. summeval)")
    parser.add_argument("--judge", required=True, help=f"judge name, or '{ENSEMBLE_JUDGE}' for the ensemble")
    parser.add_argument("--candidate", help="pairwise: candidate whose win rate is estimated (default: the first "
                                            "by name)")
    parser.add_argument("--rubric", help="rubric: rubric whose mean score is estimated (default: the first by name)")
    parser.add_argument("--study", help="study or run id (default: every study of the judge on the dataset)")
    parser.add_argument("--label-fraction", type=float,
                        help=f"share of items whose human label is kept (default 0.1; rubric: at least enough for "
                             f"{DEFAULT_MIN_LABELS} labelled items; below {FEW_LABELS} the result carries a caveat)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random choice of labelled items")
    parser.add_argument("--labels", choices=["subsample", "stored"], default="subsample",
                        help="subsample: keep a random --label-fraction of the items' labels (default; shows the "
                             "method on a dataset labelled throughout); stored (rubric): the judged items that have "
                             "a human score are the labelled ones")
    parser.add_argument("--method", choices=["ppi++", "ppi"], default="ppi++",
                        help="power-tuned PPI++ (default) or plain PPI")
    add_json_flag(parser)
    parser.set_defaults(handler=_ppi)


def metrics_verbosity_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True, help="dataset id")
    parser.add_argument("--study", action="append", help="study or run id (repeatable; default: the first)")
    parser.add_argument("--judge", action="append",
                        help=f"judge (repeatable; '{ENSEMBLE_JUDGE}' for the ensemble; default: all and the ensemble)")
    parser.add_argument("--cluster", choices=CLUSTERS, default="item",
                        help="what the slope's cluster-robust standard errors are clustered by (default item)")
    parser.add_argument("--control", choices=CONTROLS, default="none",
                        help="'candidate': candidate fixed effects control the slope for candidate quality")
    add_json_flag(parser)
    parser.set_defaults(handler=_verbosity)


def metrics_leaderboard_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True, help="dataset id")
    parser.add_argument("--study", action="append", help="study or run id (repeatable; default: the first)")
    parser.add_argument("--judge", required=True, help=f"judge name, or '{ENSEMBLE_JUDGE}' for the ensemble")
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples over items")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed")
    add_json_flag(parser)
    parser.set_defaults(handler=_leaderboard)
