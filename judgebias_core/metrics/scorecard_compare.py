"""Which scorecard rows are clearly less accurate than the best one, and the recommendation that follows.

Each row's swap-averaged accuracy is compared with the best row's on the labelled pairs both judged: a paired item
bootstrap of the difference (the items drawn by ``stats.resampling.draw_counts`` with the caller's resamples and
seed, once for both rows, so what they share cancels) gives its standard error, and the difference is tested and
its interval drawn with Student's t on the items minus one; the family of comparisons shown is corrected with Holm,
and each interval is widened to the Bonferroni level over that family so that it is read together with the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebias_core.metrics.scorecard import SWAP_ADVICE_FLIP_RATE, PairCredits, ScorecardRow
from judgebias_core.stats.clustered import CONFIDENCE, RESAMPLES, SEED
from judgebias_core.stats.multiple import ALPHA, correct
from judgebias_core.stats.resampling import draw_counts


@dataclass(frozen=True)
class PairedDifference:
    """This row's accuracy minus the best row's, on the labelled pairs both judged."""

    against: str  # the best row's label
    shared_pairs: int
    shared_items: int
    difference: float
    low: float
    high: float
    confidence: float  # the Bonferroni level over the family shown
    method: str
    p_value: float
    p_corrected: float  # Holm over the family shown
    clearly_worse: bool
    degenerate_reason: str | None


@dataclass(frozen=True)
class Recommendation:
    """A sentence in plain words and the configuration it names (None when no configuration can be named)."""

    sentence: str
    judge: str | None
    study: str | None
    protocol: str | None
    label: str | None


BOOTSTRAP_METHOD = "paired-item-bootstrap-t"


@dataclass(frozen=True)
class _Difference:
    difference: float
    low: float
    high: float
    p_value: float
    method: str
    degenerate_reason: str | None


def _bootstrap_difference(item_keys: np.ndarray, mine: np.ndarray, best: np.ndarray, confidence: float,
                          resamples: int, seed: int) -> _Difference:
    """Mean credit of ``mine`` minus ``best`` over the same pairs; its standard error from a paired item bootstrap
    (every resample draws whole items, both rows' pairs of an item together), then Student's t on items - 1."""
    codes, items = pd.factorize(item_keys, sort=True)
    n_items = len(items)
    trials = np.bincount(codes, minlength=n_items).astype(float)
    mine_items = np.bincount(codes, weights=mine, minlength=n_items)
    best_items = np.bincount(codes, weights=best, minlength=n_items)
    total = float(trials.sum())
    difference = float(mine_items.sum()) / total - float(best_items.sum()) / total  # as each row's rate is summed
    gap = mine_items - best_items
    nan = float("nan")
    if n_items < 2:
        return _Difference(difference, nan, nan, nan, BOOTSTRAP_METHOD,
                           "one item: no between-item variation can be estimated")
    counts = draw_counts(n_items, resamples, seed)
    draws = (counts @ gap) / (counts @ trials)  # every item has a pair, so no resample has zero trials
    # The bootstrap variance of a mean over n items is (n - 1) / n of the unbiased one: scale it back, so the
    # standard error matches the cluster-robust one (its n / (n - 1) factor) up to Monte Carlo error.
    standard_error = float(np.std(draws, ddof=1)) * float(np.sqrt(n_items / (n_items - 1)))
    if standard_error == 0:
        return _Difference(difference, difference, difference, nan, BOOTSTRAP_METHOD,
                           "the difference is the same in every item, so it has no item-to-item variation to test")
    from scipy.stats import t as student_t  # noqa: PLC0415 - on demand, as in stats.paired

    df = n_items - 1
    half = float(student_t.ppf(0.5 + confidence / 2, df)) * standard_error
    p_value = float(2 * student_t.sf(abs(difference) / standard_error, df))
    return _Difference(difference, difference - half, difference + half, p_value, BOOTSTRAP_METHOD, None)


def best_row(rows: Sequence[ScorecardRow]) -> ScorecardRow | None:
    """The most accurate labelled row (swap-averaged; ties broken by more labelled pairs, then by name)."""
    labelled = [r for r in rows if r.accuracy is not None and r.accuracy.pairs]
    if not labelled:
        return None
    return sorted(labelled, key=lambda r: (-r.accuracy.estimate, -r.labelled_pairs, r.judge, r.study))[0]  # type: ignore[union-attr]


def paired_differences(rows: Sequence[ScorecardRow], credits: PairCredits,
                       resamples: int = RESAMPLES, seed: int = SEED,
                       alpha: float = ALPHA) -> dict[tuple, PairedDifference]:
    """Every labelled row but the best against the best, keyed by (judge, study, protocol)."""
    best = best_row(rows)
    if best is None:
        return {}
    best_key = (best.judge, best.study, best.protocol)
    others = [r for r in rows if r.accuracy is not None and (r.judge, r.study, r.protocol) != best_key]
    if not others:
        return {}
    level = 1 - alpha / len(others)
    raw: list[tuple[tuple[str, str, str], _Difference | None, int, int]] = []
    for row in others:
        key = (row.judge, row.study, row.protocol)
        mine_all, best_all = credits.credits[key], credits.credits[best_key]
        shared = ~np.isnan(mine_all) & ~np.isnan(best_all)
        if not shared.any():
            raw.append((key, None, 0, 0))
            continue
        keys = credits.item_keys[shared]
        raw.append((key, _bootstrap_difference(keys, mine_all[shared], best_all[shared], level, resamples, seed),
                    int(shared.sum()), len(set(keys))))
    family = correct([d.p_value if d is not None else float("nan") for _, d, _, _ in raw],
                     [f"{k[0]} [{k[1]}]" for k, _, _, _ in raw], "holm", alpha)
    out = {}
    nan = float("nan")
    for (key, diff, n_pairs, n_items), p_corr, reject in zip(raw, family.corrected, family.reject, strict=True):
        if diff is None:
            out[key] = PairedDifference(best.label, 0, 0, nan, nan, nan, level, "no-pairs", nan, nan, False,
                                        "no labelled pair judged by both")
            continue
        out[key] = PairedDifference(best.label, n_pairs, n_items, diff.difference, diff.low, diff.high, level,
                                    diff.method, diff.p_value, float(p_corr), bool(reject and diff.difference < 0),
                                    diff.degenerate_reason)
    return out


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _bias_advice(row: ScorecardRow) -> str:
    flip = row.flip_rate
    if flip.pairs == 0:
        return "Its position bias cannot be measured (no pair parsed in both orders)."
    share = f"{int(flip.events):,} of {flip.pairs:,} pairs"
    if flip.estimate >= SWAP_ADVICE_FLIP_RATE:
        return (f"Swap-average it (judge both orders, a disagreement counts as a tie): it flips {_pct(flip.estimate)} "
                f"of pairs ({share}; 95% interval {_pct(flip.low)} to {_pct(flip.high)}).")
    return (f"It rarely changes its verdict when the answers swap places ({_pct(flip.estimate)}, {share}), so one "
            "order is defensible when cost matters; both orders stay the safer choice.")


def recommend(rows: Sequence[ScorecardRow], differences: dict[tuple, PairedDifference],
              labelled_elsewhere: Sequence[str] = ()) -> Recommendation:
    """The cheapest configuration not clearly worse than the best, in plain words; or why none can be named."""
    best = best_row(rows)
    if best is None:
        where = f" Datasets with labels: {', '.join(labelled_elsewhere)}." if labelled_elsewhere else ""
        return Recommendation(
            "No recommendation: these pairs carry no labels, so no judge's accuracy can be measured here (position "
            "bias, failures and cost are still compared below). Upload labels for these items (Data page, Upload: "
            f"pairs with a preference column) or pick a labelled dataset.{where}", None, None, None, None)
    assert best.accuracy is not None
    head = (f"{best.label} is the most accurate here: {_pct(best.accuracy.estimate)} swap-averaged on "
            f"{best.labelled_pairs:,} labelled pairs (95% interval {_pct(best.accuracy.low)} to {_pct(best.accuracy.high)}).")
    labelled_rows = [r for r in rows if r.accuracy is not None]
    if len(labelled_rows) == 1:
        return Recommendation(
            f"Only one judge configuration has labelled pairs here: {best.label}, "
            f"{_pct(best.accuracy.estimate)} swap-averaged on {best.labelled_pairs:,} pairs (95% interval "
            f"{_pct(best.accuracy.low)} to {_pct(best.accuracy.high)}). There is nothing to compare it with on these "
            f"pairs, so no recommendation. {_bias_advice(best)}", None, None, None, None)
    contenders = [r for r in rows if r.accuracy is not None
                  and not differences.get((r.judge, r.study, r.protocol), _NOT_WORSE).clearly_worse]
    if len(labelled_rows) > 1 and len(contenders) == len(labelled_rows):
        return Recommendation(
            head + f" But no configuration is clearly more accurate than the others: none of the "
            f"{len(labelled_rows) - 1} differences from it is beyond chance after Holm correction. More labelled "
            "pairs are needed before naming a winner; until then choose on cost and position bias.",
            None, None, None, None)
    priced = [r for r in contenders if r.cost_per_1000.value is not None]
    if priced and len(priced) == len(contenders):
        chosen = min(priced, key=lambda r: (r.cost_per_1000.value, -r.accuracy.estimate))  # type: ignore[union-attr]
        reason = f"the cheapest of the {len(contenders)} configurations not clearly less accurate than the best"
    else:
        chosen = best
        unpriced = len(contenders) - len(priced)
        others = len(contenders) - 1
        reason = ("every other configuration is clearly less accurate" if not others else
                  f"the most accurate; {others} other configuration{'s are' if others > 1 else ' is'} not clearly "
                  f"less accurate, and cost is not recorded for {unpriced} of these {len(contenders)}, so the "
                  "cheapest cannot be named")
    words = [f"Why {chosen.label}: {reason}."]
    if chosen is not best:
        diff = differences[(chosen.judge, chosen.study, chosen.protocol)]
        words.append(f"Its accuracy is {_pct(chosen.accuracy.estimate)}, {_pct(abs(diff.difference))} "  # type: ignore[union-attr]
                     f"{'below' if diff.difference < 0 else 'above'} the best on the {diff.shared_pairs:,} pairs "
                     f"both judged ({round(100 * diff.confidence, 1)}% interval {_pct(diff.low)} to {_pct(diff.high)}).")
    cost = chosen.cost_per_1000
    if cost.value is not None:
        words.append(f"Cost: ${cost.value:,.2f} per 1,000 judgments ({cost.basis}).")
    clearly = sum(d.clearly_worse for d in differences.values())
    words.append(f"{clearly} of the {len(differences)} other configurations are clearly less accurate "
                 "(each compared pair by pair, allowing for the number of comparisons).")
    words.append(_bias_advice(chosen))
    return Recommendation(head + " " + " ".join(words), chosen.judge, chosen.study, chosen.protocol, chosen.label)


_NOT_WORSE = PairedDifference("", 0, 0, 0.0, 0.0, 0.0, CONFIDENCE, "best", 1.0, 1.0, False, None)
