"""Bias Cost in words, for the Rubric bias page and the report: a recommendation only when it is stable by its own
rule (``STABLE_SHARE``), otherwise "no ordering is reliably better" and why; an interval that does not hold the
measured cost is named for what it is."""

from __future__ import annotations

from dataclasses import dataclass

from judgebias_core.metrics.bias_cost import OrderingCost
from judgebias_core.metrics.bias_cost_bootstrap import STABLE_SHARE, BiasCostRanking
from judgebias_core.wording.phrasing import percent


def ordering_text(ordering: tuple[int, ...] | list[int]) -> str:
    """(5, 1, 2, 3, 4) -> '51234' (scores in position order, as the New run page takes it); comma-separated once a
    score has two digits."""
    separator = "" if all(0 <= score <= 9 for score in ordering) else ","
    return separator.join(str(score) for score in ordering)


@dataclass(frozen=True)
class CostChoice:
    """What may be said about the orderings: ``recommended`` only when stable; the sentence says it or says why not."""

    recommended: OrderingCost | None
    sentence: str


def cost_interval_words(costs: BiasCostRanking, best: OrderingCost) -> str:
    """The lowest cost's interval, its runner-up and its stability, for engineers (the page's caption, the report's
    sentences); a percentile interval that misses the measured cost says so instead of posing as bounds."""
    interval = costs.interval_of(best.ordering)
    runner_up = costs.intervals[1] if len(costs.intervals) > 1 else None
    text = ""
    if interval is not None:
        span = (f"95% {costs.interval_kind} over {costs.items:,} probe items ({costs.resamples:,} resamples, seed "
                f"{costs.seed})")
        if interval.contains_estimate:
            text = f"{span}: cost {interval.low:.3f} to {interval.high:.3f}"
        else:
            text = (f"{span}: the resampled costs run from {interval.low:.3f} to {interval.high:.3f}, all "
                    f"{'above' if best.bias_cost < interval.low else 'below'} the measured {best.bias_cost:.3f}. "
                    "This interval is degenerate as bounds on the cost: a cost adds up absolute gaps, which "
                    "resampling inflates, so read it as how noisy the cost is, not as a range around it")
    if runner_up is not None:
        text += (f"; the next ordering, {ordering_text(runner_up.ordering)}, costs {runner_up.difference:+.3f} more "
                 f"(interval {runner_up.difference_low:+.3f} to {runner_up.difference_high:+.3f})")
    text += f". Stability: it is the lowest in {percent(costs.stability, 0)} of the resamples."
    if costs.few_items:
        text += " Fewer than 20 items: the percentile bootstrap may be too narrow."
    return text


def cost_choice(costs: BiasCostRanking, where: str) -> CostChoice:
    """The recommendation under ``costs`` (``where`` names the probe or run), or why there is none."""
    best = costs.recommended
    if best is None:
        return CostChoice(None, f"No ordering is recommended {where}: {costs.reason}.")
    if not costs.stable:
        return CostChoice(None, (
            f"No ordering is reliably better {where}: the lowest cost, {ordering_text(best.ordering)} "
            f"({best.bias_cost:.3f}), is lowest in only {percent(costs.stability, 0)} of the resamples of the "
            f"probe's items, and an ordering is recommended only when it is lowest in at least "
            f"{percent(STABLE_SHARE, 0)}. Keep the canonical ordering, or average over several orderings."))
    return CostChoice(best, (
        f"Recommended ordering {where}: {ordering_text(best.ordering)} (scores in position order), cost "
        f"{best.bias_cost:.3f}, the lowest of {len(costs.ranking)} candidates in {percent(costs.stability, 0)} of "
        "the resamples."))
