"""Judges against people (METHODS.md section 5): calibration of one judge or the ensemble, from one snapshot."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from judgebias_core.errors import NotFoundError
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE, ensemble_calls
from judgebias_core.metrics.calibration import (
    PairwiseCalibration,
    RubricCalibration,
    calibration_choices_from_targets,
    disagreeing_pairs_from_calls,
    disagreeing_trials_from_trials,
    human_ceiling_reading,
    human_rater_agreement,
    pairwise_calibration_from_calls,
    rater_kappas,
    rubric_calibration_from_trials,
)
from judgebias_core.metrics.label_words import LabelWords, label_words
from judgebias_core.metrics.ppi import (
    DEFAULT_LABEL_FRACTION,
    PredictionPoweredMeanScore,
    PredictionPoweredWinRate,
    prediction_powered_mean_score,
    prediction_powered_mean_score_stored,
    prediction_powered_win_rate,
)

# ``X as X``: offered to ui/ppi_block.py, which reaches metrics only through analyses/ (docs/ARCHITECTURE.md)
from judgebias_core.metrics.ppi import FEW_LABELS as FEW_LABELS
from judgebias_core.metrics.ppi import default_label_fraction as default_label_fraction
from judgebias_core.metrics.ppi import labels_worth_sentence as labels_worth_sentence
from judgebias_core.stats.ppi import PPIMethod
from judgebias_core.store.agreement_queries import pairwise_calls, pairwise_studies
from judgebias_core.store.calibration_queries import (
    calibration_targets,
    judge_simulated,
    label_groups,
    pair_preferences,
    pairwise_calls_with_labels,
    rubric_rater_scores,
    rubric_scale,
    rubric_trials_with_labels,
)
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.ppi_queries import rubric_trials_all_items


def labelled_pair_calls(reader: StoreReader, dataset_id: str, judge: str, study: str | None = None) -> pd.DataFrame:
    """A judge's pairwise calls on labelled items; the ensemble's are its majority votes over the study's judges."""
    if judge != ENSEMBLE_JUDGE:
        return pairwise_calls_with_labels(reader, dataset_id, judge, study)
    studies = [study] if study else pairwise_studies(reader, dataset_id)["study"].tolist()
    votes = ensemble_calls(pairwise_calls(reader, dataset_id, studies))
    return votes.merge(pair_preferences(reader, dataset_id), on="item_id")


def calibration_choices(reader: StoreReader) -> pd.DataFrame:
    """Every (dataset, study, judge) that can be calibrated; the ensemble wherever a pairwise study has two judges."""
    return calibration_choices_from_targets(calibration_targets(reader))


def judge_is_simulated(reader: StoreReader, judge: str) -> bool:
    """Whether a judge is simulated, so every sentence comparing it with people can say so."""
    return judge_simulated(reader, judge)


def calibration_runs(reader: StoreReader, dataset_id: str, judge: str) -> list[str]:
    """The studies (runs) of a judge on a dataset's labelled items, in the calibration choices' order."""
    choices = calibration_choices(reader)
    return choices[(choices["dataset_id"] == dataset_id) & (choices["judge"] == judge)]["study"].tolist()


def calibration(reader: StoreReader, dataset_id: str, judge: str, study: str | None = None,
                all_runs: bool = False) -> PairwiseCalibration | RubricCalibration:
    """Calibration of a judge (or the majority-vote ensemble) against the dataset's labels, on one run: ``study``,
    else the judge's first run on the dataset; ``all_runs`` pools every run (named in ``pooled_runs``).

    Pairwise when the judge made pairwise calls on labelled items, else rubric.
    """
    runs = calibration_runs(reader, dataset_id, judge)
    if study is None and not all_runs and runs:
        study = runs[0]
    pooled = [study] if study is not None else runs
    calls = labelled_pair_calls(reader, dataset_id, judge, study)
    if not calls.empty:
        return replace(pairwise_calibration_from_calls(calls, dataset_id, judge, study), pooled_runs=pooled)
    trials = rubric_trials_with_labels(reader, dataset_id, judge, study)
    if trials.empty:
        raise NotFoundError(f"judge {judge!r} has no call on labelled items of {dataset_id!r}"
                            + (f" in study {study!r}" if study else ""))
    rubrics = sorted(trials["rubric_id"].unique())
    result = rubric_calibration_from_trials(trials, rubric_scale(reader, rubrics), dataset_id, judge, study)
    scores = rubric_rater_scores(reader, dataset_id, rubrics)
    scored = scores[scores["item_id"].isin(trials["item_id"])]  # the items the judge scored
    humans = human_rater_agreement(scored)
    reading = human_ceiling_reading(result.judge_human_alpha, humans) \
        if humans is not None and result.judge_human_alpha is not None else None
    kappas = rater_kappas(trials[trials["score"].notna()], scored, result.levels)
    kappa_reading = human_ceiling_reading(kappas[1], kappas[0], "mean pairwise Cohen's kappa",
                                          "judge vs each rater") if kappas is not None else None
    return replace(result, pooled_runs=pooled, human_agreement=humans, human_agreement_reading=reading,
                   human_pairwise_kappa=kappas[0] if kappas else None, judge_rater_kappa=kappas[1] if kappas else None,
                   human_pairwise_kappa_reading=kappa_reading)


