"""Pairwise position bias (METHODS.md section 2): consistency, flip rate, direction, fairness, per judge and unit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from judgebias_core.metrics.pairwise_intervals import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    first_slot_test,
    mcnemar_slots,
    wilson_interval,
)
from judgebias_core.metrics.repetition import RepetitionMetrics, repetition_results
from judgebias_core.stats.clustered import clustered_rate

ROW_KEYS = ["dataset_id", "study", "judge", "repetition"]
COUNT_COLUMNS = ["pairs", "failed", "consistent", "primacy", "recency", "candidate_wins", "opponent_wins", "ties"]
MCNEMAR_COLUMNS = ["wins_both_slots", "wins_first_slot_only", "wins_second_slot_only", "wins_neither_slot"]


@dataclass(frozen=True)
class PairwiseJudgeMetrics:
    """Swap-consistency metrics of one judge in one (dataset, study, repetition). Counts are pairs."""

    dataset: str
    study: str
    judge: str
    repetition: int
    pairs: int  # including pairs with a parse failure
    failed_pairs: int
    consistent: int
    primacy: int
    recency: int
    position_consistency: float
    flip_rate: float
    flip_rate_ci_low: float  # Wilson 95%, pairs assumed independent (shown beside the decision interval)
    flip_rate_ci_high: float
    first_slot_share: float
    binomial_p: float
    preference_fairness: float
    classified_pairs: int
    units: int  # (candidate, task) units behind preference_fairness
    items: int
    bootstrap_ci_low: float  # the flip rate's decision interval (equal to flip_rate_decision_low/high)
    bootstrap_ci_high: float
    bootstrap_resamples: int
    bootstrap_seed: int
    # The decision interval of the flip rate (stats.clustered.clustered_rate over items): what gate, ranking safety
    # and sentences use. method names it; degenerate with a reason when no proper interval could be estimated.
    flip_rate_decision_low: float
    flip_rate_decision_high: float
    flip_rate_decision_method: str
    flip_rate_degenerate: bool
    flip_rate_degenerate_reason: str | None
    design_effect: float  # cluster-robust over iid variance of the flip rate (NaN when undefined)
    # PC = 1 - flip rate, so its decision interval is [1 - high, 1 - low] of the flip rate's.
    position_consistency_decision_low: float
    position_consistency_decision_high: float
    # First-slot share (primacy over flips) with its item-clustered interval.
    first_slot_share_decision_low: float
    first_slot_share_decision_high: float
    first_slot_share_decision_method: str
    first_slot_share_degenerate_reason: str | None
    first_slot_share_design_effect: float
    mcnemar_statistic: float
    mcnemar_p: float
    wins_first_slot_only: int
    wins_second_slot_only: int
    repetition_prompts: int | None = None
    repetition_stability: float | None = None
    repetition_floor: float | None = None
    flip_rate_excess: float | None = None  # flip rate minus the repetition floor


def unit_rates(units: pd.DataFrame) -> pd.DataFrame:
    """Add PC, PF, overall win rate and quality gap to a frame of unit counts (vectorised)."""
    classified = units["consistent"] + units["primacy"] + units["recency"]
    inconsistent = units["primacy"] + units["recency"]
    with np.errstate(invalid="ignore", divide="ignore"):
        win_rate = (units["candidate_wins"] + (units["ties"] + inconsistent) / 2) / classified.where(classified > 0)
    return units.assign(
        classified=classified,
        position_consistency=units["consistent"] / classified.where(classified > 0),
        preference_fairness=(units["recency"] - units["primacy"]) / units["pairs"],
        overall_win_rate=win_rate,
        quality_gap=(win_rate - 0.5).abs(),
    )


def unit_metrics_from_counts(frame: pd.DataFrame, repetition: int | None = None) -> pd.DataFrame:
    """Per (judge, candidate, task) of unit counts (``unit_counts_frame``): counts, PC, PF, overall win rate
    (inconsistent = tie) and quality gap.

    Repetitions are pooled unless ``repetition`` picks one.
    """
    if repetition is not None:
        frame = frame[frame["repetition"] == repetition]
    pooled = frame.groupby(["judge", "candidate", "task"], as_index=False)[COUNT_COLUMNS].sum()
    return unit_rates(pooled)


def task_breakdown(units: pd.DataFrame, by: str = "task") -> pd.DataFrame:
    """Per (judge, ``by``): pooled PC (ratio of sums) and PF as the unweighted mean over its units."""
    grouped = units.groupby(["judge", by], as_index=False).agg(
        pairs=("pairs", "sum"), consistent=("consistent", "sum"), classified=("classified", "sum"),
        preference_fairness=("preference_fairness", "mean"), units=("pairs", "size"),
    )
    return grouped.assign(position_consistency=grouped["consistent"] / grouped["classified"].where(
        grouped["classified"] > 0))


def candidate_win_rates(units: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, candidate): overall win rate against the opponent, pooled over tasks, best first."""
    pooled = units.groupby(["judge", "candidate"], as_index=False)[COUNT_COLUMNS].sum()
    return unit_rates(pooled).sort_values(["judge", "overall_win_rate"], ascending=[True, False])


