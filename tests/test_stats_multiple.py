"""Holm and Benjamini-Hochberg against statsmodels, a hand-worked Holm case, and the wording they allow."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from judgebias_core.stats.multiple import correct, holm

p_lists = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=60)


@settings(max_examples=40, deadline=None)
@given(p_lists, st.sampled_from(["holm", "fdr_bh"]))
def test_equals_statsmodels_multipletests(p_values: list[float], method: str) -> None:
    result = correct(p_values, method=method)  # type: ignore[arg-type]
    reject, adjusted, _, _ = multipletests(p_values, alpha=0.05, method=method)
    assert result.corrected == pytest.approx(tuple(adjusted))
    assert result.reject == tuple(bool(r) for r in reject)
    assert result.family_size == len(p_values)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.001, 0.01, 0.0125, 0.02, 0.025, 0.05, 0.3, 1.0]) | st.floats(0, 1),
                min_size=1, max_size=40))
def test_holm_is_statsmodels_bit_for_bit(p_values: list[float]) -> None:
    """Holm runs without statsmodels (which collects garbage on every call) and gives its exact numbers."""
    rejected, adjusted = holm(np.asarray(p_values))
    reject, expected, _, _ = multipletests(p_values, alpha=0.05, method="holm")
    assert adjusted.tolist() == expected.tolist() and rejected.tolist() == reject.tolist()


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.02, 0.03, 0.5 times 4, 3, 2, 1 -> 0.04, 0.06, 0.06 (monotone), 0.5
    result = correct([0.03, 0.01, 0.5, 0.02], labels=["c", "a", "d", "b"])
    assert result.corrected == pytest.approx((0.06, 0.04, 0.5, 0.06))
    assert result.reject == (False, True, False, False)
    assert result.sentence("a") == "unlikely to be chance after Holm correction over 4 tests (corrected p = 0.04)"
    assert result.sentence("b").startswith("could be chance after Holm correction over 4 tests")


def test_untested_entries_stay_out_of_the_family() -> None:
    result = correct([0.01, float("nan"), 0.02], labels=["x", "y", "z"], method="fdr_bh")
    assert result.family_size == 2 and math.isnan(result.corrected[1]) and not result.reject[1]
    assert result.corrected[0] == pytest.approx(multipletests([0.01, 0.02], method="fdr_bh")[1][0])
    assert result.sentence("y") == "not tested"
    assert "Benjamini-Hochberg correction over 2 tests" in result.sentence("x")


def test_sixty_tests_at_005_each_are_not_all_unlikely_to_be_chance() -> None:
    p_values = np.linspace(0.001, 0.049, 60)
    result = correct(p_values.tolist())
    assert not any(result.reject)  # the smallest, 0.001, becomes 0.06 after Holm over 60 tests
    assert result.sentence("0") == "could be chance after Holm correction over 60 tests (corrected p = 0.06)"
    uncorrected = correct(p_values.tolist(), method="none")
    assert all(uncorrected.reject) and "no correction for the 60 tests shown" in uncorrected.sentence("0")


def test_mismatched_labels_are_an_error() -> None:
    with pytest.raises(ValueError):
        correct([0.1, 0.2], labels=["only one"])
