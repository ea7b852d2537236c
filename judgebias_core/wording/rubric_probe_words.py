"""Bias Cost "probe, then choose" in words (issue 24): candidate orderings ranked under a probe run's
P(position | score), the recommendation only when stable by its own rule, else why no ordering is reliably better.

Read by ``analyses/rubric_view.py`` for the Rubric bias page and ``metrics rubric --json``.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgebias_core.metrics.rubric_report import ProbeRecommendation, RubricReport
from judgebias_core.wording.bias_cost_words import cost_choice, cost_interval_words, ordering_text

# The candidate sets a probe ranks, as the page's selector names them (keys: metrics.rubric_report.CANDIDATE_DESIGNS).
DESIGN_NAMES = {"run": "the analysed run's orderings", "all": "all k! orderings", "balanced": "the balanced set (2k)",
                "latin": "a Latin square (k rotations)", "reverse": "canonical and reversed"}


@dataclass(frozen=True)
class ProbeCostRow:
    """One candidate ordering under the probe: its cost and rank, the item-bootstrap interval of the cost and of its
    difference from the lowest, the share of resamples where it is lowest, and whether the interval holds the cost
    (a small cost can sit below all its resampled costs: that interval is degenerate as bounds)."""

    ordering: str
    bias_cost: float
    rank: int
    canonical: bool
    low: float | None
    high: float | None
    minus_lowest: float | None
    difference_low: float | None
    difference_high: float | None
    lowest_share: float | None
    interval_holds_cost: bool | None


@dataclass(frozen=True)
class ProbeChoice:
    """What the page's "probe, then choose" block shows for one probe and one candidate set.

    ``recommended`` is the ordering to use (None unless stable by its own rule); ``sentence`` recommends it or says
    why no ordering is recommended; ``rank`` where it ranks among the run's orderings by correlation (None without
    a recommendation or without labels); ``interval`` the lowest cost's interval and stability in words;
    ``interval_note`` how to read the intervals; ``empty`` says the probe has no parsed trial (nothing else is then
    said). ``result`` is the ranking itself, for the chart.
    """

    probe_run_id: str
    design: str
    design_name: str
    result: ProbeRecommendation
    recommended: str | None
    sentence: str | None
    rank: str | None
    interval: str | None
    interval_note: str | None
    rows: tuple[ProbeCostRow, ...]
    empty: str | None

    @property
    def judge(self) -> str:
        return self.result.probe.run.judge


def _rows(result: ProbeRecommendation) -> tuple[ProbeCostRow, ...]:
    rows = []
    for cost in result.ranking:
        bounds = result.costs.interval_of(cost.ordering)
        rows.append(ProbeCostRow(
            ordering=ordering_text(cost.ordering), bias_cost=cost.bias_cost, rank=cost.rank, canonical=cost.canonical,
            low=bounds.low if bounds else None, high=bounds.high if bounds else None,
            minus_lowest=bounds.difference if bounds else None,
            difference_low=bounds.difference_low if bounds else None,
            difference_high=bounds.difference_high if bounds else None,
            lowest_share=bounds.lowest_share if bounds else None,
            interval_holds_cost=bounds.contains_estimate if bounds else None))
    return tuple(rows)


def probe_choice(report: RubricReport, result: ProbeRecommendation, probe_run_id: str) -> ProbeChoice:
    """The choice under ``result`` (the probe's ranking of ``result.design``), ranked against ``report``'s
    orderings where it has labels."""
    rows = _rows(result)
    design_name = DESIGN_NAMES.get(result.design, result.design)
    if result.probe.parsed == 0:
        return ProbeChoice(probe_run_id, result.design, design_name, result, recommended=None, sentence=None,
                           rank=None, interval=None, interval_note=None, rows=rows,
                           empty=f"The probe run {probe_run_id} has no parsed trial, so it says nothing about "
                                 "position: pick another.")
    choice = cost_choice(result.costs, f"under probe {probe_run_id}")
    best = choice.recommended
    sentence, rank = choice.sentence, None
    if best is not None:
        if report.human is not None:
            place = report.correlation_rank(best.ordering)
            rank = (f"Among this run's orderings it ranks {place} of {len(report.orderings)} by correlation."
                    if place is not None else
                    "It is not among this run's orderings, so it has no correlation rank here.")
            sentence += " " + rank
        sentence += f" For the full run, enter {ordering_text(best.ordering)} under Orderings on the New run page."
    costs = result.costs
    lowest = result.recommended  # the lowest cost, stable or not: its interval words say how stable it is
    note = None
    if costs.intervals:
        note = (f"Intervals: 95% {costs.interval_kind}, {costs.items:,} probe items. Bias Cost is a sum of absolute "
                "deviations, so resampling noise adds to it: a small cost's interval sits above it. Read the "
                "differences and the stability to choose.")
    return ProbeChoice(probe_run_id, result.design, design_name, result,
                       recommended=None if best is None else ordering_text(best.ordering), sentence=sentence,
                       rank=rank, interval=None if lowest is None else cost_interval_words(costs, lowest),
                       interval_note=note, rows=rows, empty=None)
