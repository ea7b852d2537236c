"""Checks of judge-log uploads against the store, and the parse of every reply (failures kept, never dropped)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from judgebias_core.errors import RowProblem
from judgebias_core.models import PARSE_FAILED, PARSE_OK, PARSER_PREPARSED, ParsedVerdict
from judgebias_core.parsing import PARSERS
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.sources.upload_validate import clean_cell, duplicate_problems
from judgebias_core.store.upload_queries import StoreContext

_VERDICT_WORDS = {"A": "A", "B": "B", "C": "C", "FIRST": "A", "SECOND": "B", "TIE": "C", "1": "A", "2": "B"}


def target_dataset_problems(spec: UploadSpec, context: StoreContext, dataset_kind: str) -> list[RowProblem]:
    """A log must name an existing dataset of the kind its calls judge (``dataset_kind``)."""
    if context.dataset is None:
        return [RowProblem(None, None, f"dataset {spec.dataset_id!r} is not in the store: upload its items first")]
    if context.dataset.dataset_kind != dataset_kind:
        return [RowProblem(None, None, f"dataset {spec.dataset_id!r} is {context.dataset.dataset_kind}; "
                                       f"this log needs a {dataset_kind} dataset")]
    return []


def target_problems(valid: pd.DataFrame, records: Sequence[dict[str, Any]], spec: UploadSpec,
                    context: StoreContext, dataset_kind: str) -> tuple[list[RowProblem], pd.Series | None]:
    """Problems with the target dataset, and every row (valid or not) naming an item it lacks; which valid rows
    name a known item (None when the dataset itself is unusable)."""
    problems = target_dataset_problems(spec, context, dataset_kind)
    if problems:
        return problems, None
    stored = set(context.items["item_id"])
    named = pd.Series([clean_cell(record.get("item_id")) for record in records], dtype=object)
    named = named.map(lambda item: None if item is None or isinstance(item, list | dict) else str(item).strip())
    unknown = named.notna() & ~named.isin(stored)
    column = spec.columns.get("item_id")
    return [RowProblem(int(index) + 1, column, f"item {item!r} is not in dataset {spec.dataset_id!r}")
            for index, item in named[unknown].items()], valid["item_id"].isin(stored)


def parse_replies(valid: pd.DataFrame, given: str, read: Callable[[str | None, Any], ParsedVerdict],
                  per_row: Sequence[Any] | None = None) -> pd.Series:
    """``read(reply, per_row value)`` of each raw reply (text, or None where the file gave none) on the rows
    without a given ``given`` value; None on the others."""
    replies = valid["raw_output"]
    extra = per_row if per_row is not None else [None] * len(valid)
    return pd.Series([read(None if no_reply else reply, value) if missing else None
                      for missing, no_reply, reply, value in zip(valid[given].isna(), replies.isna(), replies, extra,
                                                                 strict=True)],
                     index=valid.index, dtype=object)


def parsed_outcomes(given: pd.Series, given_value: pd.Series, ok_given: pd.Series, parsed: pd.Series,
                    parser: str, what: str | pd.Series) -> pd.DataFrame:
    """value, parse_status, parser and error per call: a given value where one is given (a value outside the
    allowed set is a parse failure with its reason, "'x' is not <what>"), else what the parser read from the
    raw reply."""
    has_given = given.notna()
    ok_parsed = ~has_given & parsed.map(lambda p: p is not None and p.status == PARSE_OK)
    read = parsed.map(lambda p: p.value if p is not None else None)
    return pd.DataFrame({
        "value": given_value.where(ok_given).astype(object).where(ok_given, read.where(ok_parsed)),
        "parse_status": (ok_given | ok_parsed).map({True: PARSE_OK, False: PARSE_FAILED}),
        "parser": has_given.map({True: PARSER_PREPARSED, False: parser}),
        "error": (given.fillna("").map(repr) + " is not " + what).where(
            has_given & ~ok_given, parsed.map(lambda p: (p.reason or None) if p is not None else None)
            .where(~has_given & ~ok_parsed)),
    }, index=given.index)


def _verdicts(valid: pd.DataFrame, spec: UploadSpec, parser: str) -> pd.DataFrame:
    """verdict, parse_status, parser and error of every pairwise call: a given verdict, else the parsed reply."""
    allowed = ("A", "B", "C") if spec.options == 3 else ("A", "B")
    letter = valid["verdict"].str.strip().str.upper().map(_VERDICT_WORDS)
    parse = PARSERS[parser]
    parsed = parse_replies(valid, "verdict", lambda reply, _: parse(reply, options=spec.options))
    outcomes = parsed_outcomes(valid["verdict"], letter, valid["verdict"].notna() & letter.isin(allowed), parsed,
                               parser, f"a verdict ({', '.join(allowed)}, or first, second, tie)")
    return outcomes.rename(columns={"value": "verdict"})


def answer_problems(calls: pd.DataFrame, spec: UploadSpec, context: StoreContext,
                    column: str | None) -> list[RowProblem]:
    """One problem per row naming a candidate with no answer to its item; ``calls`` holds ``row``, ``item_id``
    and the candidate as its third column."""
    named = calls.set_axis(["row", "item_id", "named"], axis=1)
    found = named.merge(context.answers, left_on=["item_id", "named"], right_on=["item_id", "candidate"],
                        how="left", indicator=True)
    missing = found[found["_merge"] == "left_only"]
    return [RowProblem(int(row), column, f"candidate {who!r} has no answer to item {item!r} in {spec.dataset_id!r}")
            for row, item, who in zip(missing["row"], missing["item_id"], missing["named"], strict=True)]


def _order_labels(valid: pd.DataFrame, original_first: str | None) -> pd.Series:
    """'original' for the call with ``original_first`` in the first slot; for pairs without it, the order seen
    first in the file is original and its mirror is swapped."""
    low = valid[["first_candidate", "second_candidate"]].min(axis=1)
    high = valid[["first_candidate", "second_candidate"]].max(axis=1)
    pair_key = [valid["item_id"], valid["judge"], valid["repetition"], low, high]
    first_seen = valid.sort_values("row").groupby(pair_key)["first_candidate"].transform("first")
    original = valid["first_candidate"] == first_seen.reindex(valid.index)
    if original_first:
        has_it = (valid["first_candidate"] == original_first) | (valid["second_candidate"] == original_first)
        original = original.where(~has_it, valid["first_candidate"] == original_first)
    return original.map({True: "original", False: "swapped"})


def check_pairwise_log(valid: pd.DataFrame, records: Sequence[dict[str, Any]], spec: UploadSpec,
                       context: StoreContext, *, dataset_kind: str,
                       parser: str) -> tuple[pd.DataFrame, list[RowProblem]]:
    """The calls with their parsed verdicts and order labels; unknown items or candidates, duplicates."""
    problems, known_item = target_problems(valid, records, spec, context, dataset_kind)
    if known_item is None:
        return valid, problems
    for slot in ("first_candidate", "second_candidate"):
        problems += answer_problems(valid.loc[known_item, ["row", "item_id", slot]], spec, context,
                                    spec.columns.get(slot))
    problems += duplicate_problems(valid, ["item_id", "first_candidate", "second_candidate", "judge", "repetition"],
                                   None, "call (same item, slots, judge and repetition)")
    calls = pd.concat([valid.drop(columns="verdict"), _verdicts(valid, spec, parser)], axis=1)
    baseline = context.dataset.baseline_candidate if context.dataset is not None else None
    calls["order_label"] = _order_labels(valid, spec.original_first or baseline)
    return calls, problems


def _rubric_scores(valid: pd.DataFrame, levels: pd.Series, parser: str) -> pd.DataFrame:
    """score, parse_status, parser and error of every rubric trial."""
    number = pd.to_numeric(valid["score"], errors="coerce")
    in_levels = pd.Series([s == s and s in lv for s, lv in zip(number, levels, strict=True)], index=valid.index,
                          dtype=bool)
    parse = PARSERS[parser]
    parsed = parse_replies(valid, "score", lambda reply, lv: parse(reply, scores=lv), levels)
    outcomes = parsed_outcomes(valid["score"], number, valid["score"].notna() & in_levels, parsed, parser,
                               "a level of the rubric")
    return outcomes.rename(columns={"value": "score"}).astype({"score": "Int64"})


def check_rubric_log(valid: pd.DataFrame, records: Sequence[dict[str, Any]], spec: UploadSpec,
                     context: StoreContext, *, dataset_kind: str,
                     parser: str) -> tuple[pd.DataFrame, list[RowProblem]]:
    """The trials with rubric, score and chosen position; unknown items, orderings that are not permutations."""
    problems, known_item = target_problems(valid, records, spec, context, dataset_kind)
    if known_item is None:
        return valid, problems
    item_rubric = context.items.set_index("item_id")["rubric_id"]
    rubric = pd.Series(spec.rubric_id, index=valid.index) if spec.rubric_id else valid["item_id"].map(item_rubric)
    levels_of = context.levels.groupby("rubric_id")["level"].agg(lambda s: tuple(sorted(int(v) for v in s)))
    levels = rubric.map(levels_of)
    no_rubric = known_item & levels.isna()
    problems += [RowProblem(int(row), spec.columns.get("item_id"),
                            f"no rubric for item {item!r}" + (f" (rubric {r!r} is not in the store)" if r == r and r
                                                              else ": choose the rubric of this log"))
                 for row, item, r in zip(valid.loc[no_rubric, "row"], valid.loc[no_rubric, "item_id"],
                                         rubric[no_rubric], strict=True)]
    levels = levels.map(lambda lv: lv if isinstance(lv, tuple) else ())
    not_permutation = known_item & ~no_rubric & pd.Series(
        [tuple(sorted(o, key=lambda v: (v is None, v or 0))) != lv for o, lv in zip(valid["ordering"], levels,
                                                                                       strict=True)],
        index=valid.index, dtype=bool)
    problems += [RowProblem(int(row), spec.columns.get("ordering"),
                            f"ordering {list(o)} is not an ordering of the rubric's levels {list(lv)}")
                 for row, o, lv in zip(valid.loc[not_permutation, "row"], valid.loc[not_permutation, "ordering"],
                                       levels[not_permutation], strict=True)]
    trials = valid.assign(ordering_key=valid["ordering"].map(lambda o: ",".join(map(str, o))))
    problems += duplicate_problems(trials, ["item_id", "judge", "repetition", "ordering_key"], None,
                                   "trial (same item, judge, ordering and repetition)")
    scored = _rubric_scores(valid, levels, parser)
    trials = pd.concat([trials.drop(columns=["score", "ordering_key"]), scored], axis=1).assign(rubric_id=rubric)
    trials["chosen_position"] = [o.index(s) + 1 if s is not pd.NA and s in o else None
                                 for o, s in zip(trials["ordering"], trials["score"], strict=True)]
    return trials, problems
