"""Agreement of a judge with human labels: confusion, Cohen's kappa, per-class precision and recall, correlations.

Pairwise labels are candidates or a tie; a slot verdict maps to the candidate in that slot (A -> first slot).
Rubric scores are compared with the raters' median (kappa, confusion) and mean (correlations), per judge call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa

from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.stats.agreement import (
    AgreementEstimate,
    item_bootstrap_correlations,
    krippendorff_alpha,
    mean_pairwise_kappa,
)
from judgebias_core.stats.agreement import cohens_kappa as clustered_kappa
from judgebias_core.stats.estimate import small_sample_warning

ITEM_BOOTSTRAP = "item-bootstrap (all calls of an item resampled together)"
PER_CALL_CORRELATION = ("item-bootstrap percentile interval (all calls of an item resampled together); no p-value: "
                        "the calls of an item are not independent")

TIE = "tie"
JUDGE_COLUMN = "__judge__"  # the judge's column among the raters' (a name no rater has)
ORIGINAL_FIRST, ORIGINAL_SECOND = "first in original order", "second in original order"
PAIR_KEY = ["study", "item_id", "repetition"]


@dataclass(frozen=True)
class ClassScore:
    """Precision and recall of one label, with the human label as truth."""

    label: str
    precision: float
    recall: float
    human_count: int
    judge_count: int


@dataclass(frozen=True)
class AgreementTable:
    """Judge labels against human labels on one set of instances."""

    n: int
    accuracy: float
    kappa: float
    kappa_ci_low: float
    kappa_ci_high: float
    labels: list[str]
    confusion: list[list[int]]  # rows: human label, columns: judge label, both in ``labels`` order
    per_class: list[ClassScore]
    kappa_interval: str = ITEM_BOOTSTRAP
    interval_warning: str | None = None  # the kappa interval rests on fewer than 30 items (issue 23)


@dataclass(frozen=True)
class PairwiseCalibration:
    dataset_id: str
    judge: str
    study: str | None
    label_source: str
    original: AgreementTable
    swapped: AgreementTable
    swap_aggregated: AgreementTable
    pairs: int
    failed_pairs: int
    both_orders_correct: int
    both_orders_correct_rate: float
    consistent_pairs: int
    position_consistency: float
    pooled_runs: list[str] = field(default_factory=list)
    rule: str = ("swap-aggregated verdict: the candidate chosen in both orders, or a tie when the verdict changes "
                 "with the order; pairs with a parse failure in either order are left out of it and counted apart; "
                 "the share correct in both orders is over every pair, a failed order counting as not correct")


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient with its 95% interval (Fisher z; the standard error named in ``method``)."""

    statistic: float
    ci_low: float
    ci_high: float
    p_value: float
    n: int
    method: str


@dataclass(frozen=True)
class RubricCalibration:
    dataset_id: str
    judge: str
    study: str | None
    label_source: str
    n: int
    items: int
    failed: int
    kappa: float
    kappa_ci_low: float
    kappa_ci_high: float
    weighted_kappa: float
    weighted_kappa_ci_low: float
    weighted_kappa_ci_high: float
    pearson: Correlation
    spearman: Correlation
    kendall: Correlation
    item_pearson: Correlation
    item_spearman: Correlation
    item_kendall: Correlation
    levels: list[int]
    confusion: list[list[int]]
    per_class: list[ClassScore]
    pooled_runs: list[str] = field(default_factory=list)
    kappa_interval: str = ITEM_BOOTSTRAP
    weighted_kappa_interval: str = ITEM_BOOTSTRAP
    correlation_p_values: str = ("per-call correlations: item-bootstrap intervals and no p-value (the calls of an "
                                 "item are not independent); the item_* correlations (one value per item) keep "
                                 "Fisher-z intervals and their p-values")
    judge_human_alpha: AgreementEstimate | None = None
    human_agreement: AgreementEstimate | None = None  # ordinal Krippendorff's alpha among the human raters
    human_agreement_reading: str | None = None
    # The human ceiling in kappa: mean Cohen's kappa of every pair of raters, and of the judge with each rater
    # (like with like: one rater against another, not against the raters' median)
    human_pairwise_kappa: AgreementEstimate | None = None
    judge_rater_kappa: AgreementEstimate | None = None
    human_pairwise_kappa_reading: str | None = None
    rule: str = ("one instance per parsed judge call; kappa and confusion against the raters' median (rounded half "
                 "up), correlations against the raters' mean; item_* correlate each item's mean judge score instead")
    # Every interval above (kappa, correlations, alpha) rests on ``items`` items: set below 30 (issue 23).
    interval_warning: str | None = None


