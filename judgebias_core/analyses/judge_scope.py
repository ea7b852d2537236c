"""The scope the pages comparing judges on pairwise data offer: the datasets with pairwise calls, their studies,
and the judges of a study (with the majority-vote ensemble when there are several)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.item_sets import other_studies_sentence
from judgebias_core.store.agreement_queries import pairwise_datasets, pairwise_studies

__all__ = ["StudyJudges", "pairwise_datasets", "pairwise_studies", "study_judges"]


@dataclass(frozen=True)
class StudyJudges:
    """The judges a study offers (the ensemble last when there are several) and the sentence naming the dataset's
    judges the study lacks and the studies that hold them (None when it holds them all)."""

    judges: list[str]
    other_studies: str | None


def study_judges(studies: pd.DataFrame, study: str) -> StudyJudges:
    """``study``'s judges, from the dataset's studies as ``pairwise_studies`` lists them."""
    judges = sorted(studies.loc[studies["study"] == study, "judges"].iloc[0])
    pointer = other_studies_sentence(dict(zip(studies["study"], studies["judges"], strict=True)), study)
    return StudyJudges(judges + ([ENSEMBLE_JUDGE] if len(judges) > 1 else []), pointer)
