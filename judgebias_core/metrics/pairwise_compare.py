"""Two judges on the same pairs, and candidates' win rates, with item-clustered intervals (METHODS.md section 2).

- **Comparing two judges**: the difference of their flip rates on the pairs both classified (same repetition, item
  and candidates), with the paired cluster-robust t interval (``stats.paired.rate_difference``: items paired for both
  judges, so what the pairs share cancels) and its cluster-robust t test.
- **Win rates**: a candidate's overall win rate against its opponent (a tie or an inconsistent pair half a win)
  with the item-clustered decision interval of ``stats.clustered.clustered_rate`` (the candidate's pairs on one
  item, over repetitions, resampled together).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.paired import ItemCounts, rate_difference
from judgebias_core.stats.settings import RESAMPLES, SEED


@dataclass(frozen=True)
class JudgeComparison:
    """flip_rate_a - flip_rate_b on the pairs both judges classified, with its paired item-clustered interval."""

    dataset: str
    study: str
    judge_a: str
    judge_b: str
    repetition: int | None  # None: every repetition, an item's pairs of all repetitions in one cluster
    shared_pairs: int
    items: int
    flips_a: int
    flips_b: int
    flip_rate_a: float
    flip_rate_b: float
    difference: float
    low: float
    high: float
    p_value: float
    method: str
    degenerate: bool
    degenerate_reason: str | None
    confidence: float
    warning: str | None = None  # fewer than 30 items or 5 items with a flip (stats.estimate, issue 23)

    @property
    def sentence(self) -> str:
        if self.shared_pairs == 0:
            return f"{self.judge_a} and {self.judge_b} have no pair that both classified, so nothing to compare."
        diff = f"{self.difference * 100:+.1f} percentage points"
        where = (f"on the {self.shared_pairs:,} pairs both classified ({self.items:,} items): "
                 f"{self.flip_rate_a:.1%} against {self.flip_rate_b:.1%}, a difference of {diff}")
        caution = f" Caution: {self.warning}." if self.warning else ""
        if self.degenerate:
            return f"{self.judge_a} against {self.judge_b} {where} ({self.degenerate_reason}).{caution}"
        return (f"{self.judge_a} against {self.judge_b} {where}; 95% {self.method} interval "
                f"{self.low * 100:+.1f} to {self.high * 100:+.1f} points (items paired: both judges' pairs of an item "
                f"together).{caution}")


def compare_from_shared(shared: pd.DataFrame, dataset: str, study: str, judge_a: str, judge_b: str,
                        repetition: int | None = None) -> JudgeComparison:
    """The comparison from per-item counts of shared pairs (``store.pairwise_queries.shared_flips``)."""
    shared = shared.groupby("item_id", as_index=False)[["shared", "flips_a", "flips_b"]].sum()
    items = shared["item_id"].astype(str).tolist()
    trials = shared["shared"].to_numpy()
    result = rate_difference(ItemCounts.of(items, shared["flips_a"].to_numpy(), trials),
                             ItemCounts.of(items, shared["flips_b"].to_numpy(), trials))
    return JudgeComparison(
        dataset=dataset, study=study, judge_a=judge_a, judge_b=judge_b, repetition=repetition,
        shared_pairs=int(trials.sum()), items=len(items), flips_a=int(shared["flips_a"].sum()),
        flips_b=int(shared["flips_b"].sum()), flip_rate_a=result.rate_a, flip_rate_b=result.rate_b,
        difference=result.difference, low=result.low, high=result.high, p_value=result.p_value,
        method=result.method, degenerate=result.degenerate, degenerate_reason=result.degenerate_reason,
        confidence=result.confidence, warning=result.warning,
    )


WIN_INTERVAL_COLUMNS = ["judge", "candidate", "items", "win_rate_low", "win_rate_high", "win_rate_method",
                        "win_rate_degenerate_reason", "win_rate_design_effect"]


def win_rate_intervals(item_counts: pd.DataFrame, resamples: int = RESAMPLES, seed: int = SEED) -> pd.DataFrame:
    """Per (judge, candidate) of ``store.pairwise_queries.candidate_item_counts``: the overall win rate's
    item-clustered interval, its method, the degenerate reason (None when proper) and the design effect."""
    rows = []
    for (judge, candidate), group in item_counts.groupby(["judge", "candidate"]):
        wins = group["candidate_wins"] + (group["ties"] + group["inconsistent"]) / 2
        rate = clustered_rate(wins.to_numpy(), group["classified"].to_numpy(), resamples=resamples, seed=seed,
                              event_word="wins")
        rows.append({"judge": judge, "candidate": candidate, "items": rate.items, "win_rate_low": rate.low,
                     "win_rate_high": rate.high, "win_rate_method": rate.method,
                     "win_rate_degenerate_reason": rate.degenerate_reason, "win_rate_design_effect": rate.design_effect})
    return pd.DataFrame(rows, columns=WIN_INTERVAL_COLUMNS)
