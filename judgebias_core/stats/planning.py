"""Plan a swap study before paying for it: the expected width of the item-clustered interval of a flip rate, and the
number of items needed for a target width.

Normal approximation with the design effect (Kish 1965, "Survey Sampling", sec. 5.4 and 8.2; Miller 2024, "Adding
Error Bars to Evals", arXiv 2411.00640, sec. 5 on power analysis): width = 2 z sqrt(p (1 - p) deff / (G m)) for G
items of m pairs, with deff = 1 + (m - 1) ICC. An earlier run's per-item counts give p, the design effect (as
``clustered.design_effect`` estimates it) and ICC = (deff - 1) / (m~ - 1), with m~ = sum m_i^2 / sum m_i the
size-weighted mean cluster size for unequal items (Kish 1987, "Statistical Design for Research", sec. 7.3), so a plan
with a different number of pairs per item rescales the design effect rather than reusing it.

Two widths, and the plan says which it plans (``width_mode``): the expected width above, which about half of the
studies planned with it meet, and the width met with 80% assurance (``stats.plan_assurance``: the 80th percentile
of the realised decision interval's width over simulated studies of the design), which 80% meet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.stats import norm

from judgebias_core.stats.clustered import design_effect
from judgebias_core.stats.plan_assurance import (
    ASSURANCE,
    assured_width,
    icc_from_design_effect,
    items_for_assured_width,
)
from judgebias_core.stats.settings import CONFIDENCE, MIN_STUDENTIZED_ITEMS

WidthMode = Literal["expected", "assurance"]
WIDTH_MODES: tuple[WidthMode, ...] = ("expected", "assurance")


def width_mode_words(mode: WidthMode, assurance: float = ASSURANCE) -> str:
    """'expected width' or 'width met with 80% assurance': what a plan promises."""
    return "expected width" if mode == "expected" else f"width met with {assurance:.0%} assurance"


@dataclass(frozen=True)
class DesignEstimate:
    """What an earlier run says about the next: its flip rate, design effect and intra-item correlation."""

    flip_rate: float
    design_effect: float
    icc: float
    items: int
    mean_pairs_per_item: float


@dataclass(frozen=True)
class SwapStudyPlan:
    """Expected interval width for the planned items and pairs, and the items a target width needs.

    ``items_needed`` is None without a target width (or beyond 10 million items in assurance mode); it meets the
    target under ``width_mode``: on average ("expected") or in ``assurance`` of studies ("assurance").
    ``assured_width`` is the width met with ``assurance`` at ``items``, whatever the mode. ``note`` says when the
    plan falls below the item count at which the decision interval uses the item bootstrap.
    """

    items: int
    pairs_per_item: int
    flip_rate: float
    design_effect: float
    expected_width: float
    effective_n: float
    target_width: float | None
    items_needed: int | None
    confidence: float
    note: str | None
    width_mode: WidthMode = "expected"
    assured_width: float = float("nan")
    assurance: float = ASSURANCE

    @property
    def planned_width(self) -> float:
        """The width the plan promises under its mode."""
        return self.expected_width if self.width_mode == "expected" else self.assured_width


def estimate_design(events: np.ndarray, trials: np.ndarray) -> DesignEstimate:
    """Flip rate, design effect and ICC from an earlier run's per-item (flips, pairs) counts."""
    events_arr, trials_arr = np.asarray(events, dtype=np.float64), np.asarray(trials, dtype=np.float64)
    rate = float(events_arr.sum() / trials_arr.sum())
    deff = design_effect(events_arr, trials_arr)
    weighted_size = float(np.sum(trials_arr**2) / trials_arr.sum())
    icc = (deff - 1) / (weighted_size - 1) if weighted_size > 1 and np.isfinite(deff) else float("nan")
    return DesignEstimate(rate, deff, icc, len(trials_arr), float(trials_arr.mean()))


def plan_swap_study(items: int, pairs_per_item: int, flip_rate: float, design_effect: float | None = None,
                    icc: float | None = None, target_width: float | None = None,
                    confidence: float = CONFIDENCE, width_mode: WidthMode = "expected",
                    assurance: float = ASSURANCE) -> SwapStudyPlan:
    """Expected and assured width of the clustered interval, and the items a target width needs under
    ``width_mode``; give the design effect (for this many pairs per item) or the ICC."""
    if (design_effect is None) == (icc is None):
        raise ValueError("give exactly one of design_effect and icc")
    if items < 1 or pairs_per_item < 1 or not 0 < flip_rate < 1:
        raise ValueError("need at least one item and one pair per item, and a flip rate strictly between 0 and 1")
    deff = design_effect if design_effect is not None else 1 + (pairs_per_item - 1) * float(icc)  # type: ignore[arg-type]
    deff = max(deff, 1.0)
    z = float(norm.ppf(0.5 + confidence / 2))
    variance_per_item = flip_rate * (1 - flip_rate) * deff / pairs_per_item
    width = 2 * z * math.sqrt(variance_per_item / items)
    needed = math.ceil(4 * z**2 * variance_per_item / target_width**2) if target_width else None
    rho = float(icc) if icc is not None else icc_from_design_effect(deff, pairs_per_item)
    assured = assured_width(items, pairs_per_item, flip_rate, rho, assurance, confidence)
    if width_mode == "assurance" and needed is not None and target_width is not None:
        needed = items_for_assured_width(target_width, pairs_per_item, flip_rate, rho, needed, assurance, confidence)
    smallest = min(items, needed) if needed is not None else items
    note = (f"below {MIN_STUDENTIZED_ITEMS} items the decision interval is Clopper-Pearson on the items as the effective "
            "size, not the item bootstrap, and wider than planned") if smallest < MIN_STUDENTIZED_ITEMS else None
    return SwapStudyPlan(items, pairs_per_item, flip_rate, deff, width, items * pairs_per_item / deff, target_width,
                         needed, confidence, note, width_mode, assured, assurance)


def plan_from_earlier_run(events: np.ndarray, trials: np.ndarray, items: int, pairs_per_item: int,
                          target_width: float | None = None, confidence: float = CONFIDENCE,
                          width_mode: WidthMode = "expected") -> SwapStudyPlan:
    """Plan from an earlier run of the same judge: its flip rate and ICC, rescaled to the planned pairs per item."""
    design = estimate_design(events, trials)
    icc = max(design.icc, 0.0) if np.isfinite(design.icc) else 0.0
    return plan_swap_study(items, pairs_per_item, design.flip_rate, icc=icc, target_width=target_width,
                           confidence=confidence, width_mode=width_mode)
