"""The one place for the inference defaults every interval, test and gate of the package uses.

METHODS.md states them ("bootstrap intervals use 2,000 resamples and seed 0 unless the user changes them"); every
module imports them from here rather than defining its own copy, so a change is one edit.
"""

from __future__ import annotations

CONFIDENCE = 0.95  # two-sided level of every interval; an upper bound read alone is one-sided 1 - (1 - 0.95) / 2
RESAMPLES = 2000  # item bootstrap resamples for intervals shown on pages, in reports and in `metrics`
SEED = 0  # the seed of every item bootstrap unless the user gives one
# The gate decides on one upper bound; more resamples narrow its Monte Carlo error band so a case is "too close to
# call" only when the threshold really sits on the bound (cost: ~0.1 s for 80 items).
GATE_RESAMPLES = 20000
# Below this many items a percentile item bootstrap under-covers (Cameron, Gelbach & Miller 2008 find cluster-robust
# inference unreliable below roughly 20-50 clusters): the percentile intervals (agreement, Bias Cost, the position
# share) fall back or warn there.
MIN_BOOTSTRAP_ITEMS = 20
# The studentized rate interval holds from 10 items (bench/bench_coverage.py); below it the rate uses its exact
# fallback on the items as the effective size.
MIN_STUDENTIZED_ITEMS = 10
# Fewer items than this, or fewer items with any event than FEW_EVENT_ITEMS, and an interval carries a warning:
# cluster-robust inference is unreliable below roughly 20-50 clusters (Cameron, Gelbach & Miller 2008) and the
# coverage benchmark shows the misses concentrate there.
FEW_ITEMS = 30
FEW_EVENT_ITEMS = 5


def one_sided_level(confidence: float = CONFIDENCE) -> float:
    """The one-sided level of either bound of a two-sided ``confidence`` interval (0.975 for 0.95)."""
    return 1 - (1 - confidence) / 2


def percent(level: float) -> str:
    """0.975 -> '97.5%', 0.95 -> '95%' (no trailing zeros)."""
    return f"{level * 100:.1f}".rstrip("0").rstrip(".") + "%"
