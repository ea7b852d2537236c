"""The G-Eval style expected score next to the parsed score of a rubric run (METHODS.md sections 1 and 6).

The expected score of a call is sum_s s * P(s) over the rubric's scores, P from the provider's token
log-probabilities at the score token (Liu et al. 2023, "G-Eval", arXiv 2303.16634; judges/geval.py), stored as
``judge_calls.expected_score``. On the calls that carry both, this module compares it with the parsed score:

- against the labels: Pearson and Spearman of the per-item mean expected score and of the per-item mean parsed score
  (same calls), and their difference, with item-bootstrap intervals (items resampled jointly);
- its position profile, the **position pull**: for each position p, the within-item slope of the score on the score
  option shown at p, sum (x - x_item)(y - y_item) / sum (x - x_item)^2. A judge blind to the order has pull 0 at
  every position; a judge that picks the option at p with extra probability w pulls towards the score shown there.
  The same slope of the parsed score sits next to it, and each has an item-bootstrap interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebias_core.metrics.bias_cost_bootstrap import INTERVAL_KIND
from judgebias_core.metrics.rubric import parse_ordering_key
from judgebias_core.metrics.rubric_bootstrap import Interval, item_bootstrap_sums, percentile_interval
from judgebias_core.metrics.rubric_correlation import (
    CorrelationEstimate,
    correlation_difference,
    correlation_estimate,
    row_pearson,
)
from judgebias_core.stats.settings import CONFIDENCE

DEGENERATE_WIDTH = 1e-9


@dataclass(frozen=True)
class PositionPull:
    """Within-item slope of the expected and of the parsed score on the score shown at one position."""

    position: int
    expected: float
    expected_ci: Interval
    parsed: float
    parsed_ci: Interval

    @property
    def expected_degenerate(self) -> bool:
        """A zero-width interval: every item gives the same slope, so no interval can be estimated."""
        return bool(self.expected_ci[1] - self.expected_ci[0] < DEGENERATE_WIDTH)

    @property
    def parsed_degenerate(self) -> bool:
        return bool(self.parsed_ci[1] - self.parsed_ci[0] < DEGENERATE_WIDTH)


@dataclass(frozen=True)
class GEvalSummary:
    """The expected score of a run next to its parsed score; ``available`` False (with ``reason``) without it."""

    available: bool
    reason: str | None
    calls: int
    with_expected: int
    compared: int  # calls with both an expected and a parsed score: every figure below is over these
    expected_unparsed: int  # calls with an expected score whose reply did not parse
    items: int
    mean_expected: float
    mean_parsed: float
    call_pearson: float
    label_source: str | None
    expected_vs_labels: CorrelationEstimate | None
    parsed_vs_labels: CorrelationEstimate | None
    difference: CorrelationEstimate | None
    pulls: tuple[PositionPull, ...]
    pull_reason: str | None
    resamples: int
    seed: int
    confidence: float = CONFIDENCE
    interval_kind: str = INTERVAL_KIND
    simulated: bool = False  # set by the caller from the run: the log-probabilities of a simulated judge


def _unavailable(reason: str, calls: int, resamples: int, seed: int) -> GEvalSummary:
    nan = float("nan")
    return GEvalSummary(False, reason, calls, 0, 0, 0, 0, nan, nan, nan, None, None, None, None, (), None,
                        resamples, seed)


def _shown_scores(keys: pd.Series) -> np.ndarray:
    """calls x k: the score shown at each position of each call's ordering."""
    distinct = keys.unique()
    table = np.array([parse_ordering_key(key) for key in distinct], dtype=float)
    return table[pd.Index(distinct).get_indexer(keys)]


