"""CLI: ``plan`` a pairwise swap study before paying for it: expected interval width, items for a target width,
and the calls and cost of that many items."""

from __future__ import annotations

import argparse

from pydantic import ValidationError

from judgebias_core.analyses.plan import (
    PlanAssumptions,
    PlanCost,
    StudyPlan,
    assumptions_from_judge,
    assumptions_from_run,
    dataset_design,
    plan_cost,
    plan_study,
    typed_assumptions,
)
from judgebias_core.cli.common import add_json_flag, emit, open_store
from judgebias_core.errors import InvalidArgument, invalid_argument
from judgebias_core.protocols.spec import RunSpec
from judgebias_core.providers import get_provider, provider_names
from judgebias_core.stats.planning import WIDTH_MODES, width_mode_words


def _check_sources(args: argparse.Namespace) -> None:
    typed = args.flip_rate is not None or args.design_effect is not None
    earlier = args.from_run is not None or args.from_judge is not None
    if typed and earlier:
        raise InvalidArgument("give either --flip-rate and --design-effect, or --from-run / --from-judge, not both")
    if typed and (args.flip_rate is None or args.design_effect is None):
        raise InvalidArgument("typed assumptions need both --flip-rate and --design-effect")
    if not typed and not earlier:
        raise InvalidArgument("give --flip-rate and --design-effect, or estimate them with --from-run RUN_ID or "
                              "--from-judge JUDGE --study STUDY")
    if args.from_run is None and args.from_judge is not None and args.study is None:
        raise InvalidArgument("--from-judge needs --study (or --from-run RUN_ID)")


def _spec(args: argparse.Namespace, assumptions: PlanAssumptions) -> RunSpec:
    model = args.model or assumptions.judge or get_provider(args.provider).default_models[0]
    try:
        return RunSpec(dataset_id=args.dataset, protocol="pairwise-swap", provider=args.provider, model=model,
                       options=args.options, pairs=args.pairs, max_tokens=args.max_tokens)
    except ValidationError as error:
        raise invalid_argument(error, "plan settings") from None


def _payload(plan: StudyPlan, cost: PlanCost) -> dict[str, object]:
    a = plan.assumptions
    return {
        "dataset": plan.dataset_id, "pairs": plan.pairs, "items": plan.items, "pairs_per_item": plan.pairs_per_item,
        "flip_rate": plan.flip_rate, "design_effect": plan.design_effect, "expected_width": plan.expected_width,
        "interval_method": plan.interval_method, "confidence": plan.confidence, "effective_n": plan.effective_n,
        "target_width": plan.target_width, "items_needed": plan.items_needed,
        "width_mode": plan.width_mode, "assured_width": plan.assured_width, "assurance": plan.assurance,
        "cost_items": cost.items, "calls": cost.calls, "cost_usd": cost.cost_usd, "provider": cost.provider,
        "model": cost.model, "cost_extrapolated": cost.extrapolated, "cost_note": cost.note, "note": plan.note,
        "source": {"kind": a.source, "description": a.description, "dataset": a.dataset_id, "study": a.study,
                   "judge": a.judge, "run_id": a.run_id, "items": a.earlier_items, "pairs": a.earlier_pairs,
                   "flips": a.earlier_flips, "design_effect": a.earlier_design_effect, "icc": a.icc},
    }


def _text(plan: StudyPlan, cost: PlanCost) -> str:
    lines = [
        f"swap study on {plan.dataset_id} ({plan.pairs} pairs): {plan.items:,} items x {plan.pairs_per_item:,} pairs",
        f"assumptions: {plan.assumptions.description}",
        f"expected width of the item-clustered {plan.confidence:.0%} interval ({plan.interval_method}) of a flip "
        f"rate of {plan.flip_rate:.3f} at design effect {plan.design_effect:.2f}: {plan.expected_width:.4f} "
        f"(+/- {plan.expected_width / 2:.4f}; effective n {plan.effective_n:,.0f} pairs); about half of such "
        "studies come out wider",
        f"width met with {plan.assurance:.0%} assurance (simulated studies of this design): "
        f"{plan.assured_width:.4f}",
    ]
    words = width_mode_words(plan.width_mode, plan.assurance)
    if plan.target_width is not None:
        needed = (f"{plan.items_needed:,}" if plan.items_needed is not None
                  else "more than 10,000,000 (not planned)")
        lines.append(f"items needed for a width of {plan.target_width:g}, planned as the {words}: {needed}")
    price = "unknown (the price table does not know the model)" if cost.cost_usd is None else f"${cost.cost_usd:,.2f}"
    lines.append(f"{cost.items:,} items with {cost.provider} {cost.model}: {cost.calls:,} judge calls, cost "
                 f"(estimate) {price}")
    lines.extend(note for note in (cost.note, plan.note) if note)
    return "\n".join(lines)


