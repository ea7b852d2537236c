"""Verbosity bias: does the judge prefer the longer answer? Measured on swap pairs (lengths in characters).

Only consistent decisive pairs count (the same candidate wins in both orders), so position effects are removed.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

DEFAULT_BINS = 8
PER_CHARACTERS = 1000


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
class VerbosityResult:
    judge: str
    decisive_pairs: int
    equal_length_pairs: int
    longer_wins: int
    longer_win_share: float  # among decisive pairs of unequal length
    longer_win_share_ci_low: float
    longer_win_share_ci_high: float
    binomial_p: float
    slope_per_1000_chars: float  # logistic: change in log-odds of the candidate winning per 1,000 characters
    slope_ci_low: float
    slope_ci_high: float
    slope_p: float
    bins: list[LengthBin]
    rule: str = ("consistent decisive swap pairs only (ties and position-inconsistent pairs left out); Wilson 95% "
                 "interval and exact binomial test against 1/2; a logistic model of the candidate winning on the "
                 "length difference, with an intercept for the gap in quality")


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


def _logistic_slope(pairs: pd.DataFrame) -> tuple[float, float, float, float]:
    if len(pairs) < 3 or pairs["candidate_won"].nunique() < 2 or pairs["difference"].nunique() < 2:
        return (float("nan"),) * 4
    # Fitted on (difference, outcome) counts with frequency weights: the same likelihood, so the same MLE, as one
    # row per pair, at the cost of a few thousand distinct rows instead of every pair.
    counts = pairs.groupby(["difference", "candidate_won"], sort=False).size().reset_index(name="pairs")
    design = sm.add_constant(counts["difference"].to_numpy(float) / PER_CHARACTERS, has_constant="add")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sm.GLM(counts["candidate_won"].to_numpy(float), design, family=sm.families.Binomial(),
                     freq_weights=counts["pairs"].to_numpy(float)).fit(tol=1e-12)
    low, high = fit.conf_int()[1]
    return float(fit.params[1]), float(low), float(high), float(fit.pvalues[1])


def verbosity_from_pairs(pairs: pd.DataFrame, judge: str, bins: int = DEFAULT_BINS) -> VerbosityResult:
    """Share of decisive pairs won by the longer answer, and win probability against the length difference."""
    unequal = pairs[pairs["difference"] != 0]
    longer_won = int(((unequal["difference"] > 0) == (unequal["candidate_won"] == 1)).sum())
    n = len(unequal)
    low, high = proportion_confint(longer_won, n, method="wilson") if n else (float("nan"), float("nan"))
    slope, slope_low, slope_high, slope_p = _logistic_slope(pairs)
    return VerbosityResult(
        judge=judge, decisive_pairs=len(pairs), equal_length_pairs=len(pairs) - n, longer_wins=longer_won,
        longer_win_share=longer_won / n if n else float("nan"), longer_win_share_ci_low=float(low),
        longer_win_share_ci_high=float(high), binomial_p=float(binomtest(longer_won, n).pvalue) if n else float("nan"),
        slope_per_1000_chars=slope, slope_ci_low=slope_low, slope_ci_high=slope_high, slope_p=slope_p,
        bins=_length_bins(pairs, bins),
    )


def expand_length_counts(counts: pd.DataFrame) -> pd.DataFrame:
    """One row per pair from (difference, candidate_won, pairs) counts, ordered by difference then outcome."""
    repeats = counts["pairs"].to_numpy()
    return pd.DataFrame({"difference": np.repeat(counts["difference"].to_numpy(np.int64), repeats),
                         "candidate_won": np.repeat(counts["candidate_won"].to_numpy(np.int64), repeats)})


def verbosity_frame(results: list[VerbosityResult]) -> pd.DataFrame:
    """One row per judge, without the bins."""
    return pd.DataFrame([{k: v for k, v in r.__dict__.items() if k not in ("bins", "rule")} for r in results])


def bins_frame(results: list[VerbosityResult]) -> pd.DataFrame:
    """Every judge's length-difference bins, one row per bin."""
    columns = ["judge", "low", "high", "median", "pairs", "candidate_wins", "win_rate"]
    return pd.DataFrame([{"judge": r.judge, **b.__dict__} for r in results for b in r.bins], columns=columns)
