"""Candidates ranked by win rate and by Bradley-Terry strength, with bootstrap intervals over items.

A pair's score for its candidate: 1 for a consistent win, 0 for a consistent loss, 1/2 for a consistent tie or an
inconsistent (primacy or recency) pair. Failed pairs are left out. Each pair counts for both of its candidates.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.api as sm

from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.pairwise_intervals import flip_rate_bound_from_counts, resampled_column_sums

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class LeaderboardRow:
    candidate: str
    pairs: int
    wins: int
    ties: int  # consistent ties and inconsistent pairs, each scored 1/2
    losses: int
    win_rate: float
    win_rate_ci_low: float
    win_rate_ci_high: float
    strength: float  # Bradley-Terry log-odds, the reference candidate at 0
    strength_ci_low: float
    strength_ci_high: float
    rank_win_rate: int
    rank_strength: int
    gap_to_next: float  # win-rate gap to the next candidate down (NaN for the last)
    position_artefact: bool  # that gap is smaller than the judge's flip-rate upper bound
    is_reference: bool  # the candidate whose strength is fixed at 0 (the baseline in a baseline design)


@dataclass(frozen=True)
class Leaderboard:
    dataset_id: str
    studies: list[str]
    judge: str
    reference: str
    rows: list[LeaderboardRow]
    pairs: int
    failed_pairs: int
    items: int
    flip_rate: float
    flip_rate_ci_high: float  # item-clustered 95% upper bound over the classified pairs (stats.clustered)
    resamples: int
    seed: int
    baseline_design: bool  # every pair involves the reference, so win rates are against it
    rule: str = ("ranking-safety: neighbours whose win rates differ by less than the judge's flip-rate item-clustered "
                 "upper bound are flagged, their order could be an artefact of position; intervals are bootstrap "
                 "percentiles over items (all pairs of an item resampled together); in a baseline design win "
                 "rates are against the baseline, whose own is 1/2 by definition; the reference (strength 0) is the "
                 "candidate in the most classified pairs, ties broken by name")

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([row.__dict__ for row in self.rows])


def pair_scores(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Classified (non-failed) pairs with the candidate's score: 1 win, 1/2 tie or inconsistent, 0 loss."""
    kept = outcomes[outcomes["classification"] != "failed"]
    score = np.select([kept["winner"] == kept["candidate"], kept["winner"] == kept["opponent"]], [1.0, 0.0], 0.5)
    return kept.assign(score=score)[["item_id", "candidate", "opponent", "score"]]


def flip_rate_bound(outcomes: pd.DataFrame) -> tuple[float, float]:
    """Flip rate and its item-clustered 95% upper bound over the classified pairs (failed pairs left out)."""
    return _flip_bound(item_score_counts_from_outcomes(outcomes))


def _flip_bound(counts: pd.DataFrame) -> tuple[float, float]:
    """:func:`flip_rate_bound` from per (item, candidate, opponent) counts (``flips`` over the ``pairs`` not failed),
    pooled per item: the clustered bound the CI gate decides on."""
    per_item = counts.groupby("item_id")[["flips", "pairs"]].sum()
    bound = flip_rate_bound_from_counts(per_item["flips"].to_numpy(), per_item["pairs"].to_numpy())
    return bound.rate, bound.upper


