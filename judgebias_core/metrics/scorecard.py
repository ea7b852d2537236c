"""The judge scorecard (METHODS.md section "Judge scorecard"): one row per judge configuration (judge x study x
protocol) with accuracy against the labels, position bias, length bias, failures and cost, from one frame of pairs
(``store.scorecard_queries.scorecard_pairs``).

Units: a pair is one item's two answers judged in both orders; its two calls are two judgments. Every interval is
item-clustered (``stats.clustered.clustered_rate``; an item is (dataset, item), so a dataset group pools items
without merging them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from judgebias_core.stats.agreement import AgreementEstimate, cohens_kappa
from judgebias_core.stats.clustered import RESAMPLES, SEED, ClusteredRate, clustered_rate
from judgebias_core.stats.estimate import Estimate
from judgebias_core.stats.settings import CONFIDENCE

CONFIG_KEYS = ["judge", "study", "protocol"]
TIE = "tie"
# A judge at or above this flip rate is told to swap-average (run both orders); below, one order is defensible.
SWAP_ADVICE_FLIP_RATE = 0.05


@dataclass(frozen=True)
class RateFigure:
    """A rate with its count and item-clustered interval, as a page or the JSON shows it."""

    estimate: float
    low: float
    high: float
    method: str
    events: float
    pairs: int
    items: int
    degenerate_reason: str | None
    # Fewer than 30 items or fewer than 5 items with any event (or without one): stats.estimate, issue 23.
    warning: str | None = None
    design_effect: float = float("nan")
    confidence: float = CONFIDENCE
    reason: str | None = None  # why the interval is degenerate or a fallback, in words

    @classmethod
    def of(cls, rate: ClusteredRate, events: float | None = None) -> RateFigure:
        return cls(rate.rate, rate.low, rate.high, rate.method, rate.events if events is None else events,
                   rate.pairs, rate.items, rate.degenerate_reason, rate.warning, rate.design_effect, rate.confidence,
                   rate.reason)

    def as_estimate(self) -> Estimate:
        """The shared :class:`Estimate` view (units: the pairs)."""
        return Estimate(self.estimate, self.low, self.high, self.method, self.reason, self.design_effect,
                        self.items, self.pairs, self.confidence, self.degenerate_reason is not None, self.warning)


@dataclass(frozen=True)
class CostFigure:
    """Cost or latency per 1,000 judgments: recorded, estimated from the price table, or not recorded (why)."""

    value: float | None
    basis: str  # recorded | estimated | not recorded
    note: str


@dataclass(frozen=True)
class ScorecardRow:
    """One judge configuration. Counts are pairs; ``judgments`` are calls (two per pair)."""

    judge: str
    study: str
    protocol: str
    datasets: tuple[str, ...]
    simulated: bool
    items: int
    pairs: int
    judgments: int
    labelled_pairs: int
    label_kind: str | None  # gold | human | reference-judge | None (no labels)
    correct_first_order: int
    correct_swapped_order: int
    correct_both_orders: int
    consistent: int  # same published pick in both orders (a pair with no pick in either order counts, as LLMBar's)
    both_orders_failed: int
    accuracy: RateFigure | None  # swap-averaged: the pick when both orders agree, else a tie (half credit)
    accuracy_first_order: RateFigure | None
    accuracy_swapped_order: RateFigure | None
    accuracy_both_orders: RateFigure | None
    kappa: AgreementEstimate | None  # Cohen's kappa of the swap-averaged verdict with the labels
    flip_rate: RateFigure  # flips over classified pairs (the Pairwise bias page's flip rate)
    position_consistency: float
    first_slot_share: RateFigure  # first-slot flips over flips (the Pairwise bias page's lean)
    longer_answer_share: RateFigure  # consistent decisive pairs whose answers differ in length: the longer won
    parse_failures: int  # calls without a parsed verdict
    cost_per_1000: CostFigure
    latency_per_1000: CostFigure
    item_set_note: str | None  # the judge's studies cover different items

    @property
    def label(self) -> str:
        return f"{self.judge} [{self.study}]" + (" (simulated)" if self.simulated else "")


def _clustered(codes: np.ndarray, n_items: int, events: pd.Series | np.ndarray, trials: pd.Series | np.ndarray,
               word: str, resamples: int, seed: int) -> RateFigure:
    """Per-item sums of events and trials (``codes`` index the items in (dataset, item) order; items without a
    trial drop out), then the clustered rate."""
    trial_weights = np.asarray(trials, dtype=np.float64)
    event_weights = np.asarray(events, dtype=np.float64) * (trial_weights > 0)
    per_item_events = np.bincount(codes, weights=event_weights, minlength=n_items)
    per_item_trials = np.bincount(codes, weights=trial_weights, minlength=n_items)
    rate = clustered_rate(per_item_events, per_item_trials, resamples=resamples, seed=seed, event_word=word)
    return RateFigure.of(rate, float(per_item_events.sum()))


def _credit(pick: pd.Series, label: pd.Series) -> pd.Series:
    """1 when the pick is the label, 1/2 when the pick is a tie and the label is not, else 0."""
    exact = (pick == label).astype(float)
    return exact.where(~((pick == TIE) & (label != TIE)), 0.5)


def swap_averaged_pick(first: pd.Series, second: pd.Series) -> pd.Series:
    """The verdict when both orders agree, else a tie (a pair with a failed order too)."""
    agree = first.notna() & (first == second)
    return first.where(agree, TIE)


def _cost(pairs: pd.DataFrame, prices: Mapping[str, tuple[float, float]], calls: int) -> CostFigure:
    if calls == 0:
        return CostFigure(None, "not recorded", "no judgments")
    if int(pairs["cost_calls"].sum()) == calls:
        return CostFigure(float(pairs["cost_usd"].sum()) / calls * 1000, "recorded", "from the cost stored per call")
    model = str(pairs["model"].iloc[0])
    price = prices.get(model)
    if price is None:
        recorded = int(pairs["cost_calls"].sum())
        why = (f"only {recorded:,} of {calls:,} judgments stored a cost" if recorded else
               "no stored cost for these judgments")
        return CostFigure(None, "not recorded", f"{why}, and the price table has no price for {model}")
    if int(pairs["token_calls"].sum()) == calls:
        value = (pairs["input_tokens"].sum() * price[0] + pairs["output_tokens"].sum() * price[1]) / 1e6 / calls
        return CostFigure(float(value) * 1000, "estimated", f"stored tokens x the price table's {model} price")
    value = (pairs["input_chars"].sum() / 4 * price[0] + pairs["output_chars"].sum() / 4 * price[1]) / 1e6 / calls
    return CostFigure(float(value) * 1000, "estimated",
                      f"no stored usage: tokens estimated as characters / 4 of the question, both answers and the "
                      f"reply (prompt template not counted) x the price table's {model} price")


def _latency(pairs: pd.DataFrame, calls: int) -> CostFigure:
    if calls and int(pairs["latency_calls"].sum()) == calls:
        return CostFigure(float(pairs["latency_ms"].sum()) / calls, "recorded",
                          "seconds for 1,000 judgments sent one at a time (stored latency)")
    return CostFigure(None, "not recorded", "the stored judgments carry no latency")


def _row(key: tuple, pairs: pd.DataFrame, prices: Mapping[str, tuple[float, float]], resamples: int,
         seed: int) -> ScorecardRow:
    judge, study, protocol = key
    first, second, label = pairs["first_pick"], pairs["second_pick"], pairs["label"]
    labelled = pairs[label.notna()]
    averaged = swap_averaged_pick(first, second)
    classified = pairs["classification"] != "failed"
    flips = pairs["classification"].isin(["primacy", "recency"])
    decisive = (pairs["classification"] == "consistent") & first.notna() & (first != TIE)
    differ = decisive & pairs["candidate_chars"].notna() & (pairs["candidate_chars"] != pairs["opponent_chars"])
    longer = np.where(pairs["candidate_chars"] > pairs["opponent_chars"], pairs["candidate"], pairs["opponent"])
    calls = 2 * len(pairs)
    codes, n_items = pairs["_item"].to_numpy(), int(pairs["_item"].max()) + 1
    accuracy: dict[str, RateFigure | None] = dict.fromkeys(("avg", "first", "second", "both"))
    kappa = None
    if len(labelled):
        has_label = label.notna().to_numpy()
        first_right, second_right = (first == label).to_numpy(), (second == label).to_numpy()
        for name, events in (("avg", _credit(averaged, label).to_numpy()), ("first", first_right),
                             ("second", second_right), ("both", first_right & second_right)):
            accuracy[name] = _clustered(codes, n_items, events, has_label, "correct verdicts", resamples, seed)
        lab = labelled["label"]
        kappa = cohens_kappa(averaged[labelled.index].tolist(), lab.tolist(),
                             (labelled["dataset_id"] + "\x1f" + labelled["item_id"]).tolist(),
                             resamples=resamples, seed=seed)
    n_classified = int(classified.sum())
    return ScorecardRow(
        judge=judge, study=study, protocol=protocol, datasets=tuple(sorted(pairs["dataset_id"].unique())),
        simulated=bool(pairs["simulated"].any()),
        items=int(pairs[["dataset_id", "item_id"]].drop_duplicates().shape[0]), pairs=len(pairs), judgments=calls,
        labelled_pairs=len(labelled),
        label_kind=(str(labelled["label_group"].iloc[0]) if len(labelled) else None),
        correct_first_order=int((labelled["first_pick"] == labelled["label"]).sum()),
        correct_swapped_order=int((labelled["second_pick"] == labelled["label"]).sum()),
        correct_both_orders=int(((labelled["first_pick"] == labelled["label"])
                                 & (labelled["second_pick"] == labelled["label"])).sum()),
        consistent=int(((first == second) | (first.isna() & second.isna())).sum()),
        both_orders_failed=int((first.isna() & second.isna()).sum()),
        accuracy=accuracy["avg"], accuracy_first_order=accuracy["first"], accuracy_swapped_order=accuracy["second"],
        accuracy_both_orders=accuracy["both"], kappa=kappa,
        flip_rate=_clustered(codes, n_items, flips, classified, "flips", resamples, seed),
        position_consistency=(n_classified - int(flips.sum())) / n_classified if n_classified else float("nan"),
        first_slot_share=_clustered(codes, n_items, pairs["classification"] == "primacy", flips,
                                    "first-slot flips", resamples, seed),
        longer_answer_share=_clustered(codes, n_items, first.to_numpy() == longer, differ, "longer-answer wins",
                                       resamples, seed),
        parse_failures=int(first.isna().sum() + second.isna().sum()),
        cost_per_1000=_cost(pairs, prices, calls), latency_per_1000=_latency(pairs, calls), item_set_note=None,
    )


def _item_set_notes(rows: list[ScorecardRow], pairs: pd.DataFrame) -> list[ScorecardRow]:
    """A judge measured in several studies on different item sets says so beside each of its rows."""
    keys = pairs.assign(key=pairs["dataset_id"] + "\x1f" + pairs["item_id"])
    sets = {k: frozenset(g["key"]) for k, g in keys.groupby(CONFIG_KEYS)}
    out = []
    for row in rows:
        own = sets[(row.judge, row.study, row.protocol)]
        others = {k: s for k, s in sets.items() if k[0] == row.judge and s != own}
        if others:
            widest = max(len(s) for s in others.values())
            names = ", ".join(sorted(k[1] for k in others))
            note = (f"{row.items:,} items here; this judge's other studies ({names}) cover different items "
                    f"(up to {widest:,}): compare its figures across studies with care")
            row = replace(row, item_set_note=note)
        out.append(row)
    return out


def scorecard_rows(pairs: pd.DataFrame, prices: Mapping[str, tuple[float, float]] | None = None,
                   resamples: int = RESAMPLES, seed: int = SEED) -> list[ScorecardRow]:
    """One row per (judge, study, protocol) of the pairs frame, in that order."""
    if pairs.empty:
        return []
    keys = pairs["dataset_id"] + "\x1f" + pairs["item_id"]
    pairs = pairs.assign(protocol=pairs["protocol"].fillna("pairwise-swap"),
                         _item=pd.Categorical(keys, categories=sorted(keys.unique())).codes.astype(np.int64))
    rows = [_row(key, group.reset_index(drop=True), prices or {}, resamples, seed)
            for key, group in pairs.groupby(CONFIG_KEYS, sort=True)]
    return _item_set_notes(rows, pairs)


@dataclass(frozen=True)
class PairCredits:
    """Swap-averaged credit of every labelled pair per configuration, aligned on one index of pairs
    (dataset, item, candidate, opponent, repetition): NaN where a configuration did not judge the pair.
    ``item_keys`` names each pair's item (dataset and item id)."""

    item_keys: np.ndarray
    credits: dict[tuple[str, str, str], np.ndarray]


