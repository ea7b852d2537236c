"""Biases besides position on the same swap pairs: verbosity and self-preference (METHODS.md section 6), each read
from one store snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pandas as pd

from judgebias_core.analyses.judges import load_outcomes
from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE, no_outcomes_error
from judgebias_core.metrics.leaderboard import pair_scores, side_scores
from judgebias_core.metrics.self_preference import (
    SelfPreference,
    family_mapping,
    in_family_terms,
    self_preference_from_totals,
    side_totals,
    side_totals_from_combos,
)
from judgebias_core.metrics.verbosity import (
    CLUSTERS,
    CONTROLS,
    DEFAULT_BINS,
    VerbosityReport,
    VerbosityResult,
    decisive_pairs_with_lengths,
    verbosity_from_pairs,
    verbosity_report,
)
from judgebias_core.store.agreement_queries import (
    answer_lengths,
    dataset_candidates,
    judge_families,
    judges_with_outcomes,
    pair_score_totals,
)
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.other_biases_queries import decisive_length_pairs, scored_pairs


def _check_judges_found(reader: StoreReader, dataset_id: str, studies: list[str], judges: list[str]) -> list[str]:
    """The stored judges among ``judges``; the first one without pairs raises as ``load_outcomes`` would."""
    stored = [judge for judge in judges if judge != ENSEMBLE_JUDGE]
    found = judges_with_outcomes(reader, dataset_id, studies, stored)
    missing = next((judge for judge in stored if judge not in found), None)
    if missing is not None:
        raise no_outcomes_error(dataset_id, studies, missing)
    return stored


def verbosity(reader: StoreReader, dataset_id: str, studies: list[str], judges: list[str],
              bins: int = DEFAULT_BINS, cluster: str = "item", control: str = "none") -> VerbosityReport:
    """Verbosity bias of each judge (the majority-vote ensemble included when asked for) on a dataset, the slope
    clustered by ``cluster`` (item or candidate), with candidate fixed effects when ``control`` is "candidate"."""
    if cluster not in CLUSTERS or control not in CONTROLS:
        raise InvalidArgument(f"cluster must be one of {', '.join(CLUSTERS)} and control one of {', '.join(CONTROLS)}")
    stored = _check_judges_found(reader, dataset_id, studies, judges)
    pairs = decisive_length_pairs(reader, dataset_id, studies, stored)
    by_judge = dict(tuple(pairs.groupby("judge", sort=False)))
    results = [ensemble_verbosity(reader, dataset_id, studies, bins, cluster, control) if judge == ENSEMBLE_JUDGE
               else verbosity_from_pairs(by_judge.get(judge, pairs.iloc[0:0]).reset_index(drop=True), judge, bins,
                                         cluster, control)
               for judge in judges]
    return verbosity_report(results, dataset_id, studies, cluster, control)


def ensemble_verbosity(reader: StoreReader, dataset_id: str, studies: list[str], bins: int = DEFAULT_BINS,
                       cluster: str = "item", control: str = "none") -> VerbosityResult:
    """The verbosity of the judges' majority vote (every judge of ``studies`` votes, whichever judges are shown)."""
    rows = decisive_pairs_with_lengths(load_outcomes(reader, dataset_id, studies, ENSEMBLE_JUDGE),
                                       answer_lengths(reader, dataset_id))
    return verbosity_from_pairs(rows.reset_index(drop=True), ENSEMBLE_JUDGE, bins, cluster, control)


def default_family_mapping(reader: StoreReader, dataset_id: str, judges: list[str]) -> dict[str, str]:
    """Every judge and candidate name of a dataset with its family (the judges table, else from the name)."""
    return family_mapping(dataset_candidates(reader, dataset_id), judges, judge_families(reader))


def self_preference(reader: StoreReader, dataset_id: str, studies: list[str], judges: list[str],
                    families: Mapping[str, str] | None = None) -> SelfPreference:
    """Judge family x candidate family win rates over the judges' classified pairs, and each family's in-family
    term over judge leniency and candidate quality (the stored judges only: the ensemble is their majority)."""
    families = dict(families) if families else default_family_mapping(reader, dataset_id, judges)
    stored = _check_judges_found(reader, dataset_id, studies, judges)
    parts = [side_totals(side_scores(pair_scores(load_outcomes(reader, dataset_id, studies, ENSEMBLE_JUDGE)))
                         .assign(judge=ENSEMBLE_JUDGE))] if ENSEMBLE_JUDGE in judges else []
    stored_totals = side_totals_from_combos(pair_score_totals(reader, dataset_id, studies, stored))
    totals = pd.concat([stored_totals, *parts], ignore_index=True)
    matrix = self_preference_from_totals(totals, families, dataset_id, studies)
    pairs = scored_pairs(reader, dataset_id, studies, stored)
    terms, not_identified, tests = in_family_terms(pairs, families)
    return replace(matrix, in_family=terms, not_identified=not_identified, tests=tests, model_pairs=len(pairs),
                   model_items=int(pairs["item_id"].nunique()), model_judges=tuple(stored))
