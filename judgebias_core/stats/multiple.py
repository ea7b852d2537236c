"""Multiple comparisons over the family of tests a page or report shows.

Holm's step-down procedure controls the family-wise error rate (Holm 1979, "A simple sequentially rejective multiple
test procedure", Scand. J. Statist. 6:65-70) and is the default; Benjamini-Hochberg controls the false discovery rate
(Benjamini & Hochberg 1995, JRSS B 57:289-300) as an option. Benjamini-Hochberg through statsmodels
``multipletests``; Holm with the same operations as ``multipletests`` (tests check they agree exactly), because
statsmodels runs a full garbage collection on every Holm call (0.1-0.3 s each in a report holding its figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

ALPHA = 0.05
Correction = Literal["holm", "fdr_bh", "none"]
_NAMES: dict[str, str] = {"holm": "Holm correction", "fdr_bh": "Benjamini-Hochberg correction", "none": "no correction"}


@dataclass(frozen=True)
class CorrectedTests:
    """A family of p-values after correction: which correction, over how many tests, and which reject at ``alpha``.

    ``labels`` name the tests in the order given; NaN p-values (tests that could not be run) are left out of the
    family, keep NaN as their corrected p and never reject.
    """

    labels: tuple[str, ...]
    p_values: tuple[float, ...]
    corrected: tuple[float, ...]
    reject: tuple[bool, ...]
    method: Correction
    family_size: int
    alpha: float

    @property
    def method_name(self) -> str:
        return _NAMES[self.method]

    def sentence(self, label: str) -> str:
        """What may be said of test ``label``: "unlikely to be chance" only when its corrected p is below alpha."""
        index = self.labels.index(label)
        p = self.corrected[index]
        if np.isnan(p):
            return "not tested"
        over = f"{self.method_name} over {self.family_size} test{'s' if self.family_size != 1 else ''}"
        if self.method == "none":
            over = f"no correction for the {self.family_size} tests shown"
        if self.reject[index]:
            return f"unlikely to be chance after {over} (corrected p = {p:.3g})"
        return f"could be chance after {over} (corrected p = {p:.3g})"


def holm(p_values: np.ndarray, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down rejections and adjusted p-values, in the order given (statsmodels' arithmetic)."""
    order = np.argsort(p_values)
    ranked = np.take(p_values, order)
    steps = np.arange(len(ranked), 0, -1)
    not_rejected = ranked > alpha / steps
    first_kept = int(np.nonzero(not_rejected)[0].min()) if not_rejected.any() else len(ranked)
    not_rejected[first_kept:] = True
    adjusted = np.maximum.accumulate(ranked * steps)
    adjusted[adjusted > 1] = 1
    rejected_in_order, adjusted_in_order = np.empty_like(not_rejected), np.empty_like(adjusted)
    rejected_in_order[order], adjusted_in_order[order] = ~not_rejected, adjusted
    return rejected_in_order, adjusted_in_order


def correct(p_values: Sequence[float], labels: Sequence[str] | None = None, method: Correction = "holm",
            alpha: float = ALPHA) -> CorrectedTests:
    """Correct a family of p-values with Holm (default), Benjamini-Hochberg (``fdr_bh``) or none."""
    raw = np.asarray(p_values, dtype=np.float64)
    names = tuple(labels) if labels is not None else tuple(str(i) for i in range(len(raw)))
    if len(names) != len(raw):
        raise ValueError("labels and p_values differ in length")
    tested = ~np.isnan(raw)
    corrected = np.full(len(raw), np.nan)
    reject = np.zeros(len(raw), dtype=bool)
    if tested.any():
        if method == "none":
            corrected[tested] = raw[tested]
            reject[tested] = raw[tested] < alpha
        elif method == "holm":
            rejected, adjusted = holm(raw[tested], alpha)
            corrected[tested] = adjusted
            reject[tested] = rejected
        else:
            from statsmodels.stats.multitest import multipletests  # noqa: PLC0415 - on demand: a CLI gate never needs it
            rejected, adjusted, _, _ = multipletests(raw[tested], alpha=alpha, method=method)
            corrected[tested] = adjusted
            reject[tested] = rejected
    return CorrectedTests(names, tuple(float(p) for p in raw), tuple(float(p) for p in corrected),
                          tuple(bool(r) for r in reject), method, int(tested.sum()), alpha)
