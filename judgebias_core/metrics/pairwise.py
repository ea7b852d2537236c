"""Pairwise position bias (METHODS.md section 2): consistency, flip rate, direction, fairness, per judge and unit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from judgebias_core.metrics.pairwise_fairness import judge_fairness, optional, with_fairness
from judgebias_core.metrics.pairwise_intervals import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    first_slot_test,
    mcnemar_slots,
    wilson_interval,
)
from judgebias_core.metrics.repetition import RepetitionMetrics, repetition_results
from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.estimate import Estimate
from judgebias_core.stats.paired import ItemCounts, RateDifference, excess_over_floor
from judgebias_core.stats.position_test import PositionTest, position_test_from_item_sums
from judgebias_core.stats.settings import CONFIDENCE

ROW_KEYS = ["dataset_id", "study", "judge", "repetition"]
COUNT_COLUMNS = ["pairs", "failed", "consistent", "primacy", "recency", "candidate_wins", "opponent_wins", "ties"]
IID_TESTS_NOTE = ("binomial_p and mcnemar_p: pairs assumed independent; kept for compatibility, never used in "
                  "sentences (position_p is the test)")
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
    binomial_p: float  # exact binomial test of primacy against recency: pairs assumed independent; not in sentences
    preference_fairness: float | None  # raw (recency - primacy) / N, mean over units with a classified pair
    preference_fairness_scaled: float | None  # Shi et al.'s per-judge-per-task min-max scaled form, same units
    classified_pairs: int
    units: int  # (candidate, task) units with a classified pair, behind both PF forms
    units_without_classified_pair: int  # units whose every pair failed to parse: left out of PF
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
    # The one position-effect test (stats.position_test): symmetric in the candidates, a tie half a pick for each
    # slot, cluster-robust t over items. Its share is of all slot picks (ties half), not of flips.
    position_p: float
    position_statistic: float
    position_method: str
    position_pick_share: float
    position_pick_share_low: float
    position_pick_share_high: float
    position_interval_method: str
    position_degenerate_reason: str | None
    position_design_effect: float
    position_tie_rule: str
    mcnemar_statistic: float  # McNemar (exact): pairs assumed independent; kept for compatibility, not in sentences
    mcnemar_p: float
    wins_first_slot_only: int
    wins_second_slot_only: int
    repetition_prompts: int | None = None
    repetition_stability: float | None = None
    repetition_floor: float | None = None
    flip_rate_excess: float | None = None  # flip rate minus the repetition floor
    # Its paired item-clustered interval and test (stats.paired.excess_over_floor).
    flip_rate_excess_low: float | None = None
    flip_rate_excess_high: float | None = None
    flip_rate_excess_method: str | None = None
    flip_rate_excess_p: float | None = None
    flip_rate_excess_degenerate_reason: str | None = None
    # Set when the flip rate's decision interval rests on fewer than 30 items or fewer than 5 items with a flip
    # (or without one): its coverage can fall short of 95% there (bench/bench_coverage.py; issue 23).
    flip_rate_decision_warning: str | None = None
    # The same small-sample warning for the other intervals of the row (stats.estimate.small_sample_warning).
    first_slot_share_decision_warning: str | None = None
    position_warning: str | None = None
    flip_rate_excess_warning: str | None = None
    iid_tests_note: str = IID_TESTS_NOTE
    flip_rate_decision_reason: str | None = None  # why the decision interval is degenerate or a fallback

    @property
    def flip_rate_estimate(self) -> Estimate:
        """The flip rate's decision interval as the shared :class:`Estimate` (units: the classified pairs); the
        ``--json`` rows carry it nested as ``flip_rate_estimate`` beside the flat fields, which keep their meaning."""
        return Estimate(self.flip_rate, self.flip_rate_decision_low, self.flip_rate_decision_high,
                        self.flip_rate_decision_method, self.flip_rate_decision_reason, self.design_effect, self.items,
                        self.classified_pairs, CONFIDENCE, self.flip_rate_degenerate, self.flip_rate_decision_warning)


def unit_rates(units: pd.DataFrame, keys: Sequence[str] | None = None) -> pd.DataFrame:
    """Add PC, PF, overall win rate and quality gap to a frame of unit counts (vectorised).

    PF is NaN for a unit without a classified pair. With ``keys`` (the columns that with ``task`` make a judge's
    task), Shi et al.'s scaled PF is added too (``pairwise_fairness``).
    """
    classified = units["consistent"] + units["primacy"] + units["recency"]
    inconsistent = units["primacy"] + units["recency"]
    with np.errstate(invalid="ignore", divide="ignore"):
        win_rate = (units["candidate_wins"] + (units["ties"] + inconsistent) / 2) / classified.where(classified > 0)
    rated = units.assign(
        classified=classified,
        position_consistency=units["consistent"] / classified.where(classified > 0),
        preference_fairness=((units["recency"] - units["primacy"]) / units["pairs"]).where(classified > 0),
        overall_win_rate=win_rate,
        quality_gap=(win_rate - 0.5).abs(),
    )
    if keys is not None and "task" in units.columns:
        rated = with_fairness(rated, keys)
    return rated


def unit_metrics_from_counts(frame: pd.DataFrame, repetition: int | None = None) -> pd.DataFrame:
    """Per (judge, candidate, task) of unit counts (``unit_counts_frame``): counts, PC, PF, overall win rate
    (inconsistent = tie) and quality gap.

    Repetitions are pooled unless ``repetition`` picks one.
    """
    if repetition is not None:
        frame = frame[frame["repetition"] == repetition]
    pooled = frame.groupby(["judge", "candidate", "task"], as_index=False)[COUNT_COLUMNS].sum()
    return unit_rates(pooled, ["judge"])


def task_breakdown(units: pd.DataFrame, by: str = "task") -> pd.DataFrame:
    """Per (judge, ``by``): pooled PC (ratio of sums) and PF as the unweighted mean over its units with a
    classified pair (``units``; the others are ``units_without_classified_pair``)."""
    grouped = units.assign(_has_pair=units["preference_fairness"].notna()).groupby(["judge", by], as_index=False).agg(
        pairs=("pairs", "sum"), consistent=("consistent", "sum"), classified=("classified", "sum"),
        preference_fairness=("preference_fairness", "mean"), units=("_has_pair", "sum"),
        units_without_classified_pair=("_has_pair", lambda has: int((~has).sum())),
    )
    return grouped.assign(position_consistency=grouped["consistent"] / grouped["classified"].where(
        grouped["classified"] > 0))


def candidate_win_rates(units: pd.DataFrame) -> pd.DataFrame:
    """Per (judge, candidate): overall win rate against the opponent, pooled over tasks, best first."""
    pooled = units.groupby(["judge", "candidate"], as_index=False)[COUNT_COLUMNS].sum()
    return unit_rates(pooled).sort_values(["judge", "overall_win_rate"], ascending=[True, False])


def _position_test(items: pd.DataFrame, resamples: int, seed: int) -> PositionTest:
    """The position test from per-item counts: (A, A) and (B, B) score +-1, a flip to or from a tie +-1/2."""
    strong = items["primacy_both"] + items["recency_both"]
    half = items["primacy"] + items["recency"] - strong
    sums = items["primacy_both"] - items["recency_both"] + (items["primacy"] - items["primacy_both"]
                                                           - items["recency"] + items["recency_both"]) / 2
    return position_test_from_item_sums(sums.to_numpy(np.float64), (strong + half / 4).to_numpy(np.float64),
                                        items["classified"].to_numpy(np.float64), resamples=resamples, seed=seed)


def _excess(items: pd.DataFrame, item_flips: np.ndarray, floor_items: pd.DataFrame | None, resamples: int,
            seed: int) -> RateDifference | None:
    if floor_items is None or floor_items.empty or not len(items):
        return None
    flips = ItemCounts.of(items["item_id"].astype(str).tolist(), item_flips, items["classified"].to_numpy())
    floor = ItemCounts.of(floor_items["item_id"].astype(str).tolist(), floor_items["floor_changed"].to_numpy(),
                          floor_items["floor_prompts"].to_numpy())
    return excess_over_floor(flips, floor)


def _row_metrics(key: tuple, counts: pd.Series, fairness: pd.Series, items: pd.DataFrame,
                 repetition: RepetitionMetrics | None, floor_items: pd.DataFrame | None, resamples: int,
                 seed: int) -> PairwiseJudgeMetrics:
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
    position = _position_test(items, resamples, seed)
    share, binomial_p = first_slot_test(primacy, recency)
    test = mcnemar_slots(*(int(counts[c]) for c in MCNEMAR_COLUMNS))
    floor = repetition.repetition_floor if repetition else None
    excess = _excess(items, item_flips, floor_items, resamples, seed) if floor is not None and classified else None
    return PairwiseJudgeMetrics(
        dataset=dataset, study=study, judge=judge, repetition=int(rep), pairs=int(counts["pairs"]),
        failed_pairs=int(counts["failed"]), consistent=consistent, primacy=primacy, recency=recency,
        position_consistency=consistent / classified if classified else float("nan"), flip_rate=flip_rate,
        flip_rate_ci_low=wilson.low, flip_rate_ci_high=wilson.high, first_slot_share=share, binomial_p=binomial_p,
        preference_fairness=optional(fairness["preference_fairness"]),
        preference_fairness_scaled=optional(fairness["preference_fairness_scaled"]), classified_pairs=classified,
        units=int(fairness["units"]), units_without_classified_pair=int(fairness["units_without_classified_pair"]),
        items=len(items),
        bootstrap_ci_low=flip.low, bootstrap_ci_high=flip.high, bootstrap_resamples=resamples, bootstrap_seed=seed,
        flip_rate_decision_low=flip.low, flip_rate_decision_high=flip.high, flip_rate_decision_method=flip.method,
        flip_rate_degenerate=flip.degenerate, flip_rate_degenerate_reason=flip.degenerate_reason,
        design_effect=flip.design_effect, position_consistency_decision_low=1 - flip.high,
        position_consistency_decision_high=1 - flip.low, first_slot_share_decision_low=direction.low,
        first_slot_share_decision_high=direction.high, first_slot_share_decision_method=direction.method,
        first_slot_share_degenerate_reason=direction.degenerate_reason,
        first_slot_share_design_effect=direction.design_effect,
        position_p=position.p_value, position_statistic=position.statistic, position_method=position.method,
        position_pick_share=position.first_slot_share, position_pick_share_low=position.low,
        position_pick_share_high=position.high, position_interval_method=position.interval_method,
        position_degenerate_reason=position.degenerate_reason, position_design_effect=position.design_effect,
        position_tie_rule=position.tie_rule,
        mcnemar_statistic=test.statistic, mcnemar_p=test.p_value, wins_first_slot_only=test.wins_first_slot_only,
        wins_second_slot_only=test.wins_second_slot_only,
        repetition_prompts=repetition.prompts if repetition else None,
        repetition_stability=repetition.repetition_stability if repetition else None,
        repetition_floor=floor,
        flip_rate_excess=flip_rate - floor if floor is not None and classified else None,
        flip_rate_excess_low=excess.low if excess else None, flip_rate_excess_high=excess.high if excess else None,
        flip_rate_excess_method=excess.method if excess else None, flip_rate_excess_p=excess.p_value if excess else None,
        flip_rate_excess_degenerate_reason=excess.degenerate_reason if excess else None,
        flip_rate_decision_warning=flip.warning, first_slot_share_decision_warning=direction.warning,
        position_warning=position.warning, flip_rate_excess_warning=excess.warning if excess else None,
        flip_rate_decision_reason=flip.reason,
    )


def pairwise_metrics_from_counts(units: pd.DataFrame, items: pd.DataFrame, repetitions: pd.DataFrame,
                                 resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                                 floor_items: pd.DataFrame | None = None) -> list[PairwiseJudgeMetrics]:
    """One result per (dataset, study, judge, repetition) of the unit counts, from the frames of
    ``store.pairwise_queries.pairwise_inputs`` (unit counts, per-item counts, repetition counts and, for the
    excess over the repetition floor's interval, the floor's per-item counts)."""
    if units.empty:
        return []
    units = unit_rates(units, ROW_KEYS)
    per_row = units.groupby(ROW_KEYS)[COUNT_COLUMNS + MCNEMAR_COLUMNS].sum()
    fairness = judge_fairness(units, ROW_KEYS)
    items_by_row = dict(iter(items.groupby(ROW_KEYS)))
    floors_by_judge = dict(iter(floor_items.groupby(ROW_KEYS[:3]))) if floor_items is not None else {}
    stability = {(r.dataset, r.study, r.judge): r for r in repetition_results(repetitions)}
    empty_items = items.iloc[0:0]
    return [
        _row_metrics(key, counts, fairness.loc[key], items_by_row.get(key, empty_items), stability.get(key[:3]),
                     floors_by_judge.get(key[:3]), resamples, seed)
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
        return (f"{self.top} leads {self.runner_up} by {self.gap:.3f}, {comparison} than the top of the item-clustered "
                f"two-sided 95% interval of the judge's flip rate ({self.flip_rate_ci_high:.3f}; a one-sided 97.5% "
                f"upper bound): {verdict}.")


def ranking_safety(win_rates: pd.Series, flip_rate_ci_high: float) -> RankingSafety | None:
    """Compare the top two of ``win_rates`` (indexed by name) with the flip rate's item-clustered upper bound."""
    ranked = win_rates.dropna().sort_values(ascending=False)
    if len(ranked) < 2:
        return None
    gap = float(ranked.iloc[0] - ranked.iloc[1])
    return RankingSafety(top=str(ranked.index[0]), runner_up=str(ranked.index[1]), gap=gap,
                         flip_rate_ci_high=flip_rate_ci_high, possibly_positional=gap < flip_rate_ci_high)
