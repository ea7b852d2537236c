"""One position-effect test for swap pairs: symmetric in the two candidates, ties by a stated rule, items clustered.

Each pair is judged in both orders. A call scores 1 when the judge picks the first slot, 0 for the second, and 1/2 for
a tie (the tie rule: a tie is half a pick for each slot). A pair's position score is d = s1 + s2 - 1 in [-1, 1]:
+1 for (A, A), +1/2 for (A, C) and (C, A), 0 for every consistent pair, -1/2 and -1 for the recency mirror images.
Without a position effect E[d] = 0 whatever the candidates' quality, because each candidate sits once in each slot;
renaming the candidates does not change d (unlike a McNemar table keyed on which candidate is "x"). The first-slot
share is 1/2 + mean(d)/2. The test is the cluster-robust t test of mean(d) = 0 (the OLS on a constant,
``cov_type="cluster"`` by item, CR1, G - 1 degrees of freedom: Cameron & Miller 2015, sec. VI; Liang & Zeger 1986
for the equivalent GEE with an independence working correlation).

When it coincides with the old pair of tests: with two options (no ties) the discordant pairs are exactly the primacy
and recency pairs, so the binomial direction test and McNemar's test are the same test; and with one pair per item
(no clustering) t^2 = (N-1)/N (P - R)^2 / (P + R - (P - R)^2 / N), which tends to McNemar's uncorrected
chi-square (P - R)^2 / (P + R) under the null hypothesis (where (P - R)^2 / N is negligible against P + R).
With clustered pairs they differ by the design effect.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from judgebias_core.stats.estimate import small_sample_warning
from judgebias_core.stats.resampling import item_resample_sums
from judgebias_core.stats.settings import CONFIDENCE, MIN_BOOTSTRAP_ITEMS, RESAMPLES, SEED

SlotVerdict = Literal["A", "B", "C"]
_SLOT_SCORE: dict[str, float] = {"A": 1.0, "B": 0.0, "C": 0.5}
TIE_RULE = "a tie counts as half a pick for each slot"
PositionMethod = Literal["cluster-robust-t", "no-pairs"]


@dataclass(frozen=True)
class PositionTest:
    """First-slot share over swap pairs, its item-clustered interval and the cluster-robust test against 1/2.

    ``interval_method`` is ``item-bootstrap`` with >= 20 items, else ``cluster-robust-t``. ``unparsed`` counts the
    pairs left out because a verdict of either order was missing.
    """

    first_slot_share: float
    low: float
    high: float
    p_value: float
    statistic: float
    method: PositionMethod
    interval_method: str
    degenerate: bool
    degenerate_reason: str | None
    pairs: int
    items: int
    unparsed: int
    design_effect: float
    tie_rule: str
    confidence: float
    # Fewer than 30 items, or fewer than 5 items with a position-dependent verdict (stats.estimate, issue 23).
    warning: str | None = None


def position_scores(first_order: Sequence[str | None], second_order: Sequence[str | None]) -> np.ndarray:
    """d = s1 + s2 - 1 per pair (NaN where a verdict is missing); verdicts are slots: A first, B second, C tie."""
    def score(verdict: str | None) -> float:
        return _SLOT_SCORE.get(verdict, float("nan")) if verdict is not None else float("nan")

    return np.array([score(v1) + score(v2) - 1 for v1, v2 in zip(first_order, second_order, strict=True)])


def position_test(item_ids: Sequence[str], first_order: Sequence[str | None], second_order: Sequence[str | None],
                  confidence: float = CONFIDENCE, resamples: int = RESAMPLES, seed: int = SEED) -> PositionTest:
    """Test for a position effect over swap pairs given each pair's item and its slot verdicts in both orders."""
    scores = position_scores(first_order, second_order)
    items = np.asarray(item_ids)
    parsed = ~np.isnan(scores)
    scores, items = scores[parsed], items[parsed]
    if not len(scores):
        return position_test_from_item_sums(np.zeros(0), np.zeros(0), np.zeros(0), int((~parsed).sum()),
                                            confidence, resamples, seed)
    _, groups = np.unique(items, return_inverse=True)
    return position_test_from_item_sums(np.bincount(groups, weights=scores), np.bincount(groups, weights=scores**2),
                                        np.bincount(groups).astype(np.float64), int((~parsed).sum()), confidence,
                                        resamples, seed)