def disagreeing_pairs(reader: StoreReader, dataset_id: str, judge: str, study: str | None = None) -> pd.DataFrame:
    """Pairs whose swap-aggregated verdict differs from the human label, with both orders' verdicts."""
    return disagreeing_pairs_from_calls(labelled_pair_calls(reader, dataset_id, judge, study))


def disagreeing_trials(reader: StoreReader, dataset_id: str, judge: str, study: str | None = None) -> pd.DataFrame:
    """Rubric calls whose score differs from the raters' median, largest gaps first."""
    return disagreeing_trials_from_trials(rubric_trials_with_labels(reader, dataset_id, judge, study))


def prediction_powered(reader: StoreReader, dataset_id: str, judge: str, candidate: str | None = None,
                       study: str | None = None, label_fraction: float = DEFAULT_LABEL_FRACTION, seed: int = 0,
                       method: PPIMethod = "ppi++") -> PredictionPoweredWinRate:
    """The prediction-powered human win rate of a candidate (default: the first by name) from a judge's pairwise
    verdicts and a random ``label_fraction`` of the items' human labels."""
    calls = labelled_pair_calls(reader, dataset_id, judge, study)
    if calls.empty:
        raise NotFoundError(f"judge {judge!r} has no pairwise call on labelled items of {dataset_id!r}"
                            + (f" in study {study!r}" if study else ""))
    chosen = candidate or sorted(set(calls["first_candidate"]) | set(calls["second_candidate"]))[0]
    return prediction_powered_win_rate(calls, dataset_id, judge, study, chosen, label_fraction, seed, method)


def prediction_powered_score(reader: StoreReader, dataset_id: str, judge: str, rubric: str | None = None,
                             study: str | None = None, label_fraction: float | None = None, seed: int = 0,
                             method: PPIMethod = "ppi++") -> PredictionPoweredMeanScore:
    """The prediction-powered human mean score on a rubric (default: the first by name) from a judge's rubric
    scores on every labelled item of ``study`` (None: every run) and a random ``label_fraction`` of the labels."""
    trials = rubric_trials_with_labels(reader, dataset_id, judge, study)
    if trials.empty:
        raise NotFoundError(f"judge {judge!r} has no rubric call on labelled items of {dataset_id!r}"
                            + (f" in study {study!r}" if study else ""))
    chosen = rubric or sorted(trials["rubric_id"].unique())[0]
    return prediction_powered_mean_score(trials, dataset_id, judge, study, chosen, label_fraction, seed, method)


def prediction_powered_score_stored(reader: StoreReader, dataset_id: str, judge: str, rubric: str | None = None,
                                    study: str | None = None, method: PPIMethod = "ppi++") -> PredictionPoweredMeanScore:
    """The prediction-powered human mean score with the labels as stored: the judge's scored items that have a
    human score are the labelled ones, the rest unlabelled."""
    trials = rubric_trials_all_items(reader, dataset_id, judge, study)
    if trials["human_mean"].isna().all():
        raise NotFoundError(f"judge {judge!r} has no rubric call on labelled items of {dataset_id!r}"
                            + (f" in study {study!r}" if study else ""))
    chosen = rubric or sorted(trials["rubric_id"].unique())[0]
    return prediction_powered_mean_score_stored(trials, dataset_id, judge, study, chosen, method)


def prediction_powered_any(reader: StoreReader, dataset_id: str, judge: str, candidate: str | None = None,
                           rubric: str | None = None, study: str | None = None, label_fraction: float | None = None,
                           seed: int = 0, method: PPIMethod = "ppi++", stored_labels: bool = False
                           ) -> PredictionPoweredWinRate | PredictionPoweredMeanScore:
    """The human win rate when the judge made pairwise calls on labelled items, else the human mean score (the
    rule ``calibration`` follows); the pairwise default share is 10%. ``stored_labels`` (rubric only): the labels
    as stored instead of a random share of them."""
    if stored_labels:
        return prediction_powered_score_stored(reader, dataset_id, judge, rubric, study, method)
    if not labelled_pair_calls(reader, dataset_id, judge, study).empty:
        return prediction_powered(reader, dataset_id, judge, candidate, study,
                                  DEFAULT_LABEL_FRACTION if label_fraction is None else label_fraction, seed, method)
    return prediction_powered_score(reader, dataset_id, judge, rubric, study, label_fraction, seed, method)


def dataset_label_words(reader: StoreReader, dataset_id: str, label_source: str) -> LabelWords:
    """How to name the dataset's labels of ``label_source``: people's, gold (set by the authors) or a reference
    judge's (``metrics.label_words``)."""
    return label_words(label_source, label_groups(reader, dataset_id, label_source))
