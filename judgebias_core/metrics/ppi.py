"""Prediction-powered estimate of a candidate's human win rate from a judge's pairwise verdicts on every item and
human labels kept on a random fraction of them (METHODS.md section 8; ``stats.ppi``).

An item is one unit: the judge's value is the candidate's mean score over its calls on the item (1 when the slot
holding the candidate is preferred, 1/2 for a tie, 0 otherwise; both orders together), the human value is 1 when
the item's raters prefer the candidate, 1/2 for a tie, 0 otherwise. Items are sampled, not calls, so units stay
independent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebias_core.errors import InvalidArgument
from judgebias_core.stats.ppi import PPIMethod, PredictionPoweredEstimate, prediction_powered_mean

TIE = "tie"


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
    sampling: str = "items drawn uniformly without replacement (numpy default_rng(seed)); their human labels kept"


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
    if not 0 < label_fraction < 1:
        raise InvalidArgument(f"--label-fraction must lie strictly between 0 and 1, not {label_fraction}")
    values = candidate_item_values(calls, candidate)
    if values.empty:
        raise InvalidArgument(f"candidate {candidate!r} has no parsed call by {judge!r} on a labelled item")
    keep = int(round(label_fraction * len(values)))
    if keep < 2 or len(values) - keep < 2:
        raise InvalidArgument(f"{label_fraction} of {len(values)} items leaves {keep} labelled: PPI needs at least "
                              "two labelled and two unlabelled items")
    labelled = np.zeros(len(values), dtype=bool)
    labelled[np.random.default_rng(seed).choice(len(values), size=keep, replace=False)] = True
    human, judged = values["human"].to_numpy(), values["judge"].to_numpy()
    estimate = prediction_powered_mean(human[labelled], judged[labelled], judged[~labelled], method=method)
    return PredictionPoweredWinRate(dataset_id, judge, study, candidate, label_fraction, seed, len(values), keep,
                                    estimate, float(human.mean()))
