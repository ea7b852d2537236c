"""Self-preference: how candidates of each family fare when judged by each family (a judge x candidate matrix).

Families come from an editable mapping of model names to families; names missing from it fall back to
``model_family``. Each classified pair scores its candidate 1 (win), 1/2 (tie or position-inconsistent) or 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from judgebias_core.identity import model_family
from judgebias_core.metrics.agreement import ENSEMBLE_FAMILY, ENSEMBLE_JUDGE


@dataclass(frozen=True)
class FamilyCell:
    judge_family: str
    candidate_family: str
    pairs: int
    win_rate: float


@dataclass(frozen=True)
class FamilyGap:
    """A family's candidates judged by their own family against by every other family."""

    family: str
    own_pairs: int
    own_win_rate: float
    other_pairs: int
    other_win_rate: float
    difference: float


@dataclass(frozen=True)
class SelfPreference:
    dataset_id: str
    studies: list[str]
    judges: list[str]
    cells: list[FamilyCell]
    gaps: list[FamilyGap]
    rule: str = ("each pair counts for both of its candidates (the opponent scores 1 - s); in a baseline design "
                 "candidates' win rates are against the baseline")

    def matrix(self) -> pd.DataFrame:
        """Judge families as rows, candidate families as columns, win rates as values."""
        frame = pd.DataFrame([c.__dict__ for c in self.cells])
        if frame.empty:
            return frame
        return frame.pivot(index="judge_family", columns="candidate_family", values="win_rate")


def family_mapping(candidates: list[str], judges: list[str], known: dict[str, str]) -> dict[str, str]:
    """Every judge and candidate name with its family (``known``: the judges table's, else from the name)."""
    mapping = {name: model_family(name) for name in candidates}
    mapping.update({judge: known.get(judge) or model_family(judge) for judge in judges if judge != ENSEMBLE_JUDGE})
    return mapping


def side_totals(sides: pd.DataFrame) -> pd.DataFrame:
    """Per-candidate pair scores with a ``judge`` column summed per (judge, player): ``pairs``, ``score_sum``."""
    return sides.groupby(["judge", "player"], as_index=False)["score"].agg(pairs="size", score_sum="sum")


def self_preference_from_sides(sides: pd.DataFrame, families: Mapping[str, str], dataset_id: str,
                               studies: list[str]) -> SelfPreference:
    """Win-rate matrix from per-candidate pair scores with a ``judge`` column."""
    return self_preference_from_totals(side_totals(sides), families, dataset_id, studies)


def self_preference_from_totals(totals: pd.DataFrame, families: Mapping[str, str], dataset_id: str,
                                studies: list[str]) -> SelfPreference:
    """Win-rate matrix from (judge, player) totals of pairs and summed scores (scores are 0, 1/2 or 1, so the
    sums are exact and each mean equals the mean over the pairs themselves)."""
    def family_of(name: str) -> str:
        if name == ENSEMBLE_JUDGE:
            return ENSEMBLE_FAMILY
        return families.get(name) or model_family(name)

    frame = totals.assign(judge_family=totals["judge"].map(family_of),
                          candidate_family=totals["player"].map(family_of))
    grouped = frame.groupby(["judge_family", "candidate_family"])[["pairs", "score_sum"]].sum().reset_index()
    cells = [FamilyCell(r.judge_family, r.candidate_family, int(r.pairs), float(r.score_sum / r.pairs))
             for r in grouped.itertuples(index=False)]
    gaps = []
    for family, rows in frame[frame["judge_family"] != ENSEMBLE_FAMILY].groupby("candidate_family"):
        own, other = rows[rows["judge_family"] == family], rows[rows["judge_family"] != family]
        if own.empty or other.empty:
            continue
        own_rate = float(own["score_sum"].sum() / own["pairs"].sum())
        other_rate = float(other["score_sum"].sum() / other["pairs"].sum())
        gaps.append(FamilyGap(str(family), int(own["pairs"].sum()), own_rate, int(other["pairs"].sum()),
                              other_rate, own_rate - other_rate))
    return SelfPreference(dataset_id=dataset_id, studies=list(studies),
                          judges=sorted(totals["judge"].unique()), cells=cells, gaps=gaps)


def side_totals_from_combos(combos: pd.DataFrame) -> pd.DataFrame:
    """(judge, player) totals from (judge, candidate, opponent) totals (``pair_score_totals``), both sides of each
    pair."""
    sides = pd.concat([
        combos.rename(columns={"candidate": "player"})[["judge", "player", "pairs", "score_sum"]],
        combos.rename(columns={"opponent": "player"}).assign(score_sum=combos["pairs"] - combos["score_sum"])[
            ["judge", "player", "pairs", "score_sum"]],
    ], ignore_index=True)
    return sides.groupby(["judge", "player"], as_index=False)[["pairs", "score_sum"]].sum()
