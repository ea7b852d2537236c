"""Verbosity bias: does the judge prefer the longer answer? Measured on swap pairs (lengths in characters).

Only consistent decisive pairs count (the same candidate wins in both orders), so position effects are removed.
Pairs that share an item (or a candidate) are not independent: the decision figures are item-clustered (the
longer-answer share by item bootstrap, the logistic slope by cluster-robust standard errors), and the test of each
judge's slope is Holm-corrected over the judges shown. The figures that treat pairs as independent stay, labelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from judgebias_core.metrics.clustered_logit import (
    ClusteredTerm,
    clustered_logit_terms,
    full_rank_columns,
    player_design,
)
from judgebias_core.stats.clustered import ClusteredRate, clustered_rate
from judgebias_core.stats.multiple import CorrectedTests, correct

DEFAULT_BINS = 8
LENGTH_BINS = 5
PER_CHARACTERS = 1000
SLOPE_TERM = "difference_per_1000"
Cluster = Literal["item", "candidate"]
Control = Literal["none", "candidate"]
CLUSTERS: tuple[str, ...] = ("item", "candidate")
# The column each cluster choice groups pairs by (a pair's candidate: the answer set against the opponent).
CLUSTER_COLUMNS = {"item": "item_id", "candidate": "candidate"}
CONTROLS: tuple[str, ...] = ("none", "candidate")


@dataclass(frozen=True)
class LengthBin:
    """Pairs whose length difference (candidate minus opponent, characters) falls in [low, high]."""

    low: float
    high: float
    median: float  # where the bin sits on a chart (its extreme bins can be wide)
    pairs: int
    candidate_wins: int
    win_rate: float


@dataclass(frozen=True)
class LongerAnswerBin:
    """Pairs of unequal length whose absolute length difference falls in [low, high]: how often the longer won."""

    low: float
    high: float
    median: float
    pairs: int
    items: int
    longer_wins: int
    share: ClusteredRate  # item-clustered (item bootstrap, or its named fallback)


@dataclass(frozen=True)
class VerbosityResult:
    judge: str
    decisive_pairs: int
    equal_length_pairs: int
    longer_wins: int
    longer_win_share: float  # among decisive pairs of unequal length
    longer_win_share_ci_low: float  # Wilson, pairs assumed independent
    longer_win_share_ci_high: float
    binomial_p: float  # pairs assumed independent
    slope_per_1000_chars: float  # logistic: change in log-odds of the candidate winning per 1,000 characters
    slope_ci_low: float  # pairs assumed independent, no control for quality
    slope_ci_high: float
    slope_p: float
    bins: list[LengthBin]
    items: int = 0
    longer_share_clustered: ClusteredRate | None = None  # the decision interval of the longer-answer share
    slope: ClusteredTerm | None = None  # the decision slope: clustered as chosen, with the chosen control
    slope_independent: ClusteredTerm | None = None  # the same model with pairs assumed independent
    control: str = "none"
    pairs_without_information: int = 0  # candidate fixed effects: pairs of candidates that always won or lost
    longer_answer_bins: tuple[LongerAnswerBin, ...] = ()
    rule: str = ("consistent decisive swap pairs only (ties and position-inconsistent pairs left out); the longer "
                 "answer's share with an item-bootstrap interval; a logistic model of the candidate winning on the "
                 "length difference with cluster-robust standard errors (by item unless chosen otherwise), "
                 "optionally with candidate fixed effects (+1 candidate, -1 opponent) for quality; Wilson, "
                 "binomial and plain logistic figures treat pairs as independent")


@dataclass(frozen=True)
class VerbosityReport:
    """Every judge's verbosity result and the family of slope tests over them (Holm by default)."""

    dataset_id: str
    studies: list[str]
    judges: list[VerbosityResult]
    cluster: str
    control: str
    tests: CorrectedTests

    def reading(self, judge: str) -> str:
        """What may be said of a judge's slope after the correction (never "beyond chance" without it)."""
        return self.tests.sentence(judge)

    def prefers_length(self, judge: str) -> bool:
        """True when the judge's clustered slope test rejects after correction and the slope is positive."""
        index = self.tests.labels.index(judge)
        result = next(r for r in self.judges if r.judge == judge)
        return bool(self.tests.reject[index] and result.slope is not None and result.slope.estimate > 0)


