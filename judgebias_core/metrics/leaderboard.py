"""Candidates ranked by win rate and by Bradley-Terry strength, with bootstrap intervals over items.

A pair's score for its candidate: 1 for a consistent win, 0 for a consistent loss, 1/2 for a consistent tie or an
inconsistent (primacy or recency) pair. Failed pairs are left out. Each pair counts for both of its candidates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.leaderboard_fit import _bt_design, _bt_fit, _bt_fit_resamples
from judgebias_core.metrics.pairwise_intervals import flip_rate_bound_from_counts
from judgebias_core.stats.bradley_terry import RIDGE
from judgebias_core.stats.bradley_terry import _separation as bradley_terry_separation
from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.estimate import small_sample_warning
from judgebias_core.stats.multiple import correct
from judgebias_core.stats.resampling import HOLDS, TOO_CLOSE, item_resample_sums, share_call
from judgebias_core.stats.settings import RESAMPLES, SEED

DEFAULT_RESAMPLES = RESAMPLES  # kept names: the defaults live in stats.settings
DEFAULT_SEED = SEED
CONVERGED_GRADIENT = 1e-6
ORDER_HOLDS = 0.95


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
    # Its order with the NEXT one down changes with presentation, or is not shown to hold in at least 95% of item
    # resamples beyond the Monte Carlo error (it holds in fewer, or is too close to call): see order_holds_call.
    position_artefact: bool
    is_reference: bool  # the candidate whose strength is fixed at 0 (the baseline in a baseline design)
    # The same win rate from one call of each pair alone: the swapped call (the candidate shown first) and the
    # original call (shown second); in a baseline design, each candidate shown first or second against it.
    win_rate_first_slot: float = float("nan")
    win_rate_second_slot: float = float("nan")
    rank_first_slot: int = 0
    rank_second_slot: int = 0
    order_holds_share: float = float("nan")  # share of item resamples keeping it above the next (ties 1/2)
    order_changes_with_presentation: bool = False  # the next one down ranks above it in a single-slot ranking
    unsure_reason: str = ""  # why its order with the next one down is flagged, in words ("" when it is not)
    # The Monte Carlo half-band of order_holds_share (99% of seeds fall within it) and the call it allows:
    # "holds" (at least 95% whatever the seed), "does not hold", "too close to call" ("" for the last row), so the
    # flag does not move with the seed (issue 23).
    order_holds_mc_error: float = float("nan")
    order_holds_call: str = ""


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
    # The top of the item-clustered two-sided 95% interval over the classified pairs (a one-sided 97.5% upper bound)
    flip_rate_ci_high: float
    resamples: int
    seed: int
    baseline_design: bool  # every pair involves the reference, so win rates are against it
    flip_rate_clustered_high: float = float("nan")  # the same top of the two-sided 95% interval (stats.clustered_rate)
    flip_bound_method: str = ""
    top_two_within_flip_bound: bool = False  # the top two differ by less than the clustered flip-rate bound
    ridge: float = RIDGE  # penalty on the strengths, the same in the point fit and every resample
    separation_note: str | None = None  # set when some strength exists only because of the ridge penalty
    converged_resamples: int = 0  # resamples whose penalised fit reached a zero gradient
    neighbour_pairs: int = 0  # adjacent pairs of the ranking (candidates - 1)
    flagged_pairs: int = 0  # neighbour pairs flagged by the ranking-safety check (either reason)
    pairs_changing_with_presentation: int = 0  # ... whose order changes in a single-slot ranking
    pairs_not_separated: int = 0  # ... whose order is not shown to hold in 95% of item resamples (either reason below)
    pairs_too_close_to_call: int = 0  # ... of which too close to call (the Monte Carlo band straddles 95%)
    # Neighbour orders that hold in both single-slot rankings and survive Holm's correction over all neighbour
    # pairs (one-sided bootstrap p = share of resamples reversing the order): the family-wise reading.
    orders_established_holm: int = 0
    # Every interval of the board rests on ``items`` items: set below 30 (stats.estimate, issue 23).
    interval_warning: str | None = None
    rule: str = ("ranking-safety: a neighbour pair is flagged (on its upper row) when its order changes in the ranking from one "
                 "presentation alone (candidate shown first, or shown second) or is not shown to hold in at least 95% "
                 "of item resamples: it holds in fewer, or the Monte Carlo band of that share (99% of seeds) straddles "
                 "95%, too close to call (per pair; the count established after Holm's correction over the neighbour "
                 "pairs is given apart); the top-two rule compares their gap with the top of the item-clustered "
                 "two-sided 95% interval of the judge's flip rate (a one-sided 97.5% upper bound); intervals are bootstrap "
                 "percentiles over items (all pairs of an item resampled together); in a baseline design win "
                 "rates are against the baseline, whose own is 1/2 by definition; the reference (strength 0) is the "
                 "candidate in the most classified pairs, ties broken by name; Bradley-Terry strengths are log-odds "
                 f"by ridge-penalised maximum likelihood (penalty {RIDGE} x sum of squared strengths), the same "
                 "estimator for the point and every resample; tie rule: a consistent tie or an inconsistent pair "
                 "counts half a win for each side")

    @property
    def separated(self) -> bool:
        """Some candidate never lost (or never won): its strength is set by the ridge penalty, not the data."""
        return self.separation_note is not None

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame([row.__dict__ for row in self.rows])

    def candidates_frame(self) -> pd.DataFrame:
        """The ranking a reader sees: in a baseline design the baseline (every pair is against it, its own win rate
        1/2 by definition) is left out of its own leaderboard, and the ranks count the other candidates only."""
        frame = self.frame()
        if self.baseline_design and len(frame):
            frame = frame[~frame["is_reference"]].copy()
            for column in ("rank_win_rate", "rank_strength"):
                frame[column] = frame[column].rank(method="min").astype(int)
        return frame.reset_index(drop=True)


def pair_scores(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Classified (non-failed) pairs with the candidate's score: 1 win, 1/2 tie or inconsistent, 0 loss."""
    kept = outcomes[outcomes["classification"] != "failed"]
    score = np.select([kept["winner"] == kept["candidate"], kept["winner"] == kept["opponent"]], [1.0, 0.0], 0.5)
    return kept.assign(score=score)[["item_id", "candidate", "opponent", "score"]]


