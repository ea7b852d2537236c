"""The one result type of an estimate with its interval, shared by the statistics kernel and the metrics.

A figure a page, report or gate shows is an ``Estimate``: the number, its two-sided interval, how the interval was
obtained (``method``), in plain words why it is not the usual one when it is not (``reason``), the design effect
(cluster-robust over iid variance; NaN when it cannot be estimated), how many items and units (pairs, calls,
labels) it rests on, the confidence level, and a ``warning`` when its coverage is not what the level says
(too few items, or too few items with any event: docs/METHODS.md section 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judgebias_core.stats.settings import CONFIDENCE, FEW_EVENT_ITEMS, FEW_ITEMS, one_sided_level, percent


@dataclass(frozen=True)
class Estimate:
    """An estimate with its two-sided ``confidence`` interval [low, high].

    ``reason`` is None when ``method`` applied as designed; otherwise it says in words a page can show why the
    interval is a fallback or degenerate (no events, one item, ...). ``degenerate`` is True when no proper two-sided
    interval could be estimated. ``units`` counts what the estimate averages over (pairs, calls, labels);
    ``items`` the independent clusters. Either bound read alone is a one-sided bound at ``one_sided_level``.
    """

    estimate: float
    low: float
    high: float
    method: str
    reason: str | None = None
    design_effect: float = float("nan")
    items: int = 0
    units: int = 0
    confidence: float = CONFIDENCE
    degenerate: bool = False
    warning: str | None = None

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def one_sided_level(self) -> float:
        return one_sided_level(self.confidence)

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    def interval_words(self) -> str:
        """'95% interval [0.12, 0.20] (studentized-item-bootstrap, 80 items)' for captions and sentences."""
        if not self.has_interval:
            return f"no interval ({self.reason or self.method})"
        return (f"{percent(self.confidence)} interval [{self.low:.4g}, {self.high:.4g}] ({self.method}, "
                f"{self.items} item{'s' if self.items != 1 else ''})")

    def as_dict(self, prefix: str = "") -> dict[str, object]:
        """The fields flattened with ``prefix`` (``prefix + "low"``, ...), for JSON rows and tables."""
        return {f"{prefix}{name}": value for name, value in (
            ("estimate", self.estimate), ("low", self.low), ("high", self.high), ("method", self.method),
            ("reason", self.reason), ("design_effect", self.design_effect), ("items", self.items),
            ("units", self.units), ("confidence", self.confidence), ("degenerate", self.degenerate),
            ("warning", self.warning))}


def small_sample_warning(items: int, event_items: int | None = None, non_event_items: int | None = None,
                         event_word: str = "events") -> str | None:
    """The warning an interval carries when it rests on fewer than 30 items, or on fewer than 5 items with any
    event (or any non-event): there its coverage can fall short of the stated level (bench/bench_coverage.py)."""
    reasons = []
    if 0 < items < FEW_ITEMS:
        reasons.append(f"only {items} item{'s' if items != 1 else ''} (fewer than {FEW_ITEMS})")
    if event_items is not None and items and event_items < FEW_EVENT_ITEMS:
        reasons.append(f"{event_items} item{'s' if event_items != 1 else ''} with any {event_word} "
                       f"(fewer than {FEW_EVENT_ITEMS})")
    elif non_event_items is not None and items and non_event_items < FEW_EVENT_ITEMS:
        reasons.append(f"{non_event_items} item{'s' if non_event_items != 1 else ''} without {event_word} on every "
                       f"unit (fewer than {FEW_EVENT_ITEMS})")
    if not reasons:
        return None
    return "small sample: " + " and ".join(reasons) + "; the interval may be less reliable than its level says"
