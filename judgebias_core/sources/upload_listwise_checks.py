"""Checks of list-wise judge-log uploads: candidates in slot order, the pick as the engine stores it (a slot
letter, or 'none'), order labels; failures kept, never dropped."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem
from judgebias_core.parsing import parse_listwise
from judgebias_core.protocols.plans import cyclic_slot_orders
from judgebias_core.sources.upload_log_checks import answer_problems, parse_replies, parsed_outcomes, target_problems
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.sources.upload_validate import duplicate_problems
from judgebias_core.store.upload_queries import StoreContext

NO_WINNER = "none"  # what the engine stores for [[NONE]]


def slot_letter(index: int) -> str:
    """A, B, C, ... for slots 0, 1, 2, ..."""
    return chr(ord("A") + index)


def pick_verdict(pick: str, slots: Sequence[str], allow_none: bool) -> tuple[str | None, str]:
    """The stored verdict of a given pick (a slot letter, or 'none') and, when there is none, what a pick is.

    A pick may be a slot letter, a 1-based slot number or a candidate in the slots (or none, when allowed); a
    value that could mean two different slots is refused rather than guessed.
    """
    text = pick.strip()
    meanings: set[str] = set()
    if text in slots:
        meanings.add(slot_letter(list(slots).index(text)))
    upper = text.upper()
    if len(upper) == 1 and "A" <= upper < slot_letter(len(slots)):
        meanings.add(upper)
    if text.isdigit() and 1 <= int(text) <= len(slots):
        meanings.add(slot_letter(int(text) - 1))
    if upper == NO_WINNER.upper() and allow_none:
        meanings.add(NO_WINNER)
    if len(meanings) == 1:
        return meanings.pop(), ""
    if meanings:
        return None, f"one pick (it could mean slot {' or '.join(sorted(meanings))})"
    last = slot_letter(len(slots) - 1)
    return None, (f"a pick (a slot letter A-{last}, a slot number 1-{len(slots)}, a candidate in the slots"
                  + (", or none)" if allow_none else "; 'no clear winner' is not allowed here)"))


def _picks(valid: pd.DataFrame, spec: UploadSpec, parser: str) -> pd.DataFrame:
    """verdict, parse_status, parser and error of every list-wise call: a given pick, else the parsed reply."""
    read = [pick_verdict(pick, slots, spec.allow_none) if isinstance(pick, str) else (None, "")
            for pick, slots in zip(valid["pick"], valid["slots"], strict=True)]
    verdict = pd.Series([value for value, _ in read], index=valid.index, dtype=object)
    wanted = pd.Series([what for _, what in read], index=valid.index, dtype=object)
    parsed = parse_replies(valid, "pick", lambda reply, slots: parse_listwise(reply, len(slots), spec.allow_none),
                           valid["slots"])
    outcomes = parsed_outcomes(valid["pick"], verdict, valid["pick"].notna() & verdict.notna(), parsed,
                               parser, wanted)
    return outcomes.rename(columns={"value": "verdict"})


def _order_labels(valid: pd.DataFrame, original_first: str | None) -> pd.Series:
    """Per call of one candidate set (same item, judge and repetition): 'original' for the first-seen order with
    ``original_first`` in the first slot (else the first-seen order), 'rotation-k' for the original shifted left
    by k as the engine labels its orders, 'permutation' for any other order."""
    order = valid["slots"].map(json.dumps)
    candidate_set = valid["slots"].map(lambda slots: json.dumps(sorted(slots)))
    leads = valid["slots"].map(lambda slots: slots[0] == original_first)
    ranked = valid.assign(_order=order, _set=candidate_set, _later=~leads).sort_values(["_later", "row"])
    original = ranked.groupby(["item_id", "judge", "repetition", "_set"])["_order"].transform("first")

    def label(shown: str, first: str) -> str:
        rotations = [list(o) for o in cyclic_slot_orders(json.loads(first))]
        slots = json.loads(shown)
        if slots not in rotations:
            return "permutation"
        shift = rotations.index(slots)
        return "original" if shift == 0 else f"rotation-{shift}"

    return pd.Series([label(shown, first) for shown, first in zip(order, original.reindex(valid.index),
                                                                    strict=True)],
                     index=valid.index, dtype=object)


def check_listwise_log(valid: pd.DataFrame, records: Sequence[dict[str, Any]], spec: UploadSpec,
                       context: StoreContext, *, dataset_kind: str,
                       parser: str) -> tuple[pd.DataFrame, list[RowProblem]]:
    """The calls with their picks and order labels; unknown items, candidates without an answer, duplicates."""
    problems, known_item = target_problems(valid, records, spec, context, dataset_kind)
    if known_item is None:
        return valid, problems
    shown = valid.loc[known_item, ["row", "item_id", "slots"]].explode("slots")
    problems += answer_problems(shown, spec, context, spec.columns.get("slots"))
    keyed = valid.assign(slots_shown=valid["slots"].map(json.dumps))
    problems += duplicate_problems(keyed, ["item_id", "slots_shown", "judge", "repetition"], None,
                                   "call (same item, slots, judge and repetition)")
    calls = pd.concat([valid.drop(columns="pick"), _picks(valid, spec, parser)], axis=1)
    baseline = context.dataset.baseline_candidate if context.dataset is not None else None
    calls["order_label"] = _order_labels(valid, spec.original_first or baseline)
    return calls, problems