def position_pulls(compared: pd.DataFrame, resamples: int, seed: int) -> tuple[tuple[PositionPull, ...], str | None]:
    """Per position, the within-item slope of the expected and the parsed score on the score shown there."""
    shown = _shown_scores(compared["ordering_key"])
    items = compared["item_id"].to_numpy()
    codes, item_index = np.unique(items, return_inverse=True)

    def centred(values: np.ndarray) -> np.ndarray:
        sums = np.zeros((len(codes),) + values.shape[1:])
        np.add.at(sums, item_index, values)
        sizes = np.bincount(item_index, minlength=len(codes)).reshape((-1,) + (1,) * (values.ndim - 1))
        return values - (sums / sizes)[item_index]

    x = centred(shown)
    ys = [centred(compared[column].to_numpy(float)) for column in ("expected_score", "score")]
    per_item = np.zeros((len(codes), 3 * shown.shape[1]))
    k = shown.shape[1]
    np.add.at(per_item[:, :k], item_index, x * x)
    np.add.at(per_item[:, k:2 * k], item_index, x * ys[0][:, None])
    np.add.at(per_item[:, 2 * k:], item_index, x * ys[1][:, None])
    totals = per_item.sum(axis=0)
    if (totals[:k] <= 1e-12).all():
        return (), ("every item was scored under one ordering only, so the score shown at a position never changes "
                    "within an item and no position pull can be measured (it needs a permutation run)")
    drawn = item_bootstrap_sums(per_item, resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected_draws = drawn[:, k:2 * k] / drawn[:, :k]
        parsed_draws = drawn[:, 2 * k:] / drawn[:, :k]
    pulls = []
    for p in range(k):
        if totals[p] <= 1e-12:
            continue
        pulls.append(PositionPull(p + 1, float(totals[k + p] / totals[p]),
                                  percentile_interval(expected_draws[:, p], CONFIDENCE),
                                  float(totals[2 * k + p] / totals[p]),
                                  percentile_interval(parsed_draws[:, p], CONFIDENCE)))
    return tuple(pulls), None


def geval_summary(trials: pd.DataFrame, labels: pd.Series, label_source: str | None, resamples: int,
                  seed: int) -> GEvalSummary:
    """The expected score against the parsed score of one run's trials (with an ``expected_score`` column)."""
    calls = int(len(trials))
    if "expected_score" not in trials.columns or trials["expected_score"].isna().all():
        return _unavailable("no call of this run carries an expected score: the run was launched without "
                            "log-probabilities, the judge returned none, or no reply had a score token after its "
                            "score marker ([RESULT] or \"score\")", calls, resamples, seed)
    has_expected = trials["expected_score"].notna()
    parsed = (trials["parse_status"] == "ok") & trials["score"].notna() & trials["chosen_position"].notna()
    compared = trials.loc[has_expected & parsed]
    if compared.empty:
        return _unavailable("no call has both an expected score and a parsed score", calls, resamples, seed)
    expected, score = compared["expected_score"].to_numpy(float), compared["score"].to_numpy(float)
    per_item = compared.groupby("item_id")[["expected_score", "score"]].mean()
    both = per_item.join(labels.rename("label"), how="inner").dropna()
    estimates: tuple[CorrelationEstimate | None, ...] = (None, None, None)
    if label_source is not None and len(both):
        e, s, y = (both[c].to_numpy(float) for c in ("expected_score", "score", "label"))
        estimates = (correlation_estimate(e, y, resamples, seed), correlation_estimate(s, y, resamples, seed),
                     correlation_difference(e, s, y, resamples, seed))
    pulls, pull_reason = position_pulls(compared, resamples, seed)
    return GEvalSummary(
        available=True, reason=None, calls=calls, with_expected=int(has_expected.sum()), compared=int(len(compared)),
        expected_unparsed=int((has_expected & ~parsed).sum()), items=int(len(per_item)),
        mean_expected=float(expected.mean()), mean_parsed=float(score.mean()),
        call_pearson=float(row_pearson(expected, score)) if len(compared) > 1 else float("nan"),
        label_source=label_source if estimates[0] is not None else None, expected_vs_labels=estimates[0],
        parsed_vs_labels=estimates[1], difference=estimates[2], pulls=pulls, pull_reason=pull_reason,
        resamples=resamples, seed=seed,
    )