def flip_rate_bound(outcomes: pd.DataFrame) -> tuple[float, float]:
    """Flip rate and the top of its item-clustered two-sided 95% interval (a one-sided 97.5% upper bound) over the
    classified pairs (failed pairs left out)."""
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


def _separation_note(combos: pd.DataFrame, players: list[str]) -> str | None:
    """The Ford / Hunter condition on the comparison graph (a candidate beat or tied another): see
    :mod:`judgebias_core.stats.bradley_terry`. Inconsistent pairs count as ties, scored 1/2 for each side."""
    index = {p: i for i, p in enumerate(players)}
    ties = combos["pairs"] - combos["wins"] - combos["losses"]
    counts = np.column_stack([combos["wins"], combos["losses"], ties]).astype(float)
    pairs = np.column_stack([combos["candidate"].map(index), combos["opponent"].map(index)]).astype(int)
    return bradley_terry_separation(players, pairs, counts)


COUNT_COLUMNS = ["pairs", "score_sum", "wins", "losses", "flips", "failed", "first_slot_score", "second_slot_score"]


def _slot_score(verdict: pd.Series, win: str, loss: str) -> np.ndarray:
    """The candidate's score from one call: 1 for the verdict ``win``, 0 for ``loss``, 1/2 otherwise (a tie)."""
    return np.select([verdict == win, verdict == loss], [1.0, 0.0], 0.5)


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
        failed=(~kept).astype(int),
        first_slot_score=np.where(kept, _slot_score(outcomes["verdict_swapped"], "A", "B"), 0.0),
        second_slot_score=np.where(kept, _slot_score(outcomes["verdict_original"], "B", "A"), 0.0))
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


def _unsure_reason(reverses: bool, holds: float, band: float, call: str) -> str:
    """Why a neighbour pair is flagged: the presentation check, the resampling check (with its Monte Carlo band),
    or both."""
    reasons = ["the order changes when ranked from one presentation alone"] if reverses else []
    if call == TOO_CLOSE:
        reasons.append(f"too close to call whether the order holds in {ORDER_HOLDS:.0%} of item resamples (it holds "
                       f"in {holds:.1%}, +/- {band:.1%} Monte Carlo error)")
    elif call and call != HOLDS:
        reasons.append(f"the order holds in {holds:.0%} of item resamples (under {ORDER_HOLDS:.0%}, +/- {band:.1%} "
                       "Monte Carlo error)")
    return "; ".join(reasons)


def _established_holm(holds: np.ndarray, reverses: np.ndarray, resamples: int) -> int:
    """Neighbour orders established family-wise: not reversed by presentation and Holm-significant at 5%, with the
    one-sided bootstrap p-value 1 - holds (at least 1 / (resamples + 1), the resolution of the bootstrap)."""
    if len(holds) == 0:
        return 0
    p_values = np.maximum(1 - np.nan_to_num(holds, nan=0.0), 1 / (resamples + 1))
    return int((np.asarray(correct(p_values.tolist()).reject) & ~reverses).sum())