def position_test_from_item_sums(score_sums: np.ndarray, squared_sums: np.ndarray, pairs: np.ndarray,
                                 unparsed: int = 0, confidence: float = CONFIDENCE, resamples: int = RESAMPLES,
                                 seed: int = SEED) -> PositionTest:
    """:func:`position_test` from per-item sums: sum of d, sum of d^2 and parsed pairs of each item.

    The intercept-only OLS with item-clustered CR1 variance needs no more: mean(d) = sum d / N and the variance is
    G/(G-1) sum_g (S_g - n_g mean)^2 / N^2 (statsmodels' small-sample factor (N-1)/(N-K) is 1 for K = 1), so the
    metrics can test from per-item counts without expanding pairs.
    """
    sums = np.asarray(score_sums, dtype=np.float64)
    squares = np.asarray(squared_sums, dtype=np.float64)
    sizes = np.asarray(pairs, dtype=np.float64)
    keep = sizes > 0
    sums, squares, sizes = sums[keep], squares[keep], sizes[keep]
    n_pairs, n_items = int(round(sizes.sum())), int(len(sizes))

    def result(share: float, low: float, high: float, p: float, stat: float, interval: str, reason: str | None,
               deff: float = float("nan"), method: PositionMethod = "cluster-robust-t") -> PositionTest:
        warning = small_sample_warning(n_items, int(np.sum(squares > 0)), event_word="position-dependent verdict")
        return PositionTest(share, low, high, p, stat, method, interval, reason is not None, reason, n_pairs,
                            n_items, unparsed, deff, TIE_RULE, confidence, warning)

    nan = float("nan")
    if n_pairs == 0:
        return result(nan, nan, nan, nan, nan, "none", "no parsed pairs", method="no-pairs")
    mean = float(sums.sum()) / n_pairs
    share = 0.5 + mean / 2
    if not np.any(squares > 0):
        return result(share, nan, nan, 1.0, 0.0, "none",
                      f"no position-dependent verdicts in {n_pairs} pairs over {n_items} items")
    if n_items < 2:
        return result(share, nan, nan, nan, nan, "none", "one item: no between-item variation can be estimated")
    from scipy.stats import binomtest  # noqa: PLC0415 - on demand: a CLI gate never needs it
    from scipy.stats import t as student_t  # noqa: PLC0415 - on demand: a CLI gate never needs it

    item_means = sums / sizes
    if np.ptp(item_means) < 1e-12:
        if abs(mean) < 1e-12:
            # Every item balances its first-slot and second-slot picks exactly (e.g. one (A, A) and one (B, B)):
            # no item leans, so there is nothing to test; a sign test over items would count ties as leans.
            return result(0.5, nan, nan, 1.0, 0.0, "none",
                          f"every one of the {n_items} items balances its first-slot and second-slot picks exactly "
                          "(mean position score 0), so there is no lean to test and no interval can be estimated")
        # Every item leans the same way by the same amount: the exact sign test on items still respects clustering.
        return result(share, nan, nan, float(binomtest(n_items, n_items).pvalue), nan, "none",
                      f"every one of the {n_items} items has the same mean position score ({item_means[0]:+g}), so "
                      "no interval can be estimated; the p-value is the exact sign test over items")
    standard_error = float(np.sqrt(n_items / (n_items - 1) * np.sum((sums - sizes * mean) ** 2))) / n_pairs
    iid_variance = (float(squares.sum()) - n_pairs * mean**2) / (n_pairs - 1) / n_pairs if n_pairs > 1 else nan
    deff = standard_error**2 / iid_variance if iid_variance > 0 else nan
    df = n_items - 1
    statistic = mean / standard_error if standard_error > 0 else nan
    p_value = float(2 * student_t.sf(abs(statistic), df)) if standard_error > 0 else nan
    if n_items < MIN_BOOTSTRAP_ITEMS:
        half = float(student_t.ppf(0.5 + confidence / 2, df)) * standard_error
        return result(share, 0.5 + (mean - half) / 2, 0.5 + (mean + half) / 2, p_value, statistic,
                      "cluster-robust-t", None, deff)
    drawn = item_resample_sums(np.column_stack([sums, sizes]), resamples, seed)
    tail = (1 - confidence) / 2
    low, high = 0.5 + np.quantile(drawn[:, 0] / drawn[:, 1], [tail, 1 - tail]) / 2
    return result(share, float(low), float(high), p_value, statistic, "item-bootstrap", None, deff)
