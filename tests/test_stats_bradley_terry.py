"""Bradley-Terry / Davidson: statsmodels' GLM on untied data, Davidson's two-candidate closed form, separation."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from judgebias_core.stats.bradley_terry import bradley_terry


def _comparisons(strengths: np.ndarray, n: int, tie_rate: float, seed: int) -> tuple[list[str], list[str], list[str]]:
    rng = np.random.default_rng(seed)
    names = [f"m{i}" for i in range(len(strengths))]
    first, second, outcome = [], [], []
    for _ in range(n):
        i, j = rng.choice(len(strengths), size=2, replace=False)
        p_first = 1 / (1 + np.exp(strengths[j] - strengths[i]))
        draw = rng.random()
        result = "tie" if draw < tie_rate else ("first" if rng.random() < p_first else "second")
        first.append(names[i])
        second.append(names[j])
        outcome.append(result)
    return first, second, outcome


def test_untied_fit_equals_statsmodels_glm_bradley_terry() -> None:
    strengths = np.array([0.0, 0.5, -0.3, 1.0, 0.2])
    first, second, outcome = _comparisons(strengths, 3000, 0.0, seed=1)
    fit = bradley_terry(first, second, outcome, ridge=0.0, resamples=50)
    assert fit.method == "bradley-terry" and fit.tie_parameter is None and not fit.separated and fit.converged
    names = list(fit.candidates)
    design = np.zeros((len(first), len(names)))
    design[np.arange(len(first)), [names.index(c) for c in first]] = 1
    design[np.arange(len(first)), [names.index(c) for c in second]] = -1
    won = np.array([o == "first" for o in outcome], dtype=float)
    glm = sm.GLM(won, design[:, 1:], family=sm.families.Binomial()).fit()
    reference = np.r_[0.0, glm.params]
    assert np.array(fit.strengths) == pytest.approx(reference - reference.mean(), abs=1e-5)
    assert all(lo <= s <= hi for lo, s, hi in zip(fit.low, fit.strengths, fit.high))


def test_davidson_two_candidates_closed_form() -> None:
    first = ["x"] * 50
    second = ["y"] * 50
    outcome = ["first"] * 30 + ["second"] * 12 + ["tie"] * 8
    fit = bradley_terry(first, second, outcome, ridge=0.0, resamples=20)
    x, y = fit.strengths
    assert fit.method == "davidson"
    assert x - y == pytest.approx(np.log(30 / 12), abs=1e-5)
    assert fit.tie_parameter == pytest.approx(8 / np.sqrt(30 * 12), rel=1e-4)


def test_order_of_listing_does_not_matter() -> None:
    first, second, outcome = _comparisons(np.array([0.0, 0.4, -0.4]), 600, 0.2, seed=2)
    flipped = {"first": "second", "second": "first", "tie": "tie"}
    one = bradley_terry(first, second, outcome, resamples=30)
    other = bradley_terry(second, first, [flipped[o] for o in outcome], resamples=30)
    assert one.strengths == pytest.approx(other.strengths, abs=1e-6)


def test_a_candidate_that_wins_everything_is_flagged_and_its_interval_contains_the_estimate() -> None:
    first, second, outcome = _comparisons(np.array([0.0, 0.3, -0.2]), 300, 0.1, seed=3)
    items = [f"q{n % 30}" for n in range(300)]
    for n in range(60):
        first.append("champion")
        second.append(f"m{n % 3}")
        outcome.append("first")
        items.append(f"q{n % 30}")
    fit = bradley_terry(first, second, outcome, item_ids=items, resamples=100)
    assert fit.separated and "champion never lost or tied" in (fit.separation_note or "")
    champion = fit.candidates.index("champion")
    assert fit.low[champion] <= fit.strengths[champion] <= fit.high[champion]
    assert np.isfinite(fit.strengths[champion]) and fit.items == 30


def test_batched_newton_is_the_penalised_maximum_of_every_resample() -> None:
    """The batched Newton fit (point and resamples) reaches the penalised maximum scipy's L-BFGS finds one table at
    a time, with ties (Davidson) and without."""
    from judgebias_core.stats.bradley_terry import RIDGE, _fit, _fit_batch

    rng = np.random.default_rng(11)
    pairs = np.array([[0, 1], [0, 2], [1, 2], [1, 3], [2, 3]])
    for ties in (True, False):
        tables = rng.integers(0, 12, size=(6, len(pairs), 3)).astype(float)
        if not ties:
            tables[..., 2] = 0
        start = _fit(pairs, tables.sum(axis=0), 4, ties, RIDGE)[0]
        batched, gradient = _fit_batch(pairs, tables, 4, ties, RIDGE, start)
        assert (gradient < 1e-6).all()
        for table, row in zip(tables, batched, strict=True):
            reference = _fit(pairs, table, 4, ties, RIDGE)[0]
            assert row == pytest.approx(reference, abs=1e-4)


def test_mtbench_sized_bootstrap_converges_and_brackets_every_strength() -> None:
    """31 candidates, 465 pairs, ties, 100 item resamples in one batched Newton run (timed in bench/bench_judges.py)."""
    first, second, outcome = _comparisons(np.linspace(-2, 2, 31), 4000, 0.15, seed=5)
    items = [f"q{n % 80}" for n in range(4000)]
    fit = bradley_terry(first, second, outcome, item_ids=items, resamples=100)
    assert fit.converged and all(lo <= s <= hi for lo, s, hi in zip(fit.low, fit.strengths, fit.high))