def decisive_pairs_with_lengths(outcomes: pd.DataFrame, lengths: pd.DataFrame) -> pd.DataFrame:
    """Consistent pairs with a winner, with both answers' lengths and whether the candidate won."""
    decisive = outcomes[(outcomes["classification"] == "consistent") & (outcomes["winner"] != "tie")]
    by_answer = lengths.set_index(["item_id", "candidate"])["length"]
    candidate_len = by_answer.reindex(pd.MultiIndex.from_frame(decisive[["item_id", "candidate"]])).to_numpy()
    opponent_len = by_answer.reindex(pd.MultiIndex.from_frame(decisive[["item_id", "opponent"]])).to_numpy()
    return decisive.assign(candidate_length=candidate_len, opponent_length=opponent_len,
                           difference=candidate_len - opponent_len,
                           candidate_won=(decisive["winner"] == decisive["candidate"]).astype(int)
                           ).dropna(subset=["difference"])


def _length_bins(pairs: pd.DataFrame, bins: int) -> list[LengthBin]:
    if pairs.empty:
        return []
    codes = pd.qcut(pairs["difference"], q=min(bins, pairs["difference"].nunique()), duplicates="drop")
    grouped = pairs.groupby(codes, observed=True).agg(low=("difference", "min"), high=("difference", "max"),
                                                      median=("difference", "median"),
                                                      pairs=("candidate_won", "size"),
                                                      wins=("candidate_won", "sum"))
    return [LengthBin(float(r.low), float(r.high), float(r.median), int(r.pairs), int(r.wins),
                      float(r.wins / r.pairs)) for r in grouped.itertuples()]


def _longer_won(unequal: pd.DataFrame) -> pd.Series:
    return ((unequal["difference"] > 0) == (unequal["candidate_won"] == 1)).astype(int)


def _item_share(unequal: pd.DataFrame) -> ClusteredRate:
    per_item = unequal.assign(longer=_longer_won(unequal)).groupby("item_id")["longer"].agg(["sum", "size"])
    return clustered_rate(per_item["sum"].to_numpy(), per_item["size"].to_numpy(), event_word="longer-answer wins")


def longer_answer_bins(pairs: pd.DataFrame, bins: int = LENGTH_BINS) -> tuple[LongerAnswerBin, ...]:
    """Unequal-length pairs in quantile bins of the absolute length difference, each with the longer answer's
    share and its item-clustered interval."""
    unequal = pairs[pairs["difference"] != 0]
    if unequal.empty:
        return ()
    size = unequal["difference"].abs()
    codes = pd.qcut(size, q=min(bins, size.nunique()), duplicates="drop")
    result = []
    for _, rows in unequal.groupby(codes, observed=True):
        gap = rows["difference"].abs()
        result.append(LongerAnswerBin(float(gap.min()), float(gap.max()), float(gap.median()), len(rows),
                                      int(rows["item_id"].nunique()), int(_longer_won(rows).sum()),
                                      _item_share(rows)))
    return tuple(result)


def _informative(pairs: pd.DataFrame) -> pd.DataFrame:
    """Pairs left once candidates that won (or lost) every pair are removed, repeatedly: under candidate fixed
    effects those pairs fit perfectly and say nothing about length (as conditional logit drops them)."""
    kept = pairs
    while True:
        sides = pd.concat([kept[["candidate"]].assign(won=kept["candidate_won"]).rename(columns={"candidate": "p"}),
                           kept[["opponent"]].assign(won=1 - kept["candidate_won"]).rename(columns={"opponent": "p"})])
        rates = sides.groupby("p")["won"].mean()
        extreme = set(rates[(rates == 0) | (rates == 1)].index)
        if not extreme:
            return kept
        kept = kept[~kept["candidate"].isin(extreme) & ~kept["opponent"].isin(extreme)]
        if kept.empty:
            return kept


def _design(pairs: pd.DataFrame, control: str) -> pd.DataFrame:
    design = pd.DataFrame({"const": 1.0, SLOPE_TERM: pairs["difference"].to_numpy(float) / PER_CHARACTERS},
                          index=pairs.index)
    if control == "candidate":
        players = player_design(pairs["candidate"], pairs["opponent"])
        # The player in most pairs is the reference (a baseline design's baseline), the rest kept up to full rank.
        reference = players.abs().sum().idxmax()
        effects = pd.concat([design[["const"]], players.drop(columns=[reference]).add_prefix("player:")], axis=1)
        # Rank is checked on the constant and the fixed effects alone (few distinct rows); the slope stays.
        effects = effects.iloc[:, full_rank_columns(effects.to_numpy(), keep_first=1)]
        design = pd.concat([design[[SLOPE_TERM]], effects], axis=1)
    return design


