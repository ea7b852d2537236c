"""Sentences on the direction of the flips and the excess over the repetition floor, read from the corrected family
of tests (``metrics.pairwise_family``): "unlikely to be chance" only when the corrected p says so."""

from __future__ import annotations

from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics
from judgebias_core.metrics.pairwise_family import (
    corrected_p,
    correction_words,
    excess_label,
    leans,
    position_label,
)
from judgebias_core.stats.multiple import CorrectedTests
from judgebias_core.wording.phrasing import count_of, in_words, names_list, p_value, percent
from judgebias_core.wording.verdict import FLIP_USABLE_AS_IS, FLIP_USABLE_WITH_AVERAGING


def _strength(r: PairwiseJudgeMetrics, side: str) -> str:
    """How many of the flips lean the tested way. The test weighs a flip to or from a tie half, so its side can
    differ from the majority of flips counted whole: then the sentence says "on balance"."""
    flips = r.primacy + r.recency
    share = (r.primacy if side == "first" else r.recency) / flips
    if share > 0.5:
        return f"{'almost all' if share >= 0.85 else 'most'} of those changes favour"
    return "on balance, counting a change to or from a tie as half, those changes favour"


def direction_sentence(r: PairwiseJudgeMetrics, family: CorrectedTests) -> str:
    """Which slot the changed verdicts favoured, and whether the corrected position test allows calling it."""
    flips = r.primacy + r.recency
    if flips == 0:
        return "No verdict changed, so there is no direction to report."
    corrected = p_value(corrected_p(family, position_label(r)))
    where = f"position test over {r.items:,} items, {correction_words(family)}"
    side = leans(r, family)
    if side is not None:
        count = r.primacy if side == "first" else r.recency
        strength = _strength(r, side)
        return (f"{strength[0].upper()}{strength[1:]} the answer shown {side} "
                f"({count_of(count, flips, 'change')}; corrected {corrected}, {where}: unlikely to be chance).")
    return (f"Those changes do not clearly favour either place ({r.primacy:,} favour the answer shown first, "
            f"{r.recency:,} the one shown second; corrected {corrected}, {where}: could be chance).")


def headline_sentence(judge: str, r: PairwiseJudgeMetrics, family: CorrectedTests) -> str:
    """The one-line finding for the top of the report."""
    if r.classified_pairs == 0:
        return f"{judge}: no pair was judged in both orders with a readable verdict."
    text = (f"When the two answers swap places, {judge} changes its verdict on {in_words(r.flip_rate, 'pair')} "
            f"({percent(r.flip_rate)} of {r.classified_pairs:,} pairs, 95% interval "
            f"{percent(r.flip_rate_decision_low)} to {percent(r.flip_rate_decision_high)})")
    if r.primacy + r.recency == 0:
        return text + "."
    side = leans(r, family)
    if side is not None:
        return text + f"; {_strength(r, side)} the answer shown {side}."
    return text + "; those changes do not clearly favour either place."


def excess_sentence(judge: str, r: PairwiseJudgeMetrics, family: CorrectedTests) -> str | None:
    """The flip rate against the repetition floor on the same sample, with the paired interval of the excess."""
    if r.repetition_floor is None or r.flip_rate_excess is None or not r.repetition_prompts:
        return None
    base = (f"Asked the very same question again with nothing swapped, {judge} changes its verdict on "
            f"{in_words(r.repetition_floor, 'prompt')} ({percent(r.repetition_floor)} of {r.repetition_prompts:,} "
            f"prompts); on that sample its flip rate is {percent(r.flip_rate)}, "
            f"{r.flip_rate_excess * 100:.1f} percentage points above the floor")
    if r.flip_rate_excess_low is None or r.flip_rate_excess_high is None or r.flip_rate_excess_degenerate_reason:
        reason = r.flip_rate_excess_degenerate_reason or "no interval could be estimated"
        return base + f" ({reason})."
    corrected = corrected_p(family, excess_label(r))
    called = "more than its own noise" if corrected < family.alpha else "not clearly more than its own noise"
    return (base + f" (95% {r.flip_rate_excess_method} interval {r.flip_rate_excess_low * 100:+.1f} to "
            f"{r.flip_rate_excess_high * 100:+.1f} points, items resampled together; corrected {p_value(corrected)}, "
            f"{correction_words(family)}): {called}.")


# Above this many judges the report's "In short" groups them by what to do instead of a line per judge.
HEADLINE_JUDGES = 3


def grouped_headline(rows: list[tuple[str, PairwiseJudgeMetrics]], family: CorrectedTests) -> list[str]:
    """Two sentences for many judges (``rows``: name and metrics, steadiest first): what to do with each group of
    judges (the verdicts' own rule, on the upper end of the flip rate's interval) and which slot they favour."""
    groups: dict[str, list[str]] = {"as is": [], "averaging": [], "not": []}
    for name, r in rows:
        high = r.flip_rate_decision_high
        groups["as is" if high < FLIP_USABLE_AS_IS else "averaging" if high < FLIP_USABLE_WITH_AVERAGING
               else "not"].append(name)
    parts = [text for key, text in (
        ("as is", "use {} as is"), ("averaging", "use {} only with both orders judged (a changed verdict as a tie)"),
        ("not", "do not use {} for close rankings")) if groups[key]
             for text in [text.format(names_list(groups[key], "or" if key == "not" else "and"))]]
    sentences = ["What to do: " + "; ".join(parts) + " (from the top of each judge's 95% interval; each judge's "
                 "figures are below)."]
    sides = {side: [name for name, r in rows if r.primacy + r.recency and leans(r, family) == side]
             for side in ("first", "second")}
    leaning = [f"{names_list(names)} favour{'s' if len(names) == 1 else ''} the answer shown {side}"
               for side, names in sides.items() if names]
    even = [name for name, r in rows if not any(name in names for names in sides.values())]
    if leaning:
        sentences.append("; ".join(leaning) + (f"; {names_list(even)} show{'s' if len(even) == 1 else ''} no clear lean"
                                                if even else "") + ".")
    else:
        sentences.append("None of them clearly favours either place.")
    return sentences
