"""How many calls a run's plan holds, counted from the store's item and candidate counts before any prompt is
rendered (``build_plan`` of R = 3,000 repetitions would hold gigabytes of prompts before a limit could refuse it).

``planned_call_count(reader, spec) == len(build_plan(reader, spec).calls)`` for every spec ``build_plan`` accepts
(tests/test_plan_size.py).
"""

from __future__ import annotations

from judgebias_core.errors import InvalidArgument
from judgebias_core.protocols.orderings import orderings_for
from judgebias_core.protocols.plans import kept_candidates
from judgebias_core.protocols.spec import RUBRIC_PROTOCOLS, RunSpec
from judgebias_core.store import run_queries
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.queries import load_rubric


def planned_call_count(reader: StoreReader, spec: RunSpec) -> int:
    """The number of calls the spec's plan will hold (the same errors as ``build_plan`` for a spec it refuses)."""
    dataset = run_queries.dataset_row(reader, spec.dataset_id)
    if spec.protocol in RUBRIC_PROTOCOLS:
        if dataset["kind"] != "pointwise":
            raise InvalidArgument(f"{spec.protocol} needs a rubric-scored (pointwise) dataset; "
                                  f"{spec.dataset_id} is pairwise")
        if spec.limit_candidates is not None:
            raise InvalidArgument("--limit-candidates is for pairwise runs; rubric runs take --limit-items")
        return _rubric_calls(reader, spec)
    if dataset["kind"] != "pairwise":
        raise InvalidArgument(f"{spec.protocol} needs a pairwise dataset; {spec.dataset_id} is rubric-scored")
    baseline = dataset["baseline_candidate"]
    return _pairwise_calls(reader, spec, None if baseline is None else str(baseline))


def _rubric_calls(reader: StoreReader, spec: RunSpec) -> int:
    per_rubric = run_queries.plan_items_per_rubric(reader, spec.dataset_id, spec.limit_items, spec.candidates,
                                                   spec.rubric_id)
    total = 0
    for rubric_id, items in per_rubric.itertuples(index=False):
        if not isinstance(rubric_id, str):
            raise InvalidArgument("an item has no rubric: pass --rubric")
        scores = load_rubric(reader, rubric_id).scores
        if spec.protocol == "rubric-permutation":
            trials = len(orderings_for(spec.orderings, scores))
        else:
            trials = spec.repeats if spec.repeats else 2 * len(scores)
        total += int(items) * trials
    return total


def _pairwise_calls(reader: StoreReader, spec: RunSpec, baseline: str | None) -> int:
    has_baseline_candidate = baseline is not None
    keep = spec.candidates if spec.limit_candidates is None else kept_candidates(reader, spec, baseline)
    counts = run_queries.plan_item_candidate_counts(reader, spec.dataset_id, spec.limit_items, keep)
    if spec.protocol == "listwise":
        if spec.listwise_size < 2:
            raise InvalidArgument("--listwise-size must be at least 2")
        per_item = [spec.listwise_size if n >= spec.listwise_size else 0 for n in counts["candidates"]]
    elif spec.pairs == "baseline":
        if not has_baseline_candidate:
            raise InvalidArgument("this dataset has no baseline candidate: use --pairs all")
        per_item = [2 * (int(n) - 1) if has else 0 for n, has in zip(counts["candidates"], counts["has_baseline"],
                                                                       strict=True)]
    else:
        per_item = [int(n) * (int(n) - 1) for n in counts["candidates"]]
    repeats = (spec.repeats or 3) if spec.protocol == "repetition" else 1
    return sum(per_item) * repeats
