"""Plan a run: which calls it makes (items x orderings / slot orders x repetitions), each with its prompt.

The combinatorics are pure functions (tested with hypothesis); ``build_plan`` joins them with the store's items.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from judgebias_core.errors import InvalidArgument
from judgebias_core.identity import stable_id
from judgebias_core.models import CallKind, Rubric
from judgebias_core.prompts import (
    PromptTemplate,
    default_template,
    listwise_values,
    pairwise_values,
    render,
    rubric_values,
    template_id,
)
from judgebias_core.protocols.orderings import canonical, orderings_for
from judgebias_core.protocols.spec import RUBRIC_PROTOCOLS, RunSpec
from judgebias_core.providers import Capabilities, all_providers, get_provider
from judgebias_core.run_types import Ordering, PlannedCall
from judgebias_core.store import run_queries
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.queries import load_rubric

SlotOrder = tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """A run's calls, planned from its spec and template (``build_plan``)."""

    spec: RunSpec
    run_id: str
    template: PromptTemplate
    calls: list[PlannedCall]
    rubric_id: str | None = None
    orderings: tuple[Ordering, ...] = ()

    @property
    def template_id(self) -> str:
        return template_id(self.template.text)


# ---- pure combinatorics --------------------------------------------------------------------------------------

def swap_orders(candidates: Sequence[str], baseline: str | None, pairs: str) -> list[tuple[SlotOrder, str]]:
    """Both slot orders of every pair, labelled original/swapped.

    ``baseline``: each other candidate against the baseline (baseline first in the original order);
    ``all``: every unordered pair, the alphabetically first candidate first in the original order.
    """
    others = sorted(c for c in dict.fromkeys(candidates) if c != baseline)
    if pairs == "baseline":
        if baseline is None:
            raise InvalidArgument("this dataset has no baseline candidate: use --pairs all")
        if baseline not in candidates:
            return []
        couples = [(baseline, other) for other in others]
    else:
        couples = list(itertools.combinations(sorted(dict.fromkeys(candidates)), 2))
    return [order for a, b in couples for order in (((a, b), "original"), ((b, a), "swapped"))]


def cyclic_slot_orders(candidates: Sequence[str]) -> list[SlotOrder]:
    """The p cyclic rotations of p candidates: each candidate appears once at every position."""
    values = tuple(candidates)
    return [values[i:] + values[:i] for i in range(len(values))]


def rubric_trials(protocol: str, orderings: Sequence[Ordering], scores: Sequence[int],
                  repeats: int | None) -> list[tuple[Ordering, int]]:
    """(ordering, repetition) of every trial of one item: each ordering once, or the canonical one N times."""
    if protocol == "rubric-permutation":
        return [(tuple(o), 1) for o in orderings]
    count = repeats if repeats else 2 * len(scores)
    return [(canonical(scores), r) for r in range(1, count + 1)]


# ---- plan building ------------------------------------------------------------------------------------------

def _call_id(run_id: str, item_id: str, call_kind: str, slots: Sequence[str], ordering: Sequence[int] | None,
             repetition: int) -> str:
    return stable_id(run_id, item_id, call_kind, "\x1e".join(slots), "" if ordering is None else ordering, repetition)


def _providers_with(capability: str) -> str:
    """The registered providers declaring ``capability`` (a ``Capabilities`` field), as a message names them."""
    if capability not in Capabilities.__dataclass_fields__:
        raise ValueError(f"no provider capability {capability!r}")
    return ", ".join(p.name for p in all_providers() if getattr(p.capabilities, capability)) or "(none registered)"


def _template(spec: RunSpec, call_kind: CallKind, options: int) -> PromptTemplate:
    base = default_template(call_kind, options)
    parser = base.parser
    if spec.json_reply():
        if call_kind == "listwise" or not get_provider(spec.provider).capabilities.structured_output:
            raise InvalidArgument("structured output is available for rubric and pairwise runs of the providers "
                                  + _providers_with("structured_output"))
        parser = "json-score" if call_kind == "rubric" else "json"
    if spec.template_text or parser != base.parser:
        return PromptTemplate("custom" if spec.template_text else base.name, call_kind, spec.template_text or base.text,
                              parser)
    return base