def length_slope(pairs: pd.DataFrame, cluster: str | None, control: str = "none") -> tuple[ClusteredTerm, int]:
    """The log-odds slope per 1,000 characters, clustered by ``cluster`` (None: pairs independent), with candidate
    fixed effects when ``control`` is "candidate"; and how many pairs carried no information under that control."""
    fitted = _informative(pairs) if control == "candidate" else pairs
    label = cluster or "none"
    groups = pd.factorize(fitted[CLUSTER_COLUMNS[cluster]])[0] if cluster and not fitted.empty else None
    if fitted.empty or fitted["difference"].nunique() < 2:
        term = clustered_logit_terms(np.zeros(0), pd.DataFrame({SLOPE_TERM: []}), [SLOPE_TERM], groups, label)[0]
        return term, len(pairs) - len(fitted)
    design = _design(fitted, control)
    term = clustered_logit_terms(fitted["candidate_won"].to_numpy(float), design, [SLOPE_TERM], groups, label)[0]
    return term, len(pairs) - len(fitted)


def verbosity_from_pairs(pairs: pd.DataFrame, judge: str, bins: int = DEFAULT_BINS, cluster: str = "item",
                         control: str = "none") -> VerbosityResult:
    """Share of decisive pairs won by the longer answer, and win probability against the length difference.

    ``pairs`` has one row per decisive pair: ``item_id``, ``candidate``, ``opponent``, ``difference``,
    ``candidate_won``."""
    unequal = pairs[pairs["difference"] != 0]
    longer_won = int(_longer_won(unequal).sum())
    n = len(unequal)
    low, high = proportion_confint(longer_won, n, method="wilson") if n else (float("nan"), float("nan"))
    plain, _ = length_slope(pairs, None, "none")
    slope, without_information = length_slope(pairs, cluster, control)
    independent, _ = length_slope(pairs, None, control)
    return VerbosityResult(
        judge=judge, decisive_pairs=len(pairs), equal_length_pairs=len(pairs) - n, longer_wins=longer_won,
        longer_win_share=longer_won / n if n else float("nan"), longer_win_share_ci_low=float(low),
        longer_win_share_ci_high=float(high), binomial_p=float(binomtest(longer_won, n).pvalue) if n else float("nan"),
        slope_per_1000_chars=plain.estimate, slope_ci_low=plain.ci_low, slope_ci_high=plain.ci_high,
        slope_p=plain.p_value, bins=_length_bins(pairs, bins), items=int(pairs["item_id"].nunique()),
        longer_share_clustered=_item_share(unequal) if n else None, slope=slope, slope_independent=independent,
        control=control, pairs_without_information=without_information, longer_answer_bins=longer_answer_bins(pairs),
    )


def verbosity_report(results: Sequence[VerbosityResult], dataset_id: str, studies: Sequence[str], cluster: str,
                     control: str) -> VerbosityReport:
    """The judges' results with their clustered slope tests Holm-corrected as one family."""
    tests = correct([r.slope.p_value if r.slope is not None else float("nan") for r in results],
                    [r.judge for r in results])
    return VerbosityReport(dataset_id, list(studies), list(results), cluster, control, tests)


def verbosity_frame(results: Sequence[VerbosityResult]) -> pd.DataFrame:
    """One row per judge, without the bins (the clustered slope flattened into ``slope_clustered_*``)."""
    rows = []
    for r in results:
        row = {k: v for k, v in r.__dict__.items()
               if k not in ("bins", "rule", "longer_answer_bins", "slope", "slope_independent",
                            "longer_share_clustered")}
        share = r.longer_share_clustered
        row |= {"longer_share_clustered_low": share.low if share else float("nan"),
                "longer_share_clustered_high": share.high if share else float("nan")}
        if r.slope is not None:
            row |= {"slope_clustered": r.slope.estimate, "slope_clustered_low": r.slope.ci_low,
                    "slope_clustered_high": r.slope.ci_high, "slope_clustered_p": r.slope.p_value,
                    "cluster": r.slope.cluster, "clusters": r.slope.clusters}
        rows.append(row)
    return pd.DataFrame(rows)


def bins_frame(results: Sequence[VerbosityResult]) -> pd.DataFrame:
    """Every judge's longer-answer bins, one row per bin, with the item-clustered interval and its method."""
    columns = ["judge", "low", "high", "median", "pairs", "items", "longer_wins", "share", "ci_low", "ci_high",
               "interval"]
    return pd.DataFrame([{"judge": r.judge, "low": b.low, "high": b.high, "median": b.median, "pairs": b.pairs,
                          "items": b.items, "longer_wins": b.longer_wins, "share": b.share.rate,
                          "ci_low": b.share.low, "ci_high": b.share.high, "interval": b.share.method}
                         for r in results for b in r.longer_answer_bins], columns=columns)
