"""The Wilson score interval as statsmodels computes it (``proportion_confint(method="wilson")``), without
importing statsmodels and scipy.stats: those imports are most of the start-up of a CLI ``gate`` call.

Same formula, same order of operations and the same normal quantile (``scipy.special.ndtri``, what
``scipy.stats.norm.isf`` evaluates), so the bounds equal statsmodels' bit for bit (tests/test_wilson.py), except where rounding puts a bound a hair
outside the estimate: there the bound is the estimate.
"""

from __future__ import annotations

import math


def wilson_bounds(count: float, nobs: float, alpha: float = 0.05) -> tuple[float, float]:
    """Two-sided 1 - ``alpha`` Wilson interval of ``count`` / ``nobs`` (``nobs`` > 0), clipped to [0, 1]."""
    from scipy.special import ndtri  # noqa: PLC0415 - on demand; scipy.special only, not scipy.stats

    crit = -float(ndtri(alpha / 2.0))
    q = count / nobs
    crit2 = crit**2
    denom = 1 + crit2 / nobs
    center = (q + crit2 / (2 * nobs)) / denom
    dist = crit * math.sqrt(q * (1.0 - q) / nobs + crit2 / (4.0 * nobs**2))
    dist /= denom
    low, high = min(max(center - dist, 0.0), 1.0), min(max(center + dist, 0.0), 1.0)
    # Rounding can leave a bound a hair on the wrong side of the estimate (3.5e-18 above a zero rate); the interval
    # always contains it, so such a bound is the estimate itself (never show an estimate outside its interval).
    return min(low, q), max(high, q)