def default_options(spec: RunSpec) -> int:
    if spec.options is not None:
        if spec.options not in (2, 3):
            raise InvalidArgument("--options must be 2 or 3")
        return spec.options
    return 2 if spec.dataset_id == "devbench" else 3


def build_plan(reader: StoreReader, spec: RunSpec, run_id: str | None = None) -> Plan:
    """Every call the run makes, in order, with its rendered prompt: everything read through one snapshot."""
    run_id = run_id or spec.default_run_id()
    dataset = run_queries.dataset_row(reader, spec.dataset_id)
    if spec.logprobs and (not get_provider(spec.provider).capabilities.logprobs
                          or spec.protocol not in RUBRIC_PROTOCOLS):
        raise InvalidArgument("log-probabilities (expected score) are available for rubric runs of the providers "
                              + _providers_with("logprobs"))
    if spec.reply_constraint() and spec.template_text and not spec.json_reply():
        raise InvalidArgument("--constrain-reply holds replies to the default templates' answer formats; a custom "
                              "--template needs its own constraint in --extra-body")
    if spec.protocol in RUBRIC_PROTOCOLS:
        if dataset["kind"] != "pointwise":
            raise InvalidArgument(f"{spec.protocol} needs a rubric-scored (pointwise) dataset; "
                                  f"{spec.dataset_id} is pairwise")
        if spec.limit_candidates is not None:
            raise InvalidArgument("--limit-candidates is for pairwise runs; rubric runs take --limit-items")
        return _rubric_plan(reader, spec, run_id)
    if dataset["kind"] != "pairwise":
        raise InvalidArgument(f"{spec.protocol} needs a pairwise dataset; {spec.dataset_id} is rubric-scored")
    baseline = dataset["baseline_candidate"]
    return _pairwise_plan(reader, spec, run_id, None if baseline is None else str(baseline))


def _rubric_plan(reader: StoreReader, spec: RunSpec, run_id: str) -> Plan:
    items = run_queries.plan_items(reader, spec.dataset_id, spec.limit_items, spec.candidates)
    if items.empty:
        raise InvalidArgument(f"no items to judge in {spec.dataset_id}")
    labels = run_queries.score_labels(reader, spec.dataset_id)
    label_of = {(r.item_id, r.rubric_id): float(r.mean_score) for r in labels.itertuples()}
    template = _template(spec, "rubric", 3)
    use_reference = spec.use_reference if spec.use_reference is not None else spec.dataset_id != "summeval"
    rubrics: dict[str, Rubric] = {}
    calls: list[PlannedCall] = []
    first_orderings: tuple[Ordering, ...] = ()
    for item in items.itertuples():
        rubric_id = spec.rubric_id or item.rubric_id
        if not isinstance(rubric_id, str):
            raise InvalidArgument(f"item {item.item_id} has no rubric: pass --rubric")
        if rubric_id not in rubrics:
            rubrics[rubric_id] = load_rubric(reader, rubric_id)
        rubric = rubrics[rubric_id]
        orderings = orderings_for(spec.orderings, rubric.scores)
        first_orderings = first_orderings or tuple(orderings)
        reference = item.reference_answer if use_reference and isinstance(item.reference_answer, str) else None
        for ordering, repetition in rubric_trials(spec.protocol, orderings, rubric.scores, spec.repeats):
            prompt = render(template.text, rubric_values(item.question, item.response or "", rubric, ordering,
                                                         reference))
            calls.append(PlannedCall(
                call_id=_call_id(run_id, item.item_id, "rubric", (), ordering, repetition), run_id=run_id,
                dataset_id=spec.dataset_id, item_id=item.item_id, call_kind="rubric", repetition=repetition,
                system=prompt.system, user=prompt.user, ordering=ordering, rubric_id=rubric_id,
                scores=rubric.scores, contents=(item.response or "",),
                human_score=label_of.get((item.item_id, rubric_id)),
            ))
    only_rubric = next(iter(rubrics)) if len(rubrics) == 1 else None
    return Plan(spec, run_id, template, calls, rubric_id=only_rubric, orderings=first_orderings)