def _kappa(table: np.ndarray, weighted: bool = False) -> tuple[float, float, float]:
    if table.sum() == 0:
        return float("nan"), float("nan"), float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        result = cohens_kappa(table, wt="quadratic") if weighted else cohens_kappa(table)
    return float(result.kappa), float(result.kappa_low), float(result.kappa_upp)


def _confusion(human: pd.Series, judge: pd.Series, labels: list) -> np.ndarray:
    crossed = pd.crosstab(pd.Categorical(human, categories=labels), pd.Categorical(judge, categories=labels),
                          dropna=False)
    return crossed.reindex(index=labels, columns=labels, fill_value=0).to_numpy(dtype=int)


def _per_class(table: np.ndarray, labels: list) -> list[ClassScore]:
    human_counts, judge_counts, hits = table.sum(axis=1), table.sum(axis=0), np.diag(table)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(judge_counts > 0, hits / judge_counts, np.nan)
        recall = np.where(human_counts > 0, hits / human_counts, np.nan)
    return [ClassScore(str(label), float(p), float(r), int(h), int(j))
            for label, p, r, h, j in zip(labels, precision, recall, human_counts, judge_counts, strict=True)]


def agreement_table(human: pd.Series, judge: pd.Series, labels: list,
                    item_ids: pd.Series | None = None) -> AgreementTable:
    """Confusion, accuracy, unweighted Cohen's kappa and per-class scores of two aligned label series; the kappa
    interval resamples whole items (``item_ids``; default: every instance its own item)."""
    table = _confusion(human, judge, labels)
    n = int(table.sum())
    kappa, _, _ = _kappa(table)
    clustered = clustered_kappa(human.tolist(), judge.tolist(),
                                item_ids.astype(str).tolist() if item_ids is not None else None)
    return AgreementTable(
        n=n, accuracy=float(np.trace(table) / n) if n else float("nan"), kappa=kappa,
        kappa_ci_low=clustered.low, kappa_ci_high=clustered.high, labels=[str(label) for label in labels],
        confusion=table.tolist(), per_class=_per_class(table, labels),
        kappa_interval=f"{clustered.method} (all calls of an item resampled together)"
        if not clustered.degenerate else f"none: {clustered.degenerate_reason}",
        interval_warning=clustered.warning,
    )


def _slot_labels(calls: pd.DataFrame) -> pd.Series:
    """A -> the candidate in the first slot, B -> the second, C -> tie; NaN when the call did not parse."""
    return pd.Series(np.select([calls["verdict"] == "A", calls["verdict"] == "B", calls["verdict"] == "C"],
                               [calls["first_candidate"], calls["second_candidate"], TIE], np.array(None)),
                     index=calls.index).where(calls["verdict"].isin(["A", "B", "C"]))