def side_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Each pair twice: once for its candidate, once (score 1 - s) for its opponent."""
    return pd.concat([
        scores.rename(columns={"candidate": "player"})[["item_id", "player", "score"]],
        scores.rename(columns={"opponent": "player"}).assign(score=1 - scores["score"])[["item_id", "player", "score"]],
    ], ignore_index=True)


def _bt_design(combos: pd.DataFrame, players: list[str], reference: str) -> np.ndarray:
    free = [p for p in players if p != reference]
    design = np.zeros((len(combos), len(free)))
    column = {p: i for i, p in enumerate(free)}
    rows = np.arange(len(combos))
    cand, opp = combos["candidate"].map(column), combos["opponent"].map(column)
    design[rows[cand.notna()], cand.dropna().astype(int)] = 1.0
    design[rows[opp.notna()], opp.dropna().astype(int)] = -1.0
    return design


def _bt_fit(design: np.ndarray, wins: np.ndarray, totals: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Bradley-Terry log-odds strengths: a binomial GLM with logit link on the pair design (no intercept)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = sm.GLM(np.column_stack([wins, totals - wins]), design, family=sm.families.Binomial())
        return np.asarray(model.fit(start_params=start, maxiter=50).params)


def _bt_fit_resamples(design: np.ndarray, wins: np.ndarray, totals: np.ndarray, start: np.ndarray,
                      iterations: int = 25) -> np.ndarray:
    """The same Bradley-Terry likelihood maximised for every bootstrap resample at once (batched Newton steps).

    One statsmodels fit per resample would take seconds per thousand; this solves all of them together, started
    from the full-data estimate. Strengths are capped at +-20 log-odds where a resample separates perfectly.
    """
    beta = np.tile(start, (len(wins), 1))
    ridge = 1e-9 * np.eye(design.shape[1])
    for _ in range(iterations):
        share = 1 / (1 + np.exp(-(beta @ design.T)))
        gradient = (wins - totals * share) @ design
        weight = totals * share * (1 - share)
        hessian = np.einsum("bm,mi,mj->bij", weight, design, design) + ridge
        step = np.linalg.solve(hessian, gradient[..., None])[..., 0]
        beta = np.clip(beta + step, -20, 20)
        if np.abs(step).max() < 1e-8:
            break
    return beta


def _star_strengths(wins: np.ndarray, totals: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """Closed-form Bradley-Terry MLE when every pair includes the reference: the log-odds against it."""
    share = np.clip(wins / np.where(totals > 0, totals, np.nan), 0.5 / np.maximum(totals, 1),
                    1 - 0.5 / np.maximum(totals, 1))
    return sign * np.log(share / (1 - share))


COUNT_COLUMNS = ["pairs", "score_sum", "wins", "losses", "flips", "failed"]


def item_score_counts_from_outcomes(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Classified pairs counted per item, candidate and opponent, as :func:`item_score_counts` reads them from
    the store: ``pairs`` (not failed), ``score_sum``, ``wins``, ``losses``, ``flips`` (inconsistent) and
    ``failed``."""
    kept = (outcomes["classification"] != "failed").to_numpy()
    winner = outcomes["winner"]
    won, lost = (winner == outcomes["candidate"]).to_numpy(), (winner == outcomes["opponent"]).to_numpy()
    frame = outcomes[["item_id", "candidate", "opponent"]].assign(
        pairs=kept.astype(int), score_sum=np.where(kept, np.select([won, lost], [1.0, 0.0], 0.5), 0.0),
        wins=(kept & won).astype(int), losses=(kept & lost).astype(int),
        flips=(kept & (outcomes["classification"] != "consistent").to_numpy()).astype(int),
        failed=(~kept).astype(int))
    return frame.groupby(["item_id", "candidate", "opponent"], as_index=False, sort=True)[COUNT_COLUMNS].sum()


def _reference(combos: pd.DataFrame) -> str:
    """The candidate in the most classified pairs (ties: the first by name)."""
    appearances = pd.concat([combos.groupby("candidate")["pairs"].sum(), combos.groupby("opponent")["pairs"].sum()])
    totals = appearances.groupby(level=0).sum()
    return str(totals[totals == totals.max()].index.min())


def _one_hot(labels: pd.Series, players: list[str]) -> np.ndarray:
    """combos x players: 1 where the combo's label is the player."""
    matrix = np.zeros((len(labels), len(players)))
    matrix[np.arange(len(labels)), pd.Index(players).get_indexer(labels)] = 1.0
    return matrix


