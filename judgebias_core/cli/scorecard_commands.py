"""CLI: ``scorecard``: every judge configuration of a dataset (or dataset group) side by side, against the labels,
with position bias, length bias, failures, cost, the paired difference from the best row and a recommendation."""

from __future__ import annotations

import argparse

from judgebias_core.analyses.scorecard import Scorecard
from judgebias_core.analyses.scorecard_view import scorecard_view
from judgebias_core.cli.common import add_json_flag, emit, open_store
from judgebias_core.stats.clustered import RESAMPLES, SEED


def _pct(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:5.1f}%"


def _cost(value: float | None, basis: str) -> str:
    if value is None:
        return "-"
    return f"${value:.2f}" + ("~" if basis == "estimated" else "")


def _text(card: Scorecard) -> str:
    lines = [f"{card.name} ({', '.join(card.datasets)}): {len(card.rows)} judge configurations", ""]
    head = (f"{'judge [study]':<34} {'items':>5} {'acc':>6} {'low':>6} {'high':>6} {'1st':>6} {'2nd':>6} {'both':>6} "
            f"{'flips':>6} {'fail':>5} {'vs best':>8} {'cost/1k':>9}")
    lines.append(head)
    for row in sorted(card.rows, key=lambda r: -(r.accuracy.estimate if r.accuracy else -1)):
        acc = row.accuracy
        diff = card.difference(row)
        cost = row.cost_per_1000
        lines.append(
            f"{row.label[:34]:<34} {row.items:>5} {_pct(acc.estimate if acc else None):>6} "
            f"{_pct(acc.low if acc else None):>6} {_pct(acc.high if acc else None):>6} "
            f"{_pct(row.accuracy_first_order.estimate if row.accuracy_first_order else None):>6} "
            f"{_pct(row.accuracy_swapped_order.estimate if row.accuracy_swapped_order else None):>6} "
            f"{_pct(row.accuracy_both_orders.estimate if row.accuracy_both_orders else None):>6} "
            f"{_pct(row.flip_rate.estimate):>6} {row.parse_failures:>5} "
            f"{(_pct(diff.difference) + ('*' if diff.clearly_worse else ' ')) if diff else '  best ':>8} "
            f"{_cost(cost.value, cost.basis):>9}")
    lines += ["", "acc: swap-averaged accuracy (a disagreement between the orders counts as a tie, half credit) with its "
              "item-clustered 95% interval; 1st/2nd: each order; both: right in both orders; flips: flip rate; "
              "vs best: paired difference from the best row (* clearly worse after Holm); cost ~ = estimated from "
              "the price table; - = not recorded.", "", card.recommendation.sentence]
    return "\n".join(lines)


def _scorecard(args: argparse.Namespace) -> int:
    store = open_store(args)
    with store.reader() as reader:
        view = scorecard_view(reader, args.dataset, resamples=args.resamples, seed=args.seed)
    emit(args, view.json(), _text(view.card))
    return 0


def scorecard_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", required=True,
                        help="a pairwise dataset id, or a dataset group (llmbar-adversarial: the four adversarial "
                        "LLMBar subsets)")
    parser.add_argument("--resamples", type=int, default=RESAMPLES,
                        help=f"item-bootstrap resamples per interval (default {RESAMPLES})")
    parser.add_argument("--seed", type=int, default=SEED, help=f"bootstrap seed (default {SEED})")
    add_json_flag(parser)
    parser.set_defaults(handler=_scorecard)