def _plan(args: argparse.Namespace) -> int:
    _check_sources(args)
    store = open_store(args)
    with store.reader() as reader:
        design = dataset_design(reader, args.dataset, args.pairs)
        if args.flip_rate is not None:
            assumptions = typed_assumptions(args.flip_rate, args.design_effect)
        elif args.from_run is not None:
            assumptions = assumptions_from_run(reader, design, args.from_run, args.from_judge)
        else:
            assumptions = assumptions_from_judge(reader, design, args.dataset, args.study, args.from_judge)
        plan = plan_study(design, assumptions, args.items, args.target_width, args.width_mode)
        spec = _spec(args, assumptions)
        cost = plan_cost(reader, design, spec, plan.items_needed if plan.items_needed is not None else plan.items)
    emit(args, _payload(plan, cost), _text(plan, cost))
    return 0


def plan_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Before paying for a swap run: the expected width of the item-clustered 95%% interval of the "
        "flip rate (normal approximation with the design effect; Miller 2024, arXiv 2411.00640), the width met "
        "with 80%% assurance (simulated studies of the design), the items a target width needs under --width-mode, and the judge calls and estimated cost of that many items. The flip rate and design "
        "effect are typed in or estimated from an earlier run of the same judge (its first repetition); an "
        "estimated design effect is rescaled to the planned pairs per item through the intra-item correlation.")
    parser.add_argument("--dataset", required=True, help="pairwise dataset id (see `datasets`)")
    parser.add_argument("--pairs", choices=("baseline", "all"), default="baseline",
                        help="pairs against the dataset's baseline candidate, or all pairs (default baseline)")
    parser.add_argument("--items", type=int, help="items planned (default: every item with a pair)")
    parser.add_argument("--target-width", type=float, help="full width of the 95%% interval wanted, e.g. 0.05")
    parser.add_argument("--width-mode", choices=WIDTH_MODES, default="expected",
                        help="plan the items for the target as the expected width (met by about half of the studies; "
                        "default) or as the width met with 80%% assurance (met by 80%% of them; more items)")
    typed = parser.add_argument_group("assumptions typed in")
    typed.add_argument("--flip-rate", type=float, help="expected flip rate, strictly between 0 and 1")
    typed.add_argument("--design-effect", type=float,
                       help="expected design effect at the planned pairs per item (1 = pairs independent)")
    earlier = parser.add_argument_group("assumptions estimated from an earlier run of the same judge")
    earlier.add_argument("--from-run", metavar="RUN_ID", help="a stored run (bundled: bundled:<dataset>:<study>)")
    earlier.add_argument("--from-judge", metavar="JUDGE", help="the judge's name in the store (with --study, or "
                         "to pick one judge of a --from-run holding several)")
    earlier.add_argument("--study", help="the study of --from-judge on --dataset (e.g. full)")
    cost = parser.add_argument_group("cost estimate (the run preview and the provider's prices)")
    cost.add_argument("--provider", choices=provider_names(), default="openai", help="who would judge (default "
                      "openai)")
    cost.add_argument("--model", help="model priced (default: the earlier run's judge, else the provider's first "
                      "default model)")
    cost.add_argument("--options", type=int, choices=(2, 3), help="3 allows a tie (default 3; devbench 2)")
    cost.add_argument("--max-tokens", type=int, default=1024, help="reply token limit (default 1024)")
    add_json_flag(parser)
    parser.set_defaults(handler=_plan)
