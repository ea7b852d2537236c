"""Agreement: Cohen's kappa against statsmodels, Krippendorff's alpha on his published examples and against Fleiss'
kappa, item-clustered intervals, and the effective number of judges at its limits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from judgebias_core.stats.agreement import cohens_kappa as clustered_kappa
from judgebias_core.stats.agreement import effective_judges, krippendorff_alpha

nan = np.nan
# Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12 units (here transposed:
# units are rows), missing values; alpha nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
KRIPPENDORFF_C = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]).T
# Krippendorff 2011, section A: two observers, binary data, alpha = 0.095.
KRIPPENDORFF_A = np.array([[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]], dtype=float).T


@pytest.mark.parametrize(("level", "expected"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849),
                                                 ("ratio", 0.797)])
def test_krippendorff_published_example_c(level: str, expected: float) -> None:
    result = krippendorff_alpha(KRIPPENDORFF_C, level=level)  # type: ignore[arg-type]
    assert round(result.estimate, 3) == expected
    assert result.units == 11  # the 12th unit has one value only and is not pairable


def test_krippendorff_published_example_a() -> None:
    assert round(krippendorff_alpha(KRIPPENDORFF_A).estimate, 3) == 0.095


def test_krippendorff_alpha_tends_to_fleiss_kappa_on_complete_data() -> None:
    rng = np.random.default_rng(8)
    truth = rng.integers(0, 3, size=3000)
    ratings = np.where(rng.random((3000, 4)) < 0.6, truth[:, None], rng.integers(0, 3, size=(3000, 4)))
    fleiss = fleiss_kappa(aggregate_raters(ratings)[0])
    alpha = krippendorff_alpha(ratings.astype(float)).estimate
    # alpha = 1 - (1 - fleiss) (nm - 1)/(nm) on complete data: equal up to O(1/(n m))
    assert alpha == pytest.approx(fleiss, abs=2e-4)


def test_krippendorff_perfect_and_undefined() -> None:
    perfect = np.array([[1, 1], [2, 2], [3, 3]] * 10, dtype=float)
    result = krippendorff_alpha(perfect, level="interval")
    assert result.estimate == 1 and result.degenerate  # every resample gives 1: no interval is drawn
    same = krippendorff_alpha(np.ones((5, 3)))
    assert same.degenerate and "undefined" in (same.degenerate_reason or "")


def test_cohens_kappa_equals_statsmodels_and_a_hand_computation() -> None:
    rng = np.random.default_rng(1)
    a = rng.choice(["A", "B", "C"], size=500)
    b = np.where(rng.random(500) < 0.7, a, rng.choice(["A", "B", "C"], size=500))
    result = clustered_kappa(a.tolist(), b.tolist())
    table = pd.crosstab(a, b).to_numpy()
    assert result.estimate == pytest.approx(cohens_kappa(table).kappa)
    total = table.sum()
    observed, expected = np.trace(table) / total, (table.sum(1) @ table.sum(0)) / total**2
    assert result.estimate == pytest.approx((observed - expected) / (1 - expected))
    assert result.low < result.estimate < result.high and result.method == "item-bootstrap"


def test_item_clustering_widens_the_kappa_interval() -> None:
    rng = np.random.default_rng(2)
    items = np.repeat(np.arange(40), 20)
    easy = rng.random(40)[items] < 0.5  # on hard items the raters agree only by chance
    a = rng.integers(0, 2, size=800)
    b = np.where(easy, a, rng.integers(0, 2, size=800))
    clustered = clustered_kappa(a.tolist(), b.tolist(), item_ids=[str(i) for i in items])
    independent = clustered_kappa(a.tolist(), b.tolist())
    assert clustered.estimate == independent.estimate and clustered.items == 40 and independent.items == 800
    assert clustered.high - clustered.low > 1.3 * (independent.high - independent.low)


def test_missing_labels_are_dropped_and_one_label_is_undefined() -> None:
    result = clustered_kappa(["A", None, "B", "A"], ["A", "B", None, "A"])
    assert result.units == 2 and result.degenerate
    assert "undefined" in (result.degenerate_reason or "")


def test_alpha_on_two_raters_nominal_agrees_with_statsmodels_fleiss_on_the_same_table() -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(0, 3, 4000)
    b = np.where(rng.random(4000) < 0.5, a, rng.integers(0, 3, 4000))
    alpha = krippendorff_alpha(np.column_stack([a, b]).astype(float)).estimate
    assert alpha == pytest.approx(fleiss_kappa(aggregate_raters(np.column_stack([a, b]))[0]), abs=5e-4)


def test_effective_judges_limits() -> None:
    rng = np.random.default_rng(4)
    independent = pd.DataFrame(rng.normal(size=(20_000, 6)), columns=list("abcdef"))
    assert effective_judges(independent).effective == pytest.approx(6, rel=0.02)
    shared = rng.normal(size=20_000)
    identical = pd.DataFrame({j: shared for j in "abcdef"})
    assert effective_judges(identical).effective == pytest.approx(1)
    rho = 0.5
    correlated = pd.DataFrame(np.sqrt(rho) * shared[:, None] + np.sqrt(1 - rho) * rng.normal(size=(20_000, 6)),
                              columns=list("abcdef"))
    result = effective_judges(correlated)
    assert result.effective == pytest.approx(6 / (1 + 5 * rho), rel=0.03)
    assert result.mean_correlation == pytest.approx(rho, abs=0.02)


def test_effective_judges_leaves_out_constant_judges() -> None:
    frame = pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 0, 1, 0], "c": [0, 0, 0, 0]})
    result = effective_judges(frame)
    assert result.left_out == ("c",) and result.judges == ("a", "b")
    assert result.effective == 2  # r = -1 would claim infinitely many: clipped to k
