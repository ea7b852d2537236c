"""Plan a swap study before paying for it (METHODS.md, "Planning a swap study"): a pairwise dataset's items and
pairs, an expected flip rate and design effect (typed in, or estimated from an earlier run of the same judge), the
expected width of the item-clustered interval, the items a target width needs, and what that many items cost."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from judgebias_core.engine.preview import preview_run
from judgebias_core.errors import InvalidArgument, NotFoundError
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.stats.clustered import ClusteredMethod
from judgebias_core.stats.plan_assurance import ASSURANCE

# ``X as X``: offered to ui/plan_panel.py, which reaches stats only through analyses/ (docs/ARCHITECTURE.md)
from judgebias_core.stats.planning import WIDTH_MODES as WIDTH_MODES
from judgebias_core.stats.planning import WidthMode, estimate_design, plan_from_earlier_run, plan_swap_study
from judgebias_core.stats.planning import width_mode_words as width_mode_words
from judgebias_core.stats.settings import CONFIDENCE, MIN_STUDENTIZED_ITEMS
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.plan_queries import earlier_studies, item_flip_counts, pairwise_dataset, run_judges

PairDesign = Literal["baseline", "all"]
AssumptionSource = Literal["typed", "earlier-run"]
# Stated starting values where no earlier run of the judge exists: round figures, not estimates.
DEFAULT_FLIP_RATE = 0.2
DEFAULT_DESIGN_EFFECT = 2.5


@dataclass(frozen=True)
class DatasetDesign:
    """A pairwise dataset under a pair design: items with at least one pair, and its pairs per item.

    ``item_limits[k - 1]`` is the "first N items" limit (stored order) that takes in the first k items with pairs.
    """

    dataset_id: str
    pairs: PairDesign
    items: int
    total_pairs: int
    pairs_per_item: int  # the mean over items with pairs, rounded (at least 1)
    item_limits: tuple[int, ...]

    def items_within(self, limit: int | None) -> int:
        """Items with pairs among the first ``limit`` items in stored order (None: all)."""
        return self.items if limit is None else sum(1 for position in self.item_limits if position <= limit)


@dataclass(frozen=True)
class PlanAssumptions:
    """The expected flip rate and design effect (at the planned pairs per item), and where they come from."""

    flip_rate: float
    design_effect: float
    source: AssumptionSource
    description: str
    dataset_id: str | None = None
    study: str | None = None
    judge: str | None = None
    run_id: str | None = None
    earlier_items: int | None = None
    earlier_pairs: int | None = None
    earlier_flips: int | None = None
    earlier_design_effect: float | None = None
    icc: float | None = None


@dataclass(frozen=True)
class StudyPlan:
    """Expected width of the item-clustered 95% interval of the flip rate, the width met with 80% assurance, and
    the items a target width needs under ``width_mode`` (on average, or in 80% of studies)."""

    dataset_id: str
    pairs: PairDesign
    items: int
    pairs_per_item: int
    flip_rate: float
    design_effect: float
    expected_width: float
    interval_method: ClusteredMethod
    effective_n: float
    target_width: float | None
    items_needed: int | None
    confidence: float
    note: str | None
    assumptions: PlanAssumptions
    width_mode: WidthMode = "expected"
    assured_width: float = float("nan")
    assurance: float = ASSURANCE


@dataclass(frozen=True)
class PlanCost:
    """Judge calls and estimated cost of a swap run over ``items`` items (``extrapolated`` beyond the dataset)."""

    items: int
    calls: int
    cost_usd: float | None
    provider: str
    model: str
    extrapolated: bool
    note: str | None


def dataset_design(reader: StoreReader, dataset_id: str, pairs: PairDesign = "baseline") -> DatasetDesign:
    """Items and pairs per item of a swap run on the dataset (each candidate against the baseline, or all pairs)."""
    baseline, items = pairwise_dataset(reader, dataset_id)
    if pairs == "baseline":
        if baseline is None:
            raise InvalidArgument(f"dataset {dataset_id!r} has no baseline candidate: plan with --pairs all")
        per_item = np.where(items["has_baseline"], items["candidates"] - 1, 0)
    else:
        per_item = items["candidates"] * (items["candidates"] - 1) // 2
    per_item = np.asarray(per_item, dtype=np.int64)
    with_pairs = np.flatnonzero(per_item > 0)
    if len(with_pairs) == 0:
        raise InvalidArgument(f"dataset {dataset_id!r} has no item with a pair to judge ({pairs:,} pairs)")
    total = int(per_item.sum())
    return DatasetDesign(dataset_id, pairs, len(with_pairs), total, max(1, round(total / len(with_pairs))),
                         tuple(int(i) + 1 for i in with_pairs))


def typed_assumptions(flip_rate: float, design_effect: float) -> PlanAssumptions:
    """Assumptions typed in; InvalidArgument unless 0 < flip rate < 1 and design effect >= 1."""
    if not 0 < flip_rate < 1:
        raise InvalidArgument(f"the expected flip rate must be strictly between 0 and 1 (got {flip_rate:g})")
    if not (math.isfinite(design_effect) and design_effect >= 1):
        raise InvalidArgument(f"the design effect must be at least 1 (1 = pairs independent; got {design_effect:g})")
    return PlanAssumptions(flip_rate, design_effect, "typed",
                           f"typed in: flip rate {flip_rate:.3f}, design effect {design_effect:.2f}")


def assumptions_from_judge(reader: StoreReader, design: DatasetDesign, dataset_id: str, study: str, judge: str,
                           run_id: str | None = None) -> PlanAssumptions:
    """Flip rate and intra-item correlation of an earlier run of the judge (first repetition), the design effect
    rescaled to the planned pairs per item (``stats.planning.plan_from_earlier_run``)."""
    counts = item_flip_counts(reader, dataset_id, study, judge)
    where = f"judge {judge!r} in study {study!r} of dataset {dataset_id!r}"
    if counts.empty:
        raise NotFoundError(f"{where} has no classified pair to estimate from")
    flips, trials = counts["flips"].to_numpy(), counts["classified"].to_numpy()
    if flips.sum() == 0 or flips.sum() == trials.sum():
        raise InvalidArgument(f"{where} has {int(flips.sum()):,} flips in {int(trials.sum()):,} pairs: no design effect "
                              "can be estimated; type the expected flip rate and design effect instead")
    earlier = estimate_design(flips, trials)
    plan = plan_from_earlier_run(flips, trials, design.items, design.pairs_per_item)
    icc_note = (f"intra-item correlation {earlier.icc:.3f}" if math.isfinite(earlier.icc)
                else "one item: no intra-item correlation can be estimated, 0 assumed")
    description = (f"estimated from {judge} ({study} on {dataset_id}): {int(flips.sum()):,} flips in "
                   f"{int(trials.sum()):,} pairs over {len(trials):,} items, design effect {earlier.design_effect:.2f} "
                   f"at {earlier.mean_pairs_per_item:.1f} pairs per item, {icc_note}; "
                   f"{plan.design_effect:.2f} at {design.pairs_per_item} pairs per item")
    return PlanAssumptions(plan.flip_rate, plan.design_effect, "earlier-run", description, dataset_id, study, judge,
                           run_id, len(trials), int(trials.sum()), int(flips.sum()), earlier.design_effect,
                           earlier.icc if math.isfinite(earlier.icc) else None)


def assumptions_from_run(reader: StoreReader, design: DatasetDesign, run_id: str,
                         judge: str | None = None) -> PlanAssumptions:
    """``assumptions_from_judge`` on a stored run; ``judge`` picks one where the run holds several."""
    judges = run_judges(reader, run_id)
    if judges.empty:
        raise NotFoundError(f"run {run_id!r} has no classified pairwise pairs in the store")
    if judge is not None:
        judges = judges[judges["judge"] == judge]
        if judges.empty:
            raise NotFoundError(f"run {run_id!r} has no pairs judged by {judge!r}")
    elif len(judges) > 1:
        raise InvalidArgument(f"run {run_id!r} holds {len(judges)} judges ({', '.join(judges['judge'])}): "
                              "name one with --from-judge")
    row = judges.iloc[0]
    return assumptions_from_judge(reader, design, str(row["dataset_id"]), str(row["study"]), str(row["judge"]),
                                  run_id)


def default_assumptions(reader: StoreReader, design: DatasetDesign, judges: list[str]) -> PlanAssumptions:
    """Estimated from the earlier study of one of ``judges`` on the dataset with the most classified pairs;
    the stated defaults when there is none (or it cannot give an estimate)."""
    for row in earlier_studies(reader, design.dataset_id, judges).itertuples():
        try:
            return assumptions_from_judge(reader, design, design.dataset_id, str(row.study), str(row.judge))
        except InvalidArgument:
            continue
    typed = typed_assumptions(DEFAULT_FLIP_RATE, DEFAULT_DESIGN_EFFECT)
    return replace(typed, description=f"no earlier run of this judge on {design.dataset_id}: default flip rate "
                   f"{DEFAULT_FLIP_RATE:g} and design effect {DEFAULT_DESIGN_EFFECT:g} (round values, not estimates)")


def plan_study(design: DatasetDesign, assumptions: PlanAssumptions, items: int | None = None,
               target_width: float | None = None, width_mode: WidthMode = "expected") -> StudyPlan:
    """The plan for ``items`` items (default: every item of the dataset with a pair) at its pairs per item; the
    items for ``target_width`` meet it on average (``width_mode`` "expected") or in 80% of studies ("assurance")."""
    planned = design.items if items is None else items
    if planned < 1:
        raise InvalidArgument(f"--items must be at least 1 (got {planned})")
    if target_width is not None and not 0 < target_width < 1:
        raise InvalidArgument(f"the target width must be strictly between 0 and 1 (got {target_width:g})")
    plan = plan_swap_study(planned, design.pairs_per_item, assumptions.flip_rate,
                           design_effect=assumptions.design_effect, target_width=target_width,
                           width_mode=width_mode)
    method: ClusteredMethod = "studentized-item-bootstrap" if planned >= MIN_STUDENTIZED_ITEMS else "exact-effective-items"
    return StudyPlan(design.dataset_id, design.pairs, planned, design.pairs_per_item, plan.flip_rate,
                     plan.design_effect, plan.expected_width, method, plan.effective_n, target_width,
                     plan.items_needed, CONFIDENCE, plan.note, assumptions, width_mode, plan.assured_width,
                     plan.assurance)


def plan_cost(reader: StoreReader, design: DatasetDesign, spec: RunSpec, items: int,
              settings: RunSettings | None = None) -> PlanCost:
    """Calls and cost of the swap run ``spec`` over its first ``items`` items with pairs, through the run preview;
    beyond the dataset's items, the whole dataset's calls and cost per item times ``items`` (said so)."""
    if spec.protocol != "pairwise-swap" or spec.dataset_id != design.dataset_id or spec.pairs != design.pairs:
        raise InvalidArgument("the cost is planned for a pairwise-swap run on the planned dataset and pair design")
    covered = min(items, design.items)
    preview = preview_run(reader, spec.model_copy(update={"limit_items": design.item_limits[covered - 1]}),
                          settings or RunSettings())
    if items <= design.items:
        return PlanCost(items, preview.calls, preview.estimate.cost_usd, spec.provider, spec.model, False, None)
    scale = items / covered
    cost = preview.estimate.cost_usd
    return PlanCost(items, math.ceil(preview.calls * scale), None if cost is None else cost * scale, spec.provider,
                    spec.model, True, f"the dataset {design.dataset_id} has {design.items:,} items with pairs: calls and cost "
                    f"for {items:,} are its {preview.calls:,} calls per {covered:,} items scaled up")