def item_credits(pairs: pd.DataFrame, configs: Sequence[tuple[str, str, str]]) -> PairCredits:
    """The credits behind the paired differences of swap-averaged accuracy."""
    labelled = pairs[pairs["label"].notna()]
    labelled = labelled.assign(protocol=labelled["protocol"].fillna("pairwise-swap"))
    pair_key = (labelled["dataset_id"] + "\x1f" + labelled["item_id"] + "\x1f" + labelled["candidate"] + "\x1f"
                + labelled["opponent"] + "\x1f" + labelled["repetition"].astype(str))
    codes, uniques = pd.factorize(pair_key, sort=True)
    item_of_pair = np.array([key.rsplit("\x1f", 3)[0] for key in uniques], dtype=object)
    credit = _credit(swap_averaged_pick(labelled["first_pick"], labelled["second_pick"]), labelled["label"])
    wanted = set(configs)
    out = {}
    for key, index in labelled.groupby(CONFIG_KEYS).indices.items():
        if key in wanted:
            column = np.full(len(uniques), np.nan)
            column[codes[index]] = credit.to_numpy()[index]
            out[key] = column
    return PairCredits(item_of_pair, out)


def point_numbers(rows: Sequence[ScorecardRow]) -> dict[str, int]:
    """The number each configuration carries in the chart and the table: 1 = the most accurate (else the lowest
    flip rate), in the order the table lists them."""
    ordered = sorted(rows, key=lambda r: (-(r.accuracy.estimate if r.accuracy else -1), r.flip_rate.estimate,
                                          r.label))
    return {row.label: i for i, row in enumerate(ordered, start=1)}


def chart_axis(rows: Sequence[ScorecardRow]) -> str:
    """What the x axis shows: ``cost`` when every configuration has a cost (recorded or estimated), else ``flip``."""
    return "cost" if rows and all(r.cost_per_1000.value is not None for r in rows) else "flip"
