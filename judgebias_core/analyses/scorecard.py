"""The judge scorecard of one dataset or dataset group, from one store snapshot: which judge to use, how
position-biased it is, and how sure we are (METHODS.md, "Judge scorecard")."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from judgebias_core.dataset_groups import DATASET_GROUPS, group_members
from judgebias_core.errors import InvalidArgument, NotFoundError
from judgebias_core.judges.prices import price_table
from judgebias_core.metrics.scorecard import CONFIG_KEYS, ScorecardRow, item_credits, scorecard_rows
from judgebias_core.metrics.scorecard_compare import (
    PairedDifference,
    Recommendation,
    best_row,
    paired_differences,
    recommend,
)
from judgebias_core.stats.clustered import RESAMPLES, SEED
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.queries import dataset_summaries
from judgebias_core.store.scorecard_queries import (
    labelled_pairwise_datasets,
    scorecard_pairs,
    unlabelled_judged_datasets,
)


@dataclass(frozen=True)
class Scorecard:
    """Every judge configuration of a dataset (or group) side by side, the paired differences against the best
    row and the recommendation. ``labelled_datasets`` lists the store's pairwise datasets with labels (where to go
    when this one has none)."""

    dataset: str
    name: str
    datasets: tuple[str, ...]
    rows: tuple[ScorecardRow, ...]
    differences: dict[tuple[str, str, str], PairedDifference]
    best: str | None
    recommendation: Recommendation
    has_labels: bool
    labelled_datasets: tuple[str, ...]
    resamples: int = RESAMPLES  # item-bootstrap resamples of every interval and paired difference
    seed: int = SEED

    def difference(self, row: ScorecardRow) -> PairedDifference | None:
        return self.differences.get((row.judge, row.study, row.protocol))


def scorecard_choices(reader: StoreReader) -> list[tuple[str, str]]:
    """(id, name) of every pairwise dataset and of every dataset group whose members are all in the store."""
    pairwise = {s.id: s.name for s in dataset_summaries(reader) if s.dataset_kind == "pairwise" and s.judge_calls}
    groups = [(g.group_id, g.name) for g in DATASET_GROUPS.values() if all(d in pairwise for d in g.datasets)]
    return list(pairwise.items()) + groups


def judge_scorecard(reader: StoreReader, dataset: str, resamples: int = RESAMPLES, seed: int = SEED) -> Scorecard:
    """The scorecard of a pairwise dataset or a dataset group. NotFoundError for an unknown id; InvalidArgument for
    a pointwise dataset (its judges score single answers: see Rubric bias)."""
    summaries = {s.id: s for s in dataset_summaries(reader)}
    members = group_members(dataset)
    missing = [d for d in members if d not in summaries]
    if missing:
        known = ", ".join(sorted(summaries) + sorted(DATASET_GROUPS))
        raise NotFoundError(f"no dataset {missing[0]!r} in the store (known: {known})")
    pointwise = [d for d in members if summaries[d].dataset_kind != "pairwise"]
    if pointwise:
        raise InvalidArgument(f"{pointwise[0]!r} is a pointwise dataset: its judges score single answers, so there "
                              "is no pairwise scorecard (see Rubric bias and Calibration)")
    pairs = scorecard_pairs(reader, members)
    rows = scorecard_rows(pairs, price_table(), resamples, seed)
    keys = [tuple(getattr(r, k) for k in CONFIG_KEYS) for r in rows]
    differences = paired_differences(rows, item_credits(pairs, keys), resamples, seed)
    labelled = labelled_pairwise_datasets(reader)
    labelled_ids = tuple(labelled["dataset_id"].astype(str))
    best = best_row(rows)
    group = DATASET_GROUPS.get(dataset)
    return Scorecard(
        dataset=dataset, name=group.name if group else summaries[dataset].name, datasets=members, rows=tuple(rows),
        differences=differences, best=best.label if best else None,
        recommendation=recommend(rows, differences, [d for d in labelled_ids if d not in members]),
        has_labels=best is not None, labelled_datasets=labelled_ids, resamples=resamples, seed=seed,
    )


def _rate(figure: object) -> dict | None:
    return None if figure is None else asdict(figure)  # type: ignore[call-overload]


def scorecard_json(card: Scorecard) -> dict:
    """The CLI's and the snapshot's JSON form: one object per row, the recommendation, the family's correction."""
    rows = []
    for row in card.rows:
        diff = card.difference(row)
        rows.append({
            "judge": row.judge, "study": row.study, "protocol": row.protocol, "datasets": list(row.datasets),
            "simulated": row.simulated, "items": row.items, "pairs": row.pairs, "judgments": row.judgments,
            "labelled_pairs": row.labelled_pairs, "label_kind": row.label_kind,
            "correct_first_order": row.correct_first_order, "correct_swapped_order": row.correct_swapped_order,
            "correct_both_orders": row.correct_both_orders, "consistent": row.consistent,
            "both_orders_failed": row.both_orders_failed,
            "accuracy": _rate(row.accuracy), "accuracy_first_order": _rate(row.accuracy_first_order),
            "accuracy_swapped_order": _rate(row.accuracy_swapped_order),
            "accuracy_both_orders": _rate(row.accuracy_both_orders), "kappa": _rate(row.kappa),
            "accuracy_estimate": asdict(row.accuracy.as_estimate()) if row.accuracy is not None else None,
            "flip_rate": asdict(row.flip_rate), "position_consistency": row.position_consistency,
            "first_slot_share": asdict(row.first_slot_share), "longer_answer_share": asdict(row.longer_answer_share),
            "parse_failures": row.parse_failures,
            "cost_per_1000_usd": row.cost_per_1000.value, "cost_basis": row.cost_per_1000.basis,
            "cost_note": row.cost_per_1000.note,
            "latency_per_1000_s": row.latency_per_1000.value, "latency_note": row.latency_per_1000.note,
            "difference_from_best": _rate(diff), "is_best": row.label == card.best,
            "item_set_note": row.item_set_note,
        })
    rec = card.recommendation
    return {
        "dataset": card.dataset, "name": card.name, "datasets": list(card.datasets), "has_labels": card.has_labels,
        "best": card.best, "labelled_datasets": list(card.labelled_datasets),
        "accuracy_rule": "swap-averaged: the verdict when both orders agree, else a tie (half credit against a "
                         "decisive label); intervals item-clustered",
        "difference_rule": "paired item bootstrap (items resampled once for both rows) of the difference from the "
                           "best row on the labelled pairs both judged, its standard error used with Student's t on "
                           "items - 1; Holm over the comparisons shown, intervals at the Bonferroni level over them",
        "resamples": card.resamples, "seed": card.seed,
        "recommendation": {"sentence": rec.sentence, "configuration": (
            {"judge": rec.judge, "study": rec.study, "protocol": rec.protocol} if rec.judge else None)},
        "rows": rows,
    }



@dataclass(frozen=True)
class LabelCoverage:
    """Which judged datasets carry labels and which do not, for pages that need labels to say so."""

    labelled: tuple[str, ...]
    unlabelled: tuple[str, ...]

    def sentence(self) -> str | None:
        if not self.unlabelled:
            return None
        return (f"Not listed: {', '.join(self.unlabelled)}: their judge calls have no labels, so agreement with "
                f"people cannot be measured there. Datasets with pairwise labels: "
                f"{', '.join(self.labelled) or 'none yet'}. To add labels, upload the items as pairs with a "
                "preference column (Data page, Upload).")


def label_coverage(reader: StoreReader) -> LabelCoverage:
    labelled = labelled_pairwise_datasets(reader)
    return LabelCoverage(tuple(labelled["dataset_id"].astype(str)), tuple(unlabelled_judged_datasets(reader)))
