"""Self-preference: how candidates of each family fare when judged by each family (a judge x candidate matrix).

Families come from an editable mapping of model names to families; names missing from it fall back to
``model_family``. Each classified pair scores its candidate 1 (win), 1/2 (tie or position-inconsistent) or 0.

The matrix alone confuses a judge's leniency with a preference for its own family (a judge that favours every
challenger over the baseline raises its own family's cell too). The in-family terms control for both: a fractional
logit of each pair's score on judge effects (leniency towards the candidate slot), candidate fixed effects (+1
candidate, -1 opponent: quality) and, per family, +1 when the judge shares the candidate's family, -1 when it shares
the opponent's; the term is what is left of the family match once rows and columns are removed, with item-clustered
standard errors and a Holm correction over the families shown (``in_family_terms``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgebias_core.identity import model_family
from judgebias_core.metrics.agreement import ENSEMBLE_FAMILY, ENSEMBLE_JUDGE
from judgebias_core.metrics.clustered_logit import (
    ClusteredTerm,
    clustered_logit_terms,
    full_rank_columns,
    player_design,
)
from judgebias_core.stats.multiple import CorrectedTests, correct

CONTROLS_TEXT = ("each judge's leniency towards the candidate slot (judge effects) and each candidate's quality "
                 "(candidate fixed effects)")


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
class InFamilyTerm:
    """A family's in-family preference over judge leniency and candidate quality, in log-odds of winning a pair."""

    family: str
    judges: tuple[str, ...]  # the family's judges
    pairs: int  # pairs in which a judge of the family meets a candidate or opponent of the family
    term: ClusteredTerm

    @property
    def odds_ratio(self) -> float:
        return float(np.exp(self.term.estimate))


@dataclass(frozen=True)
class SelfPreference:
    dataset_id: str
    studies: list[str]
    judges: list[str]
    cells: list[FamilyCell]
    gaps: list[FamilyGap]
    rule: str = ("each pair counts for both of its candidates (the opponent scores 1 - s); in a baseline design "
                 "candidates' win rates are against the baseline")
    in_family: tuple[InFamilyTerm, ...] = ()
    not_identified: tuple[str, ...] = ()  # families judged by their own judges whose term the data cannot separate
    tests: CorrectedTests | None = None  # the in-family terms' Wald tests, Holm-corrected over the families
    controls: str = CONTROLS_TEXT
    model_pairs: int = 0
    model_items: int = 0
    model_judges: tuple[str, ...] = field(default_factory=tuple)  # the ensemble is left out of the model

    def matrix(self) -> pd.DataFrame:
        """Judge families as rows, candidate families as columns, win rates as values."""
        frame = pd.DataFrame([c.__dict__ for c in self.cells])
        if frame.empty:
            return frame
        return frame.pivot(index="judge_family", columns="candidate_family", values="win_rate")


def family_lookup(families: Mapping[str, str]) -> Callable[[str], str]:
    """The family of a name: the mapping's, else ``model_family``; the ensemble has its own."""
    def family_of(name: str) -> str:
        if name == ENSEMBLE_JUDGE:
            return ENSEMBLE_FAMILY
        return families.get(name) or model_family(name)
    return family_of


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
    family_of = family_lookup(families)
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


def _family_columns(pairs: pd.DataFrame, family_of: Callable[[str], str]) -> pd.DataFrame:
    judge = pairs["judge"].map(family_of)
    candidate, opponent = pairs["candidate"].map(family_of), pairs["opponent"].map(family_of)
    families = sorted(set(judge) & (set(candidate) | set(opponent)))
    return pd.DataFrame({f"in:{f}": ((judge == f) & (candidate == f)).astype(float)
                         - ((judge == f) & (opponent == f)).astype(float) for f in families}, index=pairs.index)


def in_family_terms(pairs: pd.DataFrame, families: Mapping[str, str]
                    ) -> tuple[tuple[InFamilyTerm, ...], tuple[str, ...], CorrectedTests]:
    """Each family's in-family term over judge and candidate effects, item-clustered and Holm-corrected.

    ``pairs``: one row per classified pair with ``judge``, ``item_id``, ``candidate``, ``opponent`` and the
    candidate's ``score``. Returns the terms, the families whose term is not identified, and the tests."""
    family_of = family_lookup(families)
    matches = _family_columns(pairs, family_of)
    matches = matches.loc[:, (matches != 0).any()]
    if pairs.empty or matches.empty:
        return (), (), correct([], [])
    judges = pd.get_dummies(pairs["judge"], prefix="judge", drop_first=True, dtype=float)
    players = player_design(pairs["candidate"], pairs["opponent"])
    players = players.drop(columns=[players.abs().sum().idxmax()]).add_prefix("player:")
    design = pd.concat([pd.Series(1.0, index=pairs.index, name="const"), judges, players, matches], axis=1)
    # Judge and candidate effects first: a family term is kept only where it adds to what they explain.
    design = design.iloc[:, full_rank_columns(design.to_numpy(), keep_first=1)]
    kept = [c for c in matches.columns if c in design.columns]
    not_identified = tuple(c.removeprefix("in:") for c in matches.columns if c not in kept)
    fitted = clustered_logit_terms(pairs["score"].to_numpy(float), design, kept,
                                   pd.factorize(pairs["item_id"])[0], "item")
    terms = []
    for column, term in zip(kept, fitted, strict=True):
        family = column.removeprefix("in:")
        judges_of = tuple(sorted(j for j in pairs["judge"].unique() if family_of(j) == family))
        terms.append(InFamilyTerm(family, judges_of, int((matches[column] != 0).sum()), term))
    tests = correct([t.term.p_value for t in terms], [t.family for t in terms])
    return tuple(terms), not_identified, tests
