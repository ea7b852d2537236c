"""Plain sentences from results, for readers who do not code: rates as "1 pair in 5" next to the exact counts."""

from __future__ import annotations

import math

from judgebias_core.stats.multiple import CorrectedTests


def percent(rate: float | None, digits: int = 1) -> str:
    """0.1846 -> '18.5%'; missing -> 'n/a'."""
    if rate is None or (isinstance(rate, float) and math.isnan(rate)):
        return "n/a"
    return f"{rate * 100:.{digits}f}%"


def names_list(names: list[str], conjunction: str = "and") -> str:
    """"A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {conjunction} " + names[-1]


def count_of(part: int, whole: int, unit: str) -> str:
    """'443 of 2,400 pairs'."""
    return f"{part:,} of {whole:,} {unit}{'' if whole == 1 else 's'}"


def in_words(rate: float, unit: str) -> str:
    """A rate as a reader would say it: 'about 1 pair in 5', 'about 4 pairs in 10', 'almost never'."""
    if math.isnan(rate):
        return "an unknown share of " + unit + "s"
    if rate == 0:
        return f"no {unit}"
    if rate < 0.01:
        return f"fewer than 1 {unit} in 100"
    if rate >= 0.95:
        return f"almost every {unit}"
    one_in = round(1 / rate)
    if one_in >= 2 and abs(1 / one_in - rate) <= 0.15 * rate:
        return f"about 1 {unit} in {one_in}"
    tenths = round(rate * 10)
    return f"about {tenths} {unit}s in 10"


def p_value(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "p n/a"
    return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"


def flip_sentence(judge: str, flips: int, classified: int, rate: float, low: float, high: float) -> str:
    """'When the two answers swap places, J changes its verdict on about 1 pair in 5 (443 of 2,400 pairs; ...).'"""
    if classified == 0:
        return f"{judge} has no pair judged in both orders with a readable verdict, so no flip rate can be given."
    return (f"When the two answers swap places, {judge} changes its verdict on {in_words(rate, 'pair')} "
            f"({count_of(flips, classified, 'pair')}, {percent(rate)}; 95% interval {percent(low)} to "
            f"{percent(high)}).")


def ranking_sentence(best: str, best_rate: float, worst: str, worst_rate: float, judges: int,
                     study: str | None = None, best_pairs: int | None = None, worst_pairs: int | None = None) -> str:
    """Who is the most and least swap-consistent among several judges (of one study, when named), with the pairs
    behind each rate when given."""
    where = f" in study '{study}'" if study else ""
    of_best = f" of {best_pairs:,} pairs" if best_pairs is not None else ""
    of_worst = f" of {worst_pairs:,}" if worst_pairs is not None else ""
    return (f"Of the {judges} judges{where}, {best} is the least affected by the order (flip rate {percent(best_rate)}"
            f"{of_best}) and {worst} the most ({percent(worst_rate)}{of_worst}).")


# Width of a 95% interval on a rate (or a kappa), for "how sure we are" in words; the rule is printed with it.
SURE_WIDTH = 0.10
ROUGH_WIDTH = 0.25
SURENESS_RULE = (f"'Quite sure' when the 95% interval is at most {SURE_WIDTH * 100:.0f} points wide, 'fairly sure' "
                 f"up to {ROUGH_WIDTH * 100:.0f} points, 'not very sure' when wider.")


def how_sure(low: float, high: float) -> str:
    """'Quite sure', 'Fairly sure' or 'Not very sure', from the width of a 95% interval (SURENESS_RULE)."""
    width = high - low
    if math.isnan(width):
        return "Not sure"
    if width <= SURE_WIDTH:
        return "Quite sure"
    return "Fairly sure" if width <= ROUGH_WIDTH else "Not very sure"


def chance_words(tests: CorrectedTests, label: str) -> str:
    """A corrected test's outcome in words, for the visible sentence ("is unlikely to be chance" or "could be
    chance"); the correction and its p-value belong in the rule (``CorrectedTests.sentence``)."""
    index = tests.labels.index(label)
    if math.isnan(tests.corrected[index]):
        return "was not tested"
    return "is unlikely to be chance" if tests.reject[index] else "could be chance"