def _with_pair_labels(calls: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Calls with ``judge_label`` and the fixed label order: original first slot, original second slot, tie.

    When every pair has the same two candidate names (Auto-J: response_1, response_2) the labels are those names;
    otherwise judge and human labels are renamed to their slot in the original order.
    """
    calls = calls.assign(judge_label=_slot_labels(calls))
    original = calls[calls["order_label"] == "original"]
    firsts, seconds = original["first_candidate"].unique(), original["second_candidate"].unique()
    if len(firsts) == 1 and len(seconds) == 1:
        return calls, [str(firsts[0]), str(seconds[0]), TIE]
    slots = original.drop_duplicates(["study", "item_id"])[["study", "item_id", "first_candidate",
                                                              "second_candidate"]]
    merged = calls.merge(slots, on=["study", "item_id"], how="left", suffixes=("", "_original"))

    def relabel(column: str) -> pd.Series:
        named = merged[column]
        slot = np.select([named == merged["first_candidate_original"], named == merged["second_candidate_original"],
                          named == TIE], [ORIGINAL_FIRST, ORIGINAL_SECOND, TIE], np.array(None))
        return pd.Series(slot, index=merged.index).where(named.notna())

    relabelled = merged.assign(judge_label=relabel("judge_label"), human=relabel("human"))
    return relabelled.drop(columns=["first_candidate_original", "second_candidate_original"]), \
        [ORIGINAL_FIRST, ORIGINAL_SECOND, TIE]


def pairwise_calibration_from_calls(calls: pd.DataFrame, dataset_id: str, judge: str,
                                    study: str | None) -> PairwiseCalibration:
    """Each order alone, the swap-aggregated verdict, and correct-in-both-orders, from calls with labels."""
    calls, labels = _with_pair_labels(calls)
    by_order = {order: calls[(calls["order_label"] == order) & calls["judge_label"].notna()]
                for order in ("original", "swapped")}
    pairs = calls[calls["order_label"] == "original"].merge(
        calls.loc[calls["order_label"] == "swapped", [*PAIR_KEY, "judge_label"]], on=PAIR_KEY,
        suffixes=("_original", "_swapped"))
    first, second = pairs["judge_label_original"], pairs["judge_label_swapped"]
    parsed = pairs[first.notna() & second.notna()]
    consistent = parsed["judge_label_original"] == parsed["judge_label_swapped"]
    aggregated = parsed["judge_label_original"].where(consistent, TIE)
    correct_both = int(((first == pairs["human"]) & (second == pairs["human"])).sum())
    return PairwiseCalibration(
        dataset_id=dataset_id, judge=judge, study=study, label_source=str(calls["label_source"].iloc[0]),
        original=agreement_table(by_order["original"]["human"], by_order["original"]["judge_label"], labels,
                                 by_order["original"]["item_id"]),
        swapped=agreement_table(by_order["swapped"]["human"], by_order["swapped"]["judge_label"], labels,
                                by_order["swapped"]["item_id"]),
        swap_aggregated=agreement_table(parsed["human"], aggregated, labels, parsed["item_id"]),
        pairs=len(pairs), failed_pairs=len(pairs) - len(parsed), both_orders_correct=correct_both,
        both_orders_correct_rate=correct_both / len(pairs) if len(pairs) else float("nan"),
        consistent_pairs=int(consistent.sum()),
        position_consistency=float(consistent.mean()) if len(parsed) else float("nan"),
    )


def _fisher_interval(r: float, n: int, se: float) -> tuple[float, float]:
    if not np.isfinite(r) or not np.isfinite(se):
        return float("nan"), float("nan")
    z, half = np.arctanh(np.clip(r, -0.999999, 0.999999)), stats.norm.ppf(0.975) * se
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def correlations(judge: pd.Series, human: pd.Series) -> tuple[Correlation, Correlation, Correlation]:
    """Pearson, Spearman and Kendall (tau-b) with 95% Fisher-z intervals; NaN when undefined."""
    x, y = judge.to_numpy(dtype=float), human.to_numpy(dtype=float)
    n = len(x)
    if n < 4 or np.ptp(x) == 0 or np.ptp(y) == 0:
        empty = Correlation(float("nan"), float("nan"), float("nan"), float("nan"), n, "undefined")
        return empty, empty, empty
    pearson = stats.pearsonr(x, y)
    p_ci = pearson.confidence_interval()
    spearman = stats.spearmanr(x, y)
    kendall = stats.kendalltau(x, y)
    rho, tau = float(spearman.statistic), float(kendall.statistic)
    s_low, s_high = _fisher_interval(rho, n, np.sqrt((1 + rho**2 / 2) / (n - 3)))
    k_low, k_high = _fisher_interval(tau, n, np.sqrt(0.437 / (n - 4)) if n > 4 else float("nan"))
    return (
        Correlation(float(pearson.statistic), float(p_ci.low), float(p_ci.high), float(pearson.pvalue), n,
                    "Fisher z, se 1/sqrt(n-3)"),
        Correlation(rho, s_low, s_high, float(spearman.pvalue), n, "Fisher z, Bonett-Wright se"),
        Correlation(tau, k_low, k_high, float(kendall.pvalue), n, "Fisher z, Fieller-Hartley-Pearson se"),
    )


def clustered_correlations(judge: pd.Series, human: pd.Series,
                           item_ids: pd.Series) -> tuple[Correlation, Correlation, Correlation]:
    """Per-call Pearson, Spearman and Kendall with item-bootstrap percentile intervals and no p-value."""
    point = correlations(judge, human)
    if point[0].method == "undefined":
        return point
    bounds = item_bootstrap_correlations(judge.to_numpy(dtype=float), human.to_numpy(dtype=float),
                                         item_ids.astype(str).tolist())
    return tuple(  # type: ignore[return-value]
        Correlation(c.statistic, *bounds[name], float("nan"), c.n, PER_CALL_CORRELATION)
        for c, name in zip(point, ("pearson", "spearman", "kendall"), strict=True))


def rubric_calibration_from_trials(trials: pd.DataFrame, levels: list[int], dataset_id: str, judge: str,
                                   study: str | None) -> RubricCalibration:
    """Kappa (plain and quadratic-weighted), confusion and correlations of rubric trials against labels."""
    parsed = trials[trials["score"].notna()]
    table = _confusion(parsed["human_median"].astype(int), parsed["score"].astype(int), levels)
    kappa, _, _ = _kappa(table)
    clustered = clustered_kappa(parsed["human_median"].astype(int).tolist(), parsed["score"].astype(int).tolist(),
                                parsed["item_id"].astype(str).tolist())
    low, high = clustered.low, clustered.high
    weighted, _, _ = _kappa(table, weighted=True)
    weighted_clustered = clustered_kappa(parsed["human_median"].astype(int).tolist(),
                                         parsed["score"].astype(int).tolist(), parsed["item_id"].astype(str).tolist(),
                                         weights="quadratic", categories=levels)
    w_low, w_high = weighted_clustered.low, weighted_clustered.high
    pearson, spearman, kendall = clustered_correlations(parsed["score"], parsed["human_mean"], parsed["item_id"])
    per_item = parsed.groupby(["item_id", "rubric_id"]).agg(score=("score", "mean"), human=("human_mean", "first"))
    item_pearson, item_spearman, item_kendall = correlations(per_item["score"], per_item["human"])
    return RubricCalibration(
        dataset_id=dataset_id, judge=judge, study=study, label_source=str(trials["label_source"].iloc[0]),
        n=len(parsed), items=int(parsed["item_id"].nunique()), failed=len(trials) - len(parsed),
        kappa=kappa, kappa_ci_low=low, kappa_ci_high=high, weighted_kappa=weighted, weighted_kappa_ci_low=w_low,
        weighted_kappa_ci_high=w_high, pearson=pearson, spearman=spearman, kendall=kendall,
        item_pearson=item_pearson, item_spearman=item_spearman, item_kendall=item_kendall, levels=levels,
        confusion=table.tolist(), per_class=_per_class(table, levels),
        kappa_interval=f"{clustered.method} (all calls of an item resampled together)",
        weighted_kappa_interval=f"{weighted_clustered.method} (all calls of an item resampled together)",
        judge_human_alpha=_judge_human_alpha(parsed),
        interval_warning=small_sample_warning(int(parsed["item_id"].nunique())),
    )


def _judge_human_alpha(parsed: pd.DataFrame) -> AgreementEstimate:
    """Ordinal Krippendorff's alpha of each call's score against the raters' median (two values per call)."""
    ratings = parsed[["score", "human_median"]].to_numpy(dtype=np.float64)
    return krippendorff_alpha(ratings, "ordinal", parsed["item_id"].astype(str).tolist())


def human_rater_agreement(scores: pd.DataFrame) -> AgreementEstimate | None:
    """Ordinal Krippendorff's alpha among the human raters (``rubric_rater_scores`` rows; units are item x rubric,
    resampled by item), or None when no unit has two raters."""
    if scores.empty or scores.groupby(["item_id", "rubric_id"])["rater"].nunique().max() < 2:
        return None
    wide = scores.pivot_table(index=["item_id", "rubric_id"], columns="rater", values="score", aggfunc="first")
    return krippendorff_alpha(wide.to_numpy(dtype=np.float64), "ordinal",
                              wide.index.get_level_values("item_id").astype(str).tolist())


def human_ceiling_reading(judge: AgreementEstimate, humans: AgreementEstimate,
                          coefficient: str = "ordinal alpha", judge_side: str = "judge vs raters' median") -> str:
    """Plain reading of a judge-human coefficient against the human-human one, by whether the intervals overlap."""
    if judge.degenerate or humans.degenerate:
        return "no reading: one of the two coefficients has no interval"
    figures = (f"({judge_side} {judge.estimate:.3f} [{judge.low:.3f}, {judge.high:.3f}]; among the raters "
               f"{humans.estimate:.3f} [{humans.low:.3f}, {humans.high:.3f}], {coefficient}, {humans.method})")
    if judge.high < humans.low:
        return f"this judge agrees with the experts less well than the experts agree with each other {figures}"
    if judge.low > humans.high:
        return f"this judge agrees with the experts better than the experts agree with each other {figures}"
    return f"this judge agrees with the experts about as well as the experts agree with each other {figures}"


def rater_kappas(parsed: pd.DataFrame, scores: pd.DataFrame,
                 levels: list[int]) -> tuple[AgreementEstimate, AgreementEstimate] | None:
    """Mean pairwise Cohen's kappa among the raters (units item x rubric) and the judge's mean kappa with each rater
    (units: its calls), both resampled by item; None when no unit has two raters."""
    if scores.empty or scores.groupby(["item_id", "rubric_id"])["rater"].nunique().max() < 2:
        return None
    wide = scores.pivot_table(index=["item_id", "rubric_id"], columns="rater", values="score", aggfunc="first")
    humans = mean_pairwise_kappa(wide, levels)
    calls = parsed[["item_id", "rubric_id", "score"]].rename(columns={"score": JUDGE_COLUMN}).merge(
        wide.reset_index(), on=["item_id", "rubric_id"]).set_index(["item_id", "rubric_id"])
    return humans, mean_pairwise_kappa(calls, levels, against=JUDGE_COLUMN)


def calibration_choices_from_targets(targets: pd.DataFrame) -> pd.DataFrame:
    """Every (dataset, study, judge) that can be calibrated (``calibration_targets`` rows), plus the ensemble
    wherever a pairwise study has two judges."""
    pairwise = targets[targets["kind"] == "pairwise"]
    several = pairwise.groupby(["dataset_id", "kind", "study", "label_source"], as_index=False).agg(
        judges=("judge", "size"), calls=("calls", "max"), items=("items", "max"))
    ensembles = several[several["judges"] > 1].drop(columns="judges").assign(judge=ENSEMBLE_JUDGE)
    return pd.concat([targets, ensembles[targets.columns]], ignore_index=True)


def disagreeing_pairs_from_calls(calls: pd.DataFrame) -> pd.DataFrame:
    """Pairs whose swap-aggregated verdict differs from the human label, with both orders' verdicts."""
    if calls.empty:
        return pd.DataFrame()
    calls, _ = _with_pair_labels(calls)
    wide = calls.pivot_table(index=[*PAIR_KEY, "human"], columns="order_label", values="judge_label",
                             aggfunc="first").reset_index()
    wide = wide.reindex(columns=[*PAIR_KEY, "human", "original", "swapped"])
    wide["swap_aggregated"] = wide["original"].where(wide["original"] == wide["swapped"], TIE)
    wide.loc[wide["original"].isna() | wide["swapped"].isna(), "swap_aggregated"] = None
    return wide[wide["swap_aggregated"] != wide["human"]].reset_index(drop=True)


def disagreeing_trials_from_trials(trials: pd.DataFrame) -> pd.DataFrame:
    """Rubric calls (``rubric_trials_with_labels`` rows) whose score differs from the raters' median, largest gaps
    first."""
    parsed = trials[trials["score"].notna()]
    gap = (parsed["score"] - parsed["human_median"]).abs()
    frame = parsed.assign(gap=gap)[gap > 0]
    return frame.sort_values("gap", ascending=False, kind="stable").reset_index(drop=True)