def leaderboard_from_outcomes(outcomes: pd.DataFrame, dataset_id: str, studies: list[str], judge: str,
                              resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Leaderboard:
    """Rank the candidates of one judge's classified pairs; bootstrap over items for intervals."""
    return leaderboard_from_counts(item_score_counts_from_outcomes(outcomes), dataset_id, studies, judge,
                                   resamples, seed)


def leaderboard_from_counts(counts: pd.DataFrame, dataset_id: str, studies: list[str], judge: str,
                            resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Leaderboard:
    """Rank the candidates from per-item pair counts (:func:`item_score_counts_from_outcomes`).

    The bootstrap draws whole items with the same picks as every other item bootstrap of the project
    (:func:`stats.resampling.item_resample_sums`); a player's resampled totals are sums of its combos' totals, so one
    matrix product over the (candidate, opponent) columns gives everything.
    """
    kept = counts[counts["pairs"] > 0]
    if kept.empty:
        raise InvalidArgument(f"judge {judge!r} has no classified pair to rank candidates with")
    combos = kept.groupby(["candidate", "opponent"], as_index=False, sort=True)[
        ["pairs", "score_sum", "wins", "losses", "first_slot_score", "second_slot_score"]].sum()
    players = sorted(set(combos["candidate"]) | set(combos["opponent"]))
    reference = _reference(combos)
    free = [p for p in players if p != reference]
    design = _bt_design(combos, players, reference)
    star = bool(((combos["candidate"] == reference) | (combos["opponent"] == reference)).all())
    point = _bt_fit(design, combos["score_sum"].to_numpy(float), combos["pairs"].to_numpy(float))

    item_codes, items = pd.factorize(kept["item_id"], sort=True)
    combo_codes = pd.MultiIndex.from_frame(combos[["candidate", "opponent"]]).get_indexer(
        pd.MultiIndex.from_frame(kept[["candidate", "opponent"]]))
    per_item = np.zeros((len(items), 2 * len(combos)))  # summed scores, then pair counts, per item and combo
    per_item[item_codes, combo_codes] = kept["score_sum"].to_numpy(float)
    per_item[item_codes, len(combos) + combo_codes] = kept["pairs"].to_numpy(float)
    drawn = item_resample_sums(per_item, resamples, seed)
    boot_wins, boot_n = drawn[:, :len(combos)], drawn[:, len(combos):]
    as_candidate, as_opponent = _one_hot(combos["candidate"], players), _one_hot(combos["opponent"], players)
    boot_strength, boot_gradient = _bt_fit_resamples(design, boot_wins, boot_n)
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
    for slot in ("first_slot", "second_slot"):
        slot_score = combos[f"{slot}_score"].to_numpy(float)
        table[slot] = (slot_score @ as_candidate + (pairs - slot_score) @ as_opponent) / (
            pairs @ (as_candidate + as_opponent))
        if star:
            table.loc[reference, slot] = 0.5
    table = table.sort_values(["win_rate", "strength"], ascending=False)
    gaps = table["win_rate"] - table["win_rate"].shift(-1)
    order = [players.index(p) for p in table.index]
    upper, lower = boot_rate[:, order[:-1]], boot_rate[:, order[1:]]
    holds = np.append(np.nanmean((upper > lower) + 0.5 * (upper == lower), axis=0), np.nan)
    reverses = np.append((table["first_slot"].to_numpy()[:-1] < table["first_slot"].to_numpy()[1:])
                         | (table["second_slot"].to_numpy()[:-1] < table["second_slot"].to_numpy()[1:]), False)
    # A flag belongs to a neighbour pair, shown on its upper row: marking both rows of every unsure pair made the
    # flag fire on nearly every candidate of a long board (issue 14).
    calls = [share_call(float(share), resamples, ORDER_HOLDS) for share in holds]
    not_shown = np.array([call not in (HOLDS, "") for _, call in calls])
    flagged = pd.Series(reverses | not_shown, index=table.index)
    top_two_gap = float(gaps.iloc[0]) if len(table) > 1 else float("nan")
    flips = clustered_rate(counts.groupby("item_id")["flips"].sum().to_numpy(),
                           counts.groupby("item_id")["pairs"].sum().to_numpy(), resamples=resamples, seed=seed)
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
            unsure_reason=_unsure_reason(bool(reverses[rank - 1]), float(holds[rank - 1]), *calls[rank - 1]),
            order_holds_mc_error=calls[rank - 1][0], order_holds_call=calls[rank - 1][1],
            win_rate_first_slot=float(row.first_slot), win_rate_second_slot=float(row.second_slot),
            rank_first_slot=int(table["first_slot"].rank(ascending=False, method="min")[player]),
            rank_second_slot=int(table["second_slot"].rank(ascending=False, method="min")[player]),
            order_holds_share=float(holds[rank - 1]), order_changes_with_presentation=bool(reverses[rank - 1]),
        )
        for rank, (player, row) in enumerate(table.iterrows(), start=1)
    ]
    return Leaderboard(
        dataset_id=dataset_id, studies=list(studies), judge=judge, reference=reference, rows=rows,
        pairs=classified, failed_pairs=int(counts["failed"].sum()), items=len(items),
        flip_rate=flip_rate, flip_rate_ci_high=flip_high, resamples=resamples, seed=seed, baseline_design=star,
        flip_rate_clustered_high=flips.high, flip_bound_method=flips.method,
        top_two_within_flip_bound=bool(top_two_gap < flips.high), ridge=RIDGE, separation_note=_separation_note(combos, players),
        converged_resamples=int((boot_gradient < CONVERGED_GRADIENT).sum()),
        neighbour_pairs=len(rows) - 1, flagged_pairs=int(flagged.sum()),
        pairs_changing_with_presentation=int(reverses.sum()), pairs_not_separated=int(not_shown[:-1].sum()),
        pairs_too_close_to_call=sum(call == TOO_CLOSE for _, call in calls[:-1]),
        orders_established_holm=_established_holm(holds[:-1], reverses[:-1], resamples),
        interval_warning=small_sample_warning(len(items)),
    )
