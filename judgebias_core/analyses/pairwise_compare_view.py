"""The view of two judges compared on the swap test: what the Pairwise bias page's "Compare two judges" block and
``metrics pairwise-compare --json`` show, built once (issue 24: one view per topic; METHODS.md section 3).

Plain words first: which judge changes its verdict less often when the answers swap, how sure we are (the 95% range
of the gap in points, with the pairs and questions it rests on) and what to do. The test, its interval method and
its p-value go into the fold "How this was decided". A simulated judge is named so in the first sentence.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from judgebias_core.analyses.pairwise import compare_judges
from judgebias_core.metrics.pairwise_compare import JudgeComparison
from judgebias_core.simulated import SIMULATED_WHO, is_simulated, simulated_notice
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import p_value
from judgebias_core.wording.verdict import Verdict, VerdictLine

__all__ = ["JudgeComparison", "PairwiseCompareView", "pairwise_compare_view", "pairwise_compare_view_of"]

SCOPE_RULE = ("Both judges' flip rates on the pairs both classified (same repetition, item and answers); the interval "
              "resamples items once for both judges, so what their pairs share cancels. One test: it is not part of "
              "the family corrected above; correct it yourself if you compare several pairs of judges.")


@dataclass(frozen=True)
class PairwiseCompareView:
    """Judge a's flip rate minus judge b's on the pairs both classified (``comparison``: counts, rates, the
    difference and its 95% interval), with the plain sentences, the method for the fold and the simulated note.
    ``flips_less`` names the judge whose flip rate is lower with the whole interval on its side of zero, else None."""

    comparison: JudgeComparison
    simulated_judges: tuple[str, ...]
    flips_less: str | None
    verdict: Verdict  # What it does / How sure we are / What to do, each with its rule
    method: tuple[str, ...]  # the fold: the scope, the test with its p-value, the interval's caution
    simulated_note: str | None

    @property
    def sentence(self) -> str:
        """The plain lines in order: what it does, how sure, what to do."""
        return " ".join(line.text for line in self.verdict.lines)

    def payload(self) -> dict[str, Any]:
        """``metrics pairwise-compare --json``: the comparison's keys, then the view's (docs/JSON_CHANGELOG.md)."""
        return asdict(self.comparison) | {
            "flips_less": self.flips_less, "simulated_judges": list(self.simulated_judges),
            "simulated_note": self.simulated_note, "plain_sentence": self.sentence,
            "verdict": self.verdict.as_dict(), "method_notes": list(self.method)}


def _who(judge: str) -> str:
    return judge + SIMULATED_WHO if is_simulated(judge) else judge


def _points(value: float) -> str:
    return f"{abs(value) * 100:.1f}"


def _flips_less(c: JudgeComparison) -> str | None:
    if c.shared_pairs == 0 or c.degenerate or math.isnan(c.low) or math.isnan(c.high):
        return None
    if c.high < 0:
        return c.judge_a
    return c.judge_b if c.low > 0 else None


def _lines(c: JudgeComparison, flips_less: str | None) -> tuple[str, str, str]:
    a, b = _who(c.judge_a), _who(c.judge_b)
    if c.shared_pairs == 0:
        return (f"{a} and {b} never judged the same pairs here, so they cannot be compared.",
                "There is nothing to be sure about: no pair was judged by both.",
                "Run both judges on the same study (the same questions and answers) to compare them.")
    rates = (f"{a} changes its verdict on {c.flip_rate_a:.1%} of the {c.shared_pairs:,} pairs both judged "
             f"({c.items:,} questions) when the answers swap, {b} on {c.flip_rate_b:.1%}")
    small = (" With so few questions behind it, read this as a first look." if c.warning else "")
    if c.degenerate or math.isnan(c.low) or math.isnan(c.high):
        return (f"{rates}.", f"How sure we are cannot be said: too little varies between the questions to give a "
                             f"range for the gap.{small}",
                "Compare the two judges on more questions before choosing between them.")
    gap = (f"The gap of {_points(c.difference)} points lies, with 95% confidence, between "
           f"{_points(min(abs(c.low), abs(c.high)))} and {_points(max(abs(c.low), abs(c.high)))} points")
    if flips_less is not None:
        other = c.judge_b if flips_less == c.judge_a else c.judge_a
        return (f"{_who(flips_less)} is swayed less by the order of the answers: {rates}.",
                f"{gap} in its favour.{small}",
                f"Where the order of the answers could sway a verdict, prefer {flips_less} to {other}.")
    return (f"Neither judge is clearly swayed less by the order of the answers: {rates}.",
            f"The gap of {c.difference * 100:+.1f} points ({c.judge_a} minus {c.judge_b}) could lie anywhere from "
            f"{c.low * 100:+.1f} to {c.high * 100:+.1f} points, so either could be the steadier one.{small}",
            "Choose between them on other grounds, or compare them on more questions to tell them apart.")


def pairwise_compare_view_of(comparison: JudgeComparison) -> PairwiseCompareView:
    """The view of a computed comparison."""
    c = comparison
    flips_less = _flips_less(c)
    does, sure, todo = _lines(c, flips_less)
    test = (f"Cluster-robust t test of no difference over {c.items:,} items: {p_value(c.p_value)} ({c.method} "
            f"interval; {c.flips_a:,} and {c.flips_b:,} flips of {c.shared_pairs:,} pairs)."
            if not math.isnan(c.p_value) else f"No test: {c.degenerate_reason or 'nothing to compare'}.")
    caution = f"Caution: {c.warning}." if c.warning else ""
    method = tuple(text for text in (SCOPE_RULE, c.sentence, test, caution) if text)
    verdict = Verdict(
        analysis="pairwise-compare", subject=f"{_who(c.judge_a)} against {_who(c.judge_b)}",
        lines=(VerdictLine("What it does", does, SCOPE_RULE),
               VerdictLine("How sure we are", sure, " ".join(t for t in (c.sentence, test) if t)),
               VerdictLine("What to do", todo, "A judge is called steadier only when the whole 95% interval of the "
                                               "difference lies on its side of zero.")),
        figures={"difference": c.difference, "low": c.low, "high": c.high, "shared_pairs": c.shared_pairs,
                 "items": c.items})
    simulated = tuple(j for j in (c.judge_a, c.judge_b) if is_simulated(j))
    return PairwiseCompareView(comparison=c, simulated_judges=simulated, flips_less=flips_less, verdict=verdict,
                               method=method, simulated_note=simulated_notice(simulated))


def pairwise_compare_view(reader: StoreReader, dataset_id: str, study: str, judge_a: str, judge_b: str,
                          repetition: int | None = None) -> PairwiseCompareView:
    """Judge a against judge b on ``study`` of ``dataset_id`` (``analyses.pairwise.compare_judges``; InvalidArgument
    when they are the same judge)."""
    return pairwise_compare_view_of(compare_judges(reader, dataset_id, study, judge_a, judge_b, repetition))
