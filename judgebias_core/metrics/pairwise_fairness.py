"""Preference fairness in both published forms (METHODS.md section 2).

- **raw** (this project): per (judge, candidate, task) unit, PF = (recency - primacy) / N, N the unit's pairs
  including parse failures.
- **scaled** (Shi et al. 2024, arXiv 2406.07791, their public code): the unit's raw score recency - primacy,
  min-max scaled per judge and task to [-1, 1] between the smallest and largest possible score, -T and +T, where T
  is the judge's pairs in that task over its candidates (the mean pairs per unit of that judge and task):
  PF = (score + T) / 2T * 2 - 1 = (recency - primacy) / T. Equal to the raw form when every unit of a task has as
  many pairs; it differs where parse failures or missing pairs make units unequal.

A unit with no classified pair (every pair failed to parse) has no PF in either form: it is left out of the judge's
mean and counted apart, and a judge with no classified pair at all has no PF (None), not a "fair" 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def with_fairness(units: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Add ``preference_fairness`` (raw) and ``preference_fairness_scaled`` (Shi et al.) to unit counts; ``keys``
    are the columns that, with ``task``, make one (judge, task) group of units (e.g. judge and repetition)."""
    classified = units["consistent"] + units["primacy"] + units["recency"]
    lean = (units["recency"] - units["primacy"]).astype(np.float64)
    group = units.groupby([*keys, "task"])["pairs"]
    mean_pairs = group.transform("sum") / group.transform("size")
    has_pair = classified > 0
    return units.assign(preference_fairness=(lean / units["pairs"]).where(has_pair),
                        preference_fairness_scaled=(lean / mean_pairs).where(has_pair))


def judge_fairness(units: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Per ``keys`` (a judge's row): both PF forms as the unweighted mean over units with a classified pair
    (None-safe NaN when there is none), the units behind them and the units left out."""
    grouped = units.groupby(list(keys))
    # Series means (as earlier releases computed PF), so the unchanged values keep their last digit.
    has_pair = units["preference_fairness"].notna().groupby([units[k] for k in keys])
    return pd.DataFrame({
        "preference_fairness": grouped["preference_fairness"].agg(["mean"])["mean"],
        "preference_fairness_scaled": grouped["preference_fairness_scaled"].agg(["mean"])["mean"],
        "units": has_pair.sum().astype(int),
        "units_without_classified_pair": (grouped.size() - has_pair.sum()).astype(int),
    })


def optional(value: float) -> float | None:
    """NaN (no unit with a classified pair) as None, so JSON says null rather than a number."""
    return None if value != value else float(value)
