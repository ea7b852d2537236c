"""Preference fairness: units whose every pair failed are left out and counted; both forms side by side."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.metrics.pairwise import COUNT_COLUMNS, MCNEMAR_COLUMNS, pairwise_metrics_from_counts
from judgebias_core.metrics.pairwise_fairness import judge_fairness, with_fairness

ROW = {"dataset_id": "d", "study": "s", "repetition": 1}


def unit(judge: str, candidate: str, task: str, consistent: int, primacy: int, recency: int,
         failed: int) -> dict[str, object]:
    counts = dict.fromkeys(COUNT_COLUMNS + MCNEMAR_COLUMNS, 0)
    counts.update(consistent=consistent, primacy=primacy, recency=recency, failed=failed,
                  pairs=consistent + primacy + recency + failed)
    return {**ROW, "judge": judge, "candidate": candidate, "task": task, **counts}


def item_rows(units: pd.DataFrame) -> pd.DataFrame:
    """One item per unit, with the unit's counts (every flip a whole-slot pick)."""
    items = units.assign(item_id=units["candidate"] + "/" + units["task"],
                         classified=units["consistent"] + units["primacy"] + units["recency"],
                         primacy_both=units["primacy"], recency_both=units["recency"])
    return items[["dataset_id", "study", "judge", "repetition", "item_id", "classified", "consistent", "primacy",
                  "recency", "primacy_both", "recency_both"]]


def metrics(units: pd.DataFrame) -> dict[str, object]:
    results = pairwise_metrics_from_counts(units, item_rows(units), pd.DataFrame(), resamples=50)
    return {r.judge: r for r in results}


def test_a_unit_whose_pairs_all_failed_is_left_out_and_counted() -> None:
    units = pd.DataFrame([unit("j", "x", "t1", 2, 0, 2, 0), unit("j", "y", "t1", 0, 0, 0, 4),
                          unit("j", "z", "t2", 3, 1, 0, 0)])
    result = metrics(units)["j"]
    # Raw: x 2/4 = 0.5, z -1/4; y (all failed) would have entered as 0 and pulled the mean to 0.0833.
    assert result.preference_fairness == pytest.approx((0.5 - 0.25) / 2)
    assert (result.units, result.units_without_classified_pair) == (2, 1)


def test_a_judge_with_only_failed_replies_has_no_fairness() -> None:
    units = pd.DataFrame([unit("ok", "x", "t", 3, 1, 0, 0), unit("broken", "x", "t", 0, 0, 0, 5),
                          unit("broken", "y", "t", 0, 0, 0, 3)])
    broken = metrics(units)["broken"]
    assert broken.preference_fairness is None and broken.preference_fairness_scaled is None
    assert (broken.units, broken.units_without_classified_pair, broken.classified_pairs) == (0, 2, 0)
    assert metrics(units)["ok"].preference_fairness == pytest.approx(-0.25)


def test_shi_scaling_divides_by_the_mean_pairs_per_unit_of_the_judge_and_task() -> None:
    # Unequal units in one task: x has 4 pairs, y 8 (2 failed); mean pairs per unit = 6.
    units = pd.DataFrame([unit("j", "x", "t", 1, 0, 3, 0), unit("j", "y", "t", 4, 2, 0, 2)])
    rated = with_fairness(units.assign(classified=units["consistent"] + units["primacy"] + units["recency"]),
                          ["judge"])
    assert rated["preference_fairness"].tolist() == pytest.approx([3 / 4, -2 / 8])
    assert rated["preference_fairness_scaled"].tolist() == pytest.approx([3 / 6, -2 / 6])
    summary = judge_fairness(rated, ["judge"]).loc["j"]
    assert summary["preference_fairness_scaled"] == pytest.approx((3 / 6 - 2 / 6) / 2)
    # Equal units: the two forms agree.
    equal = pd.DataFrame([unit("j", "x", "t", 1, 0, 3, 0), unit("j", "y", "t", 2, 2, 0, 0)])
    same = with_fairness(equal.assign(classified=4), ["judge"])
    assert same["preference_fairness"].tolist() == pytest.approx(same["preference_fairness_scaled"].tolist())

counts = st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5), st.integers(0, 5))


@settings(max_examples=60, deadline=None)
@given(st.lists(counts, min_size=1, max_size=12))
def test_judge_fairness_is_the_mean_over_units_with_a_classified_pair(cells: list[tuple[int, int, int, int]]) -> None:
    frame = pd.DataFrame([unit("j", f"c{i}", f"t{i % 3}", *cell) for i, cell in enumerate(cells)
                          if sum(cell) > 0])
    if frame.empty:
        return
    rated = with_fairness(frame, ["judge"])
    summary = judge_fairness(rated, ["judge"]).loc["j"]
    classified = [(c, p, r, f) for c, p, r, f in cells if c + p + r > 0]
    assert summary["units"] == len(classified)
    assert summary["units_without_classified_pair"] == sum(1 for cell in cells if sum(cell) > 0) - len(classified)
    if classified:
        raw = np.mean([(r - p) / (c + p + r + f) for c, p, r, f in classified])
        assert summary["preference_fairness"] == pytest.approx(raw)
        assert -1 - 1e-12 <= summary["preference_fairness"] <= 1 + 1e-12
    else:
        assert np.isnan(summary["preference_fairness"]) and np.isnan(summary["preference_fairness_scaled"])