def _row_metrics(key: tuple, counts: pd.Series, pf: float, units: int, items: pd.DataFrame,
                 repetition: RepetitionMetrics | None, resamples: int, seed: int) -> PairwiseJudgeMetrics:
    dataset, study, judge, rep = key
    consistent, primacy, recency = int(counts["consistent"]), int(counts["primacy"]), int(counts["recency"])
    classified = consistent + primacy + recency
    flips = primacy + recency
    flip_rate = flips / classified if classified else float("nan")
    wilson = wilson_interval(flips, classified)
    items = items[items["classified"] > 0]
    item_flips = (items["classified"] - items["consistent"]).to_numpy()
    flip = clustered_rate(item_flips, items["classified"].to_numpy(), resamples=resamples, seed=seed)
    direction = clustered_rate(items["primacy"].to_numpy(), item_flips, resamples=resamples, seed=seed,
                               event_word="first-slot flips")
    share, binomial_p = first_slot_test(primacy, recency)
    test = mcnemar_slots(*(int(counts[c]) for c in MCNEMAR_COLUMNS))
    floor = repetition.repetition_floor if repetition else None
    return PairwiseJudgeMetrics(
        dataset=dataset, study=study, judge=judge, repetition=int(rep), pairs=int(counts["pairs"]),
        failed_pairs=int(counts["failed"]), consistent=consistent, primacy=primacy, recency=recency,
        position_consistency=consistent / classified if classified else float("nan"), flip_rate=flip_rate,
        flip_rate_ci_low=wilson.low, flip_rate_ci_high=wilson.high, first_slot_share=share, binomial_p=binomial_p,
        preference_fairness=pf, classified_pairs=classified, units=units, items=len(items),
        bootstrap_ci_low=flip.low, bootstrap_ci_high=flip.high, bootstrap_resamples=resamples, bootstrap_seed=seed,
        flip_rate_decision_low=flip.low, flip_rate_decision_high=flip.high, flip_rate_decision_method=flip.method,
        flip_rate_degenerate=flip.degenerate, flip_rate_degenerate_reason=flip.degenerate_reason,
        design_effect=flip.design_effect, position_consistency_decision_low=1 - flip.high,
        position_consistency_decision_high=1 - flip.low, first_slot_share_decision_low=direction.low,
        first_slot_share_decision_high=direction.high, first_slot_share_decision_method=direction.method,
        first_slot_share_degenerate_reason=direction.degenerate_reason,
        first_slot_share_design_effect=direction.design_effect,
        mcnemar_statistic=test.statistic, mcnemar_p=test.p_value, wins_first_slot_only=test.wins_first_slot_only,
        wins_second_slot_only=test.wins_second_slot_only,
        repetition_prompts=repetition.prompts if repetition else None,
        repetition_stability=repetition.repetition_stability if repetition else None,
        repetition_floor=floor,
        flip_rate_excess=flip_rate - floor if floor is not None and classified else None,
    )


def pairwise_metrics_from_counts(units: pd.DataFrame, items: pd.DataFrame, repetitions: pd.DataFrame,
                                 resamples: int = BOOTSTRAP_RESAMPLES,
                                 seed: int = BOOTSTRAP_SEED) -> list[PairwiseJudgeMetrics]:
    """One result per (dataset, study, judge, repetition) of the unit counts, from the three frames of
    ``store.pairwise_queries.pairwise_inputs`` (unit counts, per-item counts, repetition counts)."""
    if units.empty:
        return []
    units = unit_rates(units)
    per_row = units.groupby(ROW_KEYS)[COUNT_COLUMNS + MCNEMAR_COLUMNS].sum()
    fairness = units.groupby(ROW_KEYS)["preference_fairness"].agg(["mean", "size"])
    items_by_row = dict(iter(items.groupby(ROW_KEYS)))
    stability = {(r.dataset, r.study, r.judge): r for r in repetition_results(repetitions)}
    empty_items = items.iloc[0:0]
    return [
        _row_metrics(key, counts, float(fairness.loc[key, "mean"]), int(fairness.loc[key, "size"]),
                     items_by_row.get(key, empty_items), stability.get(key[:3]), resamples, seed)
        for key, counts in per_row.iterrows()
    ]


def metrics_frame(results: Sequence[PairwiseJudgeMetrics]) -> pd.DataFrame:
    """Results as a DataFrame, one row each."""
    return pd.DataFrame([asdict(result) for result in results])


@dataclass(frozen=True)
class RankingSafety:
    """Whether the order of the top two of a ranking could be an artefact of position (METHODS.md section 2)."""

    top: str
    runner_up: str
    gap: float
    flip_rate_ci_high: float
    possibly_positional: bool

    @property
    def message(self) -> str:
        comparison = "less" if self.possibly_positional else "more"
        verdict = ("their order could be an artefact of position" if self.possibly_positional
                   else "position alone is unlikely to explain their order")
        return (f"{self.top} leads {self.runner_up} by {self.gap:.3f}, {comparison} than the item-clustered upper "
                f"bound of the judge's flip rate ({self.flip_rate_ci_high:.3f}): {verdict}.")


def ranking_safety(win_rates: pd.Series, flip_rate_ci_high: float) -> RankingSafety | None:
    """Compare the top two of ``win_rates`` (indexed by name) with the flip rate's item-clustered upper bound."""
    ranked = win_rates.dropna().sort_values(ascending=False)
    if len(ranked) < 2:
        return None
    gap = float(ranked.iloc[0] - ranked.iloc[1])
    return RankingSafety(top=str(ranked.index[0]), runner_up=str(ranked.index[1]), gap=gap,
                         flip_rate_ci_high=flip_rate_ci_high, possibly_positional=gap < flip_rate_ci_high)
