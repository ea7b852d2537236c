"""Judges compared with each other (agreement, ensemble, leaderboard, verbosity, self-preference), each read from
one store snapshot (METHODS.md sections 5 to 8)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
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
    pair_scores,
    side_scores,
)
from judgebias_core.metrics.self_preference import (
    SelfPreference,
    family_mapping,
    self_preference_from_totals,
    side_totals,
    side_totals_from_combos,
)
from judgebias_core.metrics.verbosity import (
    DEFAULT_BINS,
    VerbosityResult,
    decisive_pairs_with_lengths,
    expand_length_counts,
    verbosity_from_pairs,
)
from judgebias_core.store.agreement_queries import (
    answer_lengths,
    dataset_candidates,
    decisive_length_counts,
    item_score_counts,
    judge_families,
    judges_with_outcomes,
    pair_outcomes,
    pair_score_totals,
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


def verbosity(reader: StoreReader, dataset_id: str, studies: list[str], judges: list[str],
              bins: int = DEFAULT_BINS) -> list[VerbosityResult]:
    """Verbosity bias of each judge (the majority-vote ensemble included when asked for) on a dataset."""
    stored = [judge for judge in judges if judge != ENSEMBLE_JUDGE]
    # Stored judges' decisive pairs come counted per (length difference, outcome) from one query: every measure
    # depends on the pairs only through those counts.
    found = judges_with_outcomes(reader, dataset_id, studies, stored)
    counts = decisive_length_counts(reader, dataset_id, studies, stored)
    by_judge = {judge: expand_length_counts(rows) for judge, rows in counts.groupby("judge", sort=False)}
    no_pairs = pd.DataFrame({"difference": np.zeros(0, dtype=np.int64), "candidate_won": np.zeros(0, dtype=np.int64)})
    results = []
    for judge in judges:
        if judge == ENSEMBLE_JUDGE:
            pairs = decisive_pairs_with_lengths(load_outcomes(reader, dataset_id, studies, judge),
                                                answer_lengths(reader, dataset_id))
        elif judge not in found:
            raise no_outcomes_error(dataset_id, studies, judge)
        else:
            pairs = by_judge.get(judge, no_pairs)
        results.append(verbosity_from_pairs(pairs, judge, bins))
    return results


def default_family_mapping(reader: StoreReader, dataset_id: str, judges: list[str]) -> dict[str, str]:
    """Every judge and candidate name of a dataset with its family (the judges table, else from the name)."""
    return family_mapping(dataset_candidates(reader, dataset_id), judges, judge_families(reader))


def self_preference(reader: StoreReader, dataset_id: str, studies: list[str], judges: list[str],
                    families: Mapping[str, str] | None = None) -> SelfPreference:
    """Judge family x candidate family win rates over the judges' classified pairs."""
    families = dict(families) if families else default_family_mapping(reader, dataset_id, judges)
    stored = [judge for judge in judges if judge != ENSEMBLE_JUDGE]
    found = judges_with_outcomes(reader, dataset_id, studies, stored)
    parts = []
    for judge in judges:  # in order, so the first judge without pairs raises as load_outcomes would
        if judge == ENSEMBLE_JUDGE:
            outcomes = load_outcomes(reader, dataset_id, studies, judge)
            parts.append(side_totals(side_scores(pair_scores(outcomes)).assign(judge=judge)))
        elif judge not in found:
            raise no_outcomes_error(dataset_id, studies, judge)
    stored_totals = side_totals_from_combos(pair_score_totals(reader, dataset_id, studies, stored))
    totals = pd.concat([stored_totals, *parts], ignore_index=True)
    return self_preference_from_totals(totals, families, dataset_id, studies)
