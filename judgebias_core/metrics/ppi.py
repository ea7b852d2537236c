"""Prediction-powered estimates from a judge's calls on every item and human labels kept on a random fraction of
them (METHODS.md section 8; ``stats.ppi``): a candidate's human win rate (pairwise) or the human mean score (rubric).

An item is one unit, so units stay independent however many calls an item has. Pairwise: the judge's value is
the candidate's mean score over its calls on the item (1 when the slot holding the candidate is preferred, 1/2 for
a tie, 0 otherwise; both orders together), the human value is 1 when the item's raters prefer the candidate, 1/2
for a tie, 0 otherwise. Rubric: the judge's value is the mean of its parsed scores on the item (every ordering and
repeat together), the human value the mean of the item's raters' scores. Items are sampled, not calls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebias_core.errors import InvalidArgument
from judgebias_core.stats.ppi import PPIMethod, PredictionPoweredEstimate, prediction_powered_mean
from judgebias_core.stats.settings import FEW_ITEMS

TIE = "tie"
SAMPLING = "items drawn uniformly without replacement (numpy default_rng(seed)); their human labels kept"
# Below this many labelled items a PPI result carries a caveat: its interval rests on few independent units, as
# any interval on fewer than 30 items does (stats.settings.FEW_ITEMS; issue 23). With the t quantile and cross-fitted
# lambda the simulated coverage at 10 labels is 96.6-96.8% (bench/bench_coverage.py), but on the 40-item SummEval
# demo PPI++ with 4 labelled items covers the all-labels mean for 74 of seeds 0-99 (METHODS.md 8).
FEW_LABELS = FEW_ITEMS
# The default share of labels kept is at least this many items (unchanged by the caveat's threshold, so the
# bundled figures keep their default share).
DEFAULT_MIN_LABELS = 10
STORED_SAMPLING = ("the items with a human score as stored; valid when they are a uniform random sample of the "
                   "judged items")
DEFAULT_LABEL_FRACTION = 0.1


@dataclass(frozen=True)
class PredictionPoweredWinRate:
    """The human win rate of ``candidate`` by PPI from ``labelled`` of ``items`` human labels, next to the
    human-only and judge-only figures; ``all_labels_human_win_rate`` is what every human label gives (shown to
    judge the estimate on a dataset labelled throughout, never used by it)."""

    dataset_id: str
    judge: str
    study: str | None
    candidate: str
    label_fraction: float
    seed: int
    items: int
    labelled: int
    estimate: PredictionPoweredEstimate
    all_labels_human_win_rate: float
    sampling: str = SAMPLING
    caveat: str | None = None


def candidate_item_values(calls: pd.DataFrame, candidate: str) -> pd.DataFrame:
    """Per item the candidate appears in: ``judge`` (its mean score over parsed calls) and ``human`` (1, 1/2, 0),
    from ``labelled_pair_calls`` rows (verdict A: first slot preferred, B: second, C: tie)."""
    involved = calls[(calls["first_candidate"] == candidate) | (calls["second_candidate"] == candidate)]
    parsed = involved[involved["verdict"].isin(["A", "B", "C"])]
    slot_won = np.where(parsed["first_candidate"] == candidate, parsed["verdict"] == "A", parsed["verdict"] == "B")
    score = np.where(parsed["verdict"] == "C", 0.5, slot_won.astype(float))
    judge = pd.Series(score, index=parsed.index).groupby(parsed["item_id"]).mean().rename("judge")
    human = involved.groupby("item_id")["human"].first().map(
        lambda label: 0.5 if label == TIE else float(label == candidate)).rename("human")
    return pd.concat([judge, human], axis=1, join="inner").sort_index()


def prediction_powered_win_rate(calls: pd.DataFrame, dataset_id: str, judge: str, study: str | None,
                                candidate: str, label_fraction: float, seed: int,
                                method: PPIMethod = "ppi++") -> PredictionPoweredWinRate:
    """PPI estimate of the candidate's human win rate keeping ``label_fraction`` of the items' human labels."""
    values = candidate_item_values(calls, candidate)
    if values.empty:
        raise InvalidArgument(f"candidate {candidate!r} has no parsed call by {judge!r} on a labelled item")
    labelled = labelled_sample(len(values), label_fraction, seed)
    human, judged = values["human"].to_numpy(), values["judge"].to_numpy()
    estimate = prediction_powered_mean(human[labelled], judged[labelled], judged[~labelled], method=method)
    keep = int(labelled.sum())
    return PredictionPoweredWinRate(dataset_id, judge, study, candidate, label_fraction, seed, len(values), keep,
                                    estimate, float(human.mean()), caveat=few_labels_caveat(keep))


def few_labels_caveat(labelled: int) -> str | None:
    """The caveat of a PPI result on fewer than ``FEW_LABELS`` (30) labelled items; None from 30."""
    if labelled >= FEW_LABELS:
        return None
    return (f"only {labelled} labelled items: below {FEW_LABELS} the interval rests on few independent units and "
            "can cover less often than 95%; keep a larger share")


def labelled_sample(items: int, label_fraction: float, seed: int) -> np.ndarray:
    """Which of ``items`` keep their human label: round(label_fraction * items) of them, drawn uniformly without
    replacement by ``numpy.random.default_rng(seed)``; at least two labelled and two unlabelled."""
    if not 0 < label_fraction < 1:
        raise InvalidArgument(f"--label-fraction must lie strictly between 0 and 1, not {label_fraction}")
    keep = int(round(label_fraction * items))
    if keep < 2 or items - keep < 2:
        raise InvalidArgument(f"{label_fraction} of {items} items leaves {keep} labelled: PPI needs at least "
                              "two labelled and two unlabelled items")
    labelled = np.zeros(items, dtype=bool)
    labelled[np.random.default_rng(seed).choice(items, size=keep, replace=False)] = True
    return labelled


@dataclass(frozen=True)
class PredictionPoweredMeanScore:
    """The human mean score on ``rubric_id`` by PPI from ``labelled`` of ``items`` items' labels, next to the
    human-only and judge-only means; ``all_labels_human_mean`` is what every label gives (shown to judge the
    estimate on a dataset labelled throughout, never used by it). ``caveat`` names a too-small labelled sample.

    ``labels`` is "subsample" (every item has a label and a random ``label_fraction`` are kept, to show the method)
    or "stored" (the items that have a label are the labelled ones; ``seed`` and ``all_labels_human_mean`` None)."""

    dataset_id: str
    judge: str
    study: str | None
    runs: tuple[str, ...]
    rubric_id: str
    label_source: str
    label_fraction: float
    seed: int | None
    items: int
    labelled: int
    calls: int
    unparsed_calls: int
    raters_min: int
    raters_max: int
    estimate: PredictionPoweredEstimate
    all_labels_human_mean: float | None
    caveat: str | None
    labels: str = "subsample"
    kind: str = "rubric mean score"
    unit: str = ("item: the judge's parsed scores on it averaged (every ordering, repeat and run together), the "
                 "human value the mean of its raters' scores; items with no parsed call are left out")
    sampling: str = SAMPLING


def default_label_fraction(items: int) -> float:
    """10% of the items, or the smallest share (in whole percent, at most half) that keeps ``DEFAULT_MIN_LABELS``
    labelled."""
    if items <= 0:
        return DEFAULT_LABEL_FRACTION
    return max(DEFAULT_LABEL_FRACTION, min(0.5, float(np.ceil(100 * DEFAULT_MIN_LABELS / items) / 100)))


def rubric_item_values(trials: pd.DataFrame, rubric_id: str) -> pd.DataFrame:
    """Per item scored on the rubric with a parsed call: ``judge`` (mean parsed score), ``human`` (the raters' mean),
    ``calls`` (parsed calls) and ``raters``, from ``rubric_trials_with_labels`` rows."""
    scored = trials[(trials["rubric_id"] == rubric_id) & trials["score"].notna()]
    grouped = scored.groupby("item_id")
    return pd.DataFrame({"judge": grouped["score"].mean(), "human": grouped["human_mean"].first(),
                         "calls": grouped.size(), "raters": grouped["raters"].first()}).sort_index()


def prediction_powered_mean_score(trials: pd.DataFrame, dataset_id: str, judge: str, study: str | None,
                                  rubric_id: str, label_fraction: float | None, seed: int,
                                  method: PPIMethod = "ppi++") -> PredictionPoweredMeanScore:
    """PPI estimate of the human mean score keeping ``label_fraction`` (default ``default_label_fraction``) of the
    items' labels; the judge's calls of an item are averaged first, so items are the units."""
    values = rubric_item_values(trials, rubric_id)
    if values.empty:
        raise InvalidArgument(f"judge {judge!r} has no parsed score on rubric {rubric_id!r} of a labelled item")
    fraction = default_label_fraction(len(values)) if label_fraction is None else label_fraction
    labelled = labelled_sample(len(values), fraction, seed)
    return _mean_score(trials, values, labelled, (dataset_id, judge, study, rubric_id), fraction, seed, method,
                       "subsample")


def prediction_powered_mean_score_stored(trials: pd.DataFrame, dataset_id: str, judge: str, study: str | None,
                                         rubric_id: str, method: PPIMethod = "ppi++") -> PredictionPoweredMeanScore:
    """PPI estimate of the human mean score from the labels as stored: the judge's items with a human score are
    the labelled ones, the others unlabelled (``store.ppi_queries.rubric_trials_all_items`` rows). Valid when the
    labelled items are a uniform random sample of the judged ones, which only the user can vouch for."""
    values = rubric_item_values(trials, rubric_id)
    labelled = values["human"].notna().to_numpy()
    if labelled.sum() < 2 or (~labelled).sum() < 2:
        raise InvalidArgument(f"{int(labelled.sum())} of the {len(values)} items judge {judge!r} scored on "
                              f"{rubric_id!r} have a human score: PPI with the labels as stored needs at least two "
                              "labelled and two unlabelled items (a dataset labelled throughout: leave out --labels "
                              "stored to keep a random share)")
    return _mean_score(trials, values, labelled, (dataset_id, judge, study, rubric_id), float(labelled.mean()), None,
                       method, "stored")


def _mean_score(trials: pd.DataFrame, values: pd.DataFrame, labelled: np.ndarray,
                where: tuple[str, str, str | None, str], fraction: float, seed: int | None, method: PPIMethod,
                labels: str) -> PredictionPoweredMeanScore:
    dataset_id, judge, study, rubric_id = where
    on_rubric = trials[trials["rubric_id"] == rubric_id]
    human, judged = values["human"].to_numpy(dtype=float), values["judge"].to_numpy(dtype=float)
    estimate = prediction_powered_mean(human[labelled], judged[labelled], judged[~labelled], method=method)
    keep = int(labelled.sum())
    caveat = few_labels_caveat(keep)
    raters = values["raters"][labelled]
    return PredictionPoweredMeanScore(
        dataset_id, judge, study, tuple(sorted(on_rubric["study"].unique())), rubric_id,
        str(on_rubric["label_source"].dropna().iloc[0]), fraction, seed, len(values), keep,
        int(values["calls"].sum()), int(on_rubric["score"].isna().sum()), int(raters.min()), int(raters.max()),
        estimate, float(human.mean()) if labels == "subsample" else None, caveat, labels,
        sampling=SAMPLING if labels == "subsample" else STORED_SAMPLING)


def labels_worth_sentence(estimate: PredictionPoweredEstimate) -> str:
    """What the judge's values are worth, read from the interval widths: the PPI interval against the human-only
    one, and the number of human labels that would give the same width alone (widths scale as 1/sqrt(n))."""
    ppi_width = estimate.ppi.high - estimate.ppi.low
    human_width = estimate.human_only.high - estimate.human_only.low
    n, total = estimate.labelled, estimate.labelled + estimate.unlabelled
    if human_width <= 0 or ppi_width <= 0:
        return (f"No reading: the {n} labelled items' values do not vary, so neither interval has a width "
                "(a degenerate sample; keep more labels or another seed).")
    ratio = ppi_width / human_width
    if estimate.tuning == 0:
        return (f"The judge's values add nothing here (PPI++ tuning 0): the estimate is the human-only one from "
                f"the {n} labelled items.")
    if ratio >= 1:
        return (f"The judge's values make the interval wider ({ratio:.0%} of the human-only width from {n} "
                "labels): they are worth less than nothing here; use the human labels alone or PPI++.")
    equivalent = n / ratio**2
    return (f"With the judge's values on all {total:,} items, the interval is {ratio:.0%} as wide as from the {n:,} "
            f"human labels alone: as narrow as about {equivalent:,.0f} human labels would give, so the judge is "
            f"worth about {equivalent - n:,.0f} extra labels.")