def _pairwise_plan(reader: StoreReader, spec: RunSpec, run_id: str, baseline: str | None) -> Plan:
    items = run_queries.plan_items(reader, spec.dataset_id, spec.limit_items)
    answers = run_queries.plan_answers(reader, spec.dataset_id, items["item_id"].tolist())
    keep = kept_candidates(reader, spec, baseline)
    if keep is not None:
        answers = answers[answers["candidate"].isin(keep)]
    preferences = dict(run_queries.preference_labels(reader, spec.dataset_id).itertuples(index=False))
    answer_of = {(r.item_id, r.candidate): r.answer for r in answers.itertuples()}
    candidates_of = answers.groupby("item_id")["candidate"].apply(list).to_dict()
    options = default_options(spec)
    listwise = spec.protocol == "listwise"
    template = _template(spec, "listwise" if listwise else "pairwise", options)
    repeats = (spec.repeats or 3) if spec.protocol == "repetition" else 1
    calls: list[PlannedCall] = []
    for item in items.itertuples():
        candidates = candidates_of.get(item.item_id, [])
        if listwise:
            orders = _listwise_orders(candidates, baseline, spec.listwise_size)
        else:
            orders = swap_orders(candidates, baseline, spec.pairs)
        for slots, label in orders:
            texts = tuple(answer_of[(item.item_id, c)] for c in slots)
            values = (listwise_values(item.question, texts, spec.allow_none) if listwise
                      else pairwise_values(item.question, texts[0], texts[1]))
            prompt = render(template.text, values)
            for repetition in range(1, repeats + 1):
                call_kind: CallKind = "listwise" if listwise else "pairwise"
                calls.append(PlannedCall(
                    call_id=_call_id(run_id, item.item_id, call_kind, slots, None, repetition), run_id=run_id,
                    dataset_id=spec.dataset_id, item_id=item.item_id, call_kind=call_kind, repetition=repetition,
                    system=prompt.system, user=prompt.user, slots=slots, order_label=label,
                    options=None if listwise else options, contents=texts,
                    human_preference=preferences.get(item.item_id),
                ))
    if not calls:
        raise InvalidArgument(f"no pairs to judge in {spec.dataset_id} with these settings")
    return Plan(spec, run_id, template, calls)


def kept_candidates(reader: StoreReader, spec: RunSpec, baseline: str | None) -> tuple[str, ...] | None:
    """The candidates a pairwise run keeps (None: all): ``candidates``, then the first ``limit_candidates`` of them
    in name order besides the baseline, which is always kept."""
    if spec.candidates is None and spec.limit_candidates is None:
        return None
    chosen = list(spec.candidates) if spec.candidates else run_queries.dataset_candidates(reader, spec.dataset_id)
    others = sorted(c for c in dict.fromkeys(chosen) if c != baseline)
    if spec.limit_candidates is not None:
        others = others[: spec.limit_candidates]
    return tuple(others) + ((baseline,) if baseline else ())


def _listwise_orders(candidates: Sequence[str], baseline: str | None, size: int) -> list[tuple[SlotOrder, str]]:
    if size < 2:
        raise InvalidArgument("--listwise-size must be at least 2")
    ordered = ([baseline] if baseline is not None and baseline in candidates else []) + sorted(
        c for c in candidates if c != baseline)
    if len(ordered) < size:
        return []
    rotations = cyclic_slot_orders(ordered[:size])
    return [(slots, "original" if i == 0 else f"rotation-{i}") for i, slots in enumerate(rotations)]


def plan_frame(plan: Plan) -> pd.DataFrame:
    """The plan as a table (one row per call), for display and counting."""
    return pd.DataFrame([
        {"call_id": c.call_id, "item_id": c.item_id, "kind": c.call_kind, "repetition": c.repetition,
         "slots": list(c.slots), "ordering": list(c.ordering) if c.ordering else None,
         "prompt_chars": len(c.system) + len(c.user)}
        for c in plan.calls
    ])