def leaderboard_from_outcomes(outcomes: pd.DataFrame, dataset_id: str, studies: list[str], judge: str,
                              resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Leaderboard:
    """Rank the candidates of one judge's classified pairs; bootstrap over items for intervals."""
    return leaderboard_from_counts(item_score_counts_from_outcomes(outcomes), dataset_id, studies, judge,
                                   resamples, seed)


def leaderboard_from_counts(counts: pd.DataFrame, dataset_id: str, studies: list[str], judge: str,
                            resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Leaderboard:
    """Rank the candidates from per-item pair counts (:func:`item_score_counts_from_outcomes`).

    The bootstrap draws whole items with the same picks as every other item bootstrap of the project
    (:func:`resampled_column_sums`); a player's resampled totals are sums of its combos' totals, so one matrix
    product over the (candidate, opponent) columns gives everything.
    """
    kept = counts[counts["pairs"] > 0]
    if kept.empty:
        raise InvalidArgument(f"judge {judge!r} has no classified pair to rank candidates with")
    combos = kept.groupby(["candidate", "opponent"], as_index=False, sort=True)[
        ["pairs", "score_sum", "wins", "losses"]].sum()
    players = sorted(set(combos["candidate"]) | set(combos["opponent"]))
    reference = _reference(combos)
    free = [p for p in players if p != reference]
    design = _bt_design(combos, players, reference)
    star = bool(((combos["candidate"] == reference) | (combos["opponent"] == reference)).all())
    point = _bt_fit(design, combos["score_sum"].to_numpy(), combos["pairs"].to_numpy().astype(float))

    item_codes, items = pd.factorize(kept["item_id"], sort=True)
    combo_codes = pd.MultiIndex.from_frame(combos[["candidate", "opponent"]]).get_indexer(
        pd.MultiIndex.from_frame(kept[["candidate", "opponent"]]))
    per_item = np.zeros((len(items), 2 * len(combos)))  # summed scores, then pair counts, per item and combo
    per_item[item_codes, combo_codes] = kept["score_sum"].to_numpy(float)
    per_item[item_codes, len(combos) + combo_codes] = kept["pairs"].to_numpy(float)
    drawn = resampled_column_sums(per_item, resamples, seed)
    boot_wins, boot_n = drawn[:, :len(combos)], drawn[:, len(combos):]
    as_candidate, as_opponent = _one_hot(combos["candidate"], players), _one_hot(combos["opponent"], players)
    if star:
        others = np.where(combos["candidate"] == reference, combos["opponent"], combos["candidate"])
        sign = np.where(combos["candidate"] == reference, -1.0, 1.0)
        order = [list(others).index(p) for p in free]
        boot_strength = _star_strengths(boot_wins, boot_n, sign)[:, order]
    else:
        boot_strength = _bt_fit_resamples(design, boot_wins, boot_n, point)
    with np.errstate(divide="ignore", invalid="ignore"):
        boot_rate = (boot_wins @ as_candidate + (boot_n - boot_wins) @ as_opponent) / (boot_n @ (as_candidate +
                                                                                               as_opponent))

    classified = int(kept["pairs"].sum())
    flip_rate, flip_high = _flip_bound(counts)
    pairs, score, wins, losses = (combos[c].to_numpy(float) for c in ("pairs", "score_sum", "wins", "losses"))
    table = pd.DataFrame({
        "pairs": pairs @ (as_candidate + as_opponent),
        "win_rate": (score @ as_candidate + (pairs - score) @ as_opponent) / (pairs @ (as_candidate + as_opponent)),
        "wins": wins @ as_candidate + losses @ as_opponent, "losses": losses @ as_candidate + wins @ as_opponent,
    }, index=pd.Index(players, name="player"))
    if star:  # every pair involves the reference: rank on the win rate against it, its own is 1/2 by definition
        table.loc[reference, "win_rate"] = 0.5
        boot_rate[:, players.index(reference)] = 0.5
    table["strength"] = [0.0 if p == reference else point[free.index(p)] for p in players]
    strength_boot = {p: (np.zeros(resamples) if p == reference else boot_strength[:, free.index(p)]) for p in players}
    table["rank_strength"] = table["strength"].rank(ascending=False, method="min").astype(int)
    table = table.sort_values(["win_rate", "strength"], ascending=False)
    gaps = table["win_rate"] - table["win_rate"].shift(-1)
    near = gaps < flip_high
    flagged = near | near.shift(1, fill_value=False)
    rows = [
        LeaderboardRow(
            candidate=str(player), pairs=int(row.pairs), wins=int(row.wins), losses=int(row.losses),
            ties=int(row.pairs - row.wins - row.losses), win_rate=float(row.win_rate),
            win_rate_ci_low=float(np.nanpercentile(boot_rate[:, players.index(player)], 2.5)),
            win_rate_ci_high=float(np.nanpercentile(boot_rate[:, players.index(player)], 97.5)),
            strength=float(row.strength),
            strength_ci_low=float(np.nanpercentile(strength_boot[player], 2.5)),
            strength_ci_high=float(np.nanpercentile(strength_boot[player], 97.5)),
            rank_win_rate=rank, rank_strength=int(row.rank_strength), gap_to_next=float(gaps[player]),
            position_artefact=bool(flagged[player]), is_reference=player == reference,
        )
        for rank, (player, row) in enumerate(table.iterrows(), start=1)
    ]
    return Leaderboard(
        dataset_id=dataset_id, studies=list(studies), judge=judge, reference=reference, rows=rows,
        pairs=classified, failed_pairs=int(counts["failed"].sum()), items=len(items),
        flip_rate=flip_rate, flip_rate_ci_high=flip_high, resamples=resamples, seed=seed, baseline_design=star,
    )
