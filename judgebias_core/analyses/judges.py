"""Judges compared with each other (agreement, ensemble, leaderboard), each read from one store snapshot
(METHODS.md sections 5 to 8); verbosity and self-preference are in ``analyses.other_biases``."""

from __future__ import annotations

import pandas as pd

from judgebias_core.metrics.agreement import (
    ENSEMBLE_JUDGE,
    AgreementResult,
    agreement_from_codes,
    check_studies,
    classify_pairs,
    disagreeing_calls_from_calls,
    ensemble_calls,
    families_for,
    no_outcomes_error,
)
from judgebias_core.metrics.leaderboard import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Leaderboard,
    leaderboard_from_counts,
    leaderboard_from_outcomes,
)
from judgebias_core.store.agreement_queries import (
    item_score_counts,
    judge_families,
    judges_by_readable_calls,
    pair_outcomes,
    pairwise_calls,
    verdict_code_matrix_with_items,
)
from judgebias_core.store.handle import StoreReader


def agreement_report(reader: StoreReader, dataset_id: str, studies: list[str],
                     repetition: int | None = None) -> AgreementResult:
    """Agreement of every pair of judges in the studies, the ensemble against each, and per-call disagreement."""
    check_studies(studies)
    # The verdict table is pivoted in SQL into small integer codes: the same counts as verdict_table's strings.
    judges, _, codes, items = verdict_code_matrix_with_items(reader, dataset_id, studies, repetition)
    families = families_for(judges, judge_families(reader))
    return agreement_from_codes(judges, codes, families, dataset_id, studies, repetition, items)


def disagreeing_calls(reader: StoreReader, dataset_id: str, studies: list[str], repetition: int | None = None,
                      minimum_differing: int = 1) -> pd.DataFrame:
    """Calls on which at least ``minimum_differing`` judges differ from the majority, most disputed first."""
    return disagreeing_calls_from_calls(pairwise_calls(reader, dataset_id, studies, repetition), minimum_differing)


def load_outcomes(reader: StoreReader, dataset_id: str, studies: list[str], judge: str) -> pd.DataFrame:
    """Classified pairs of one judge (or of the majority-vote ensemble) in the studies."""
    if judge == ENSEMBLE_JUDGE:
        return classify_pairs(ensemble_calls(pairwise_calls(reader, dataset_id, studies)))
    outcomes = pair_outcomes(reader, dataset_id, studies, judge)
    if outcomes.empty:
        raise no_outcomes_error(dataset_id, studies, judge)
    return outcomes


def leaderboard(reader: StoreReader, dataset_id: str, studies: list[str], judge: str,
                resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Leaderboard:
    """The leaderboard one judge (or the majority-vote ensemble) gives the candidates of a dataset."""
    if judge == ENSEMBLE_JUDGE:
        return leaderboard_from_outcomes(load_outcomes(reader, dataset_id, studies, judge), dataset_id, studies,
                                         judge, resamples, seed)
    counts = item_score_counts(reader, dataset_id, studies, judge)
    if counts.empty:
        raise no_outcomes_error(dataset_id, studies, judge)
    return leaderboard_from_counts(counts, dataset_id, studies, judge, resamples, seed)


def leaderboard_judges(reader: StoreReader, dataset_id: str, study: str) -> list[str]:
    """The judges a leaderboard can be ranked by, the one with the most readable verdicts first (the page opens on
    it), the majority-vote ensemble last when there are several judges."""
    judges = judges_by_readable_calls(reader, dataset_id, study)
    return judges + ([ENSEMBLE_JUDGE] if len(judges) > 1 else [])
