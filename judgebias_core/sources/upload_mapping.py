"""Upload fields (the ones several kinds share), and column suggestions from the file's header names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

TIE = "tie"


@dataclass(frozen=True)
class FieldSpec:
    """One field an upload kind stores; ``synonyms`` are normalised header names that suggest it."""

    name: str
    label: str
    required: bool
    synonyms: tuple[str, ...]
    help: str = ""


# Fields several kinds share (each kind's module lists its own fields).
ITEM_ID = FieldSpec("item_id", "Item id", False, ("item_id", "id", "item", "question_id", "pair_id", "qid", "uid",
                                                  "example_id", "sample_id"),
                    "Unique per row; without it rows are numbered 1, 2, ... in file order.")
LOG_ITEM_ID = FieldSpec("item_id", "Item id", True, ITEM_ID.synonyms, "Must be an item of the chosen dataset.")
TASK = FieldSpec("task", "Task / category", False, ("task", "category", "scenario", "domain", "type", "subset"))
JUDGE = FieldSpec("judge", "Judge", True, ("judge", "judge_model", "evaluator", "grader", "judge_name"),
                  "Or give one judge name for the whole file.")
REPETITION = FieldSpec("repetition", "Repetition", False, ("repetition", "rep", "repeat", "trial", "run", "sample"),
                       "1, 2, ... for repeated calls of the same prompt; 1 when absent.")
RAW_OUTPUT = FieldSpec("raw_output", "Raw reply", False, ("raw_output", "raw_reply", "reply", "judgment",
                                                          "judgement", "judge_output", "raw", "output", "completion",
                                                          "feedback"),
                       "The judge's full reply, parsed with the chosen parser. Give a raw reply, a parsed value, or "
                       "both.")
PROMPT_SHOWN = FieldSpec("prompt", "Prompt shown to the judge", False, ("judge_prompt", "prompt", "full_prompt"))

_ANSWER_WORDS = r"(?:response|answer|output|completion|generation|reply)s?"
_NAME_WORDS = r"(?:model|candidate|system|name|assistant)s?"
_HEADER_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"^{_ANSWER_WORDS}\s*[\(\[<]\s*(?P<name>[^\)\]>]+?)\s*[\)\]>]$", re.IGNORECASE),
    re.compile(rf"^{_ANSWER_WORDS}\s*(?:[_:\-]+|\s+(?:of|from|by)\s+|\s+)(?P<name>.+)$", re.IGNORECASE),
    re.compile(rf"^(?P<name>.+?)(?:'s)?[\s_\-:]+{_ANSWER_WORDS}$", re.IGNORECASE),
)
_SLOT_SUFFIX = re.compile(r"^(?:[a-z]|\d{1,2})$", re.IGNORECASE)


def fold(text: str) -> str:
    """Text as preference values and candidate names are matched: case and punctuation ignored ("VICUNA13B" and
    "Vicuna-13B" fold alike)."""
    return re.sub(r"[^0-9a-z]+", "", str(text).casefold())


def normalise(name: str) -> str:
    """A header as the suggestions compare it: lower case, runs of non-alphanumerics as one underscore."""
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def candidate_from_header(header: str) -> str | None:
    """The candidate a header names ("Response (ChatGPT)" -> "ChatGPT"); None when it names no answer column.

    A bare slot suffix ("response_1", "Answer A") keeps the whole header as the name.
    """
    text = header.strip()
    for pattern in _HEADER_PATTERNS:
        match = pattern.match(text)
        if match:
            name = match.group("name").strip(" _-:")
            if not name or normalise(name) in {"", "text", "content"}:
                return None
            return text if _SLOT_SUFFIX.match(name) else name
    return None


def suggest_mapping(columns: Sequence[str], fields: Sequence[FieldSpec], taken: Iterable[str] = ()) -> dict[str, str]:
    """Field -> column suggested from header names (exact synonym first, then containment); each column once."""
    used = set(taken)
    normalised = {column: normalise(column) for column in columns}
    mapping: dict[str, str] = {}
    for exact in (True, False):
        for spec in fields:
            if spec.name in mapping:
                continue
            for synonym in spec.synonyms:
                found = next((c for c in columns if c not in used and (
                    normalised[c] == synonym if exact else len(synonym) > 3 and synonym in normalised[c])), None)
                if found is not None:
                    mapping[spec.name] = found
                    used.add(found)
                    break
    return mapping


def suggest_candidate_columns(columns: Sequence[str], taken: Iterable[str] = ()) -> dict[str, str]:
    """Answer column -> candidate name for headers that name a candidate ("Response (ChatGPT)")."""
    used = set(taken)
    found = {c: candidate_from_header(c) for c in columns if c not in used}
    return {column: name for column, name in found.items() if name}


def suggest_name_columns(columns: Sequence[str]) -> dict[str, str]:
    """Answer column -> candidate-name column when they share a slot suffix (response_a next to model_a)."""
    answers: dict[str, str] = {}
    names: dict[str, str] = {}
    for column in columns:
        match = re.match(rf"^({_ANSWER_WORDS}|{_NAME_WORDS})[_\s\-]*([a-z]|\d{{1,2}})$", column.strip(), re.IGNORECASE)
        if match:
            target = names if re.fullmatch(_NAME_WORDS, match.group(1), re.IGNORECASE) else answers
            target[match.group(2).lower()] = column
    return {answers[suffix]: names[suffix] for suffix in answers if suffix in names}


_TIE_WORDS = {"tie", "draw", "equal", "both", "same", "neither", "c", "tie_bothbad", "both_bad", "both_good", "0"}
_FIRST_WORDS = {"a", "1", "first", "model_a", "response_a", "answer_a", "left", "assistant_a", "response_1"}
_SECOND_WORDS = {"b", "2", "second", "model_b", "response_b", "answer_b", "right", "assistant_b", "response_2"}


def suggest_preference_map(values: Iterable[str], targets: Sequence[str]) -> dict[str, str]:
    """Preference value -> target ('tie', a candidate name, or in name-column mode an answer column).

    A value equal to a target after case and punctuation folding suggests it ("VICUNA13B" -> "Vicuna-13B").
    ``targets`` are in slot order, so "A"/"1"/"model_a" suggest the first and "B"/"2" the second.
    Values with no obvious target are left out: the user maps them.
    """
    by_name = {normalise(t): t for t in targets}
    by_fold: dict[str, list[str]] = {}
    for target in targets:
        by_fold.setdefault(fold(target), []).append(target)
    suggested: dict[str, str] = {}
    for value in values:
        key = normalise(str(value))
        folded = by_fold.get(fold(value), [])
        if key in by_name:
            suggested[value] = by_name[key]
        elif len(folded) == 1:
            suggested[value] = folded[0]
        elif key in _TIE_WORDS:
            suggested[value] = TIE
        elif key in _FIRST_WORDS and targets:
            suggested[value] = targets[0]
        elif key in _SECOND_WORDS and len(targets) > 1:
            suggested[value] = targets[1]
        else:
            close = [t for n, t in by_name.items() if n and (n in key or key in n)]
            if len(close) == 1 and key:
                suggested[value] = close[0]
    return suggested


# A column reads as human preferences when this share of its filled cells name a candidate, a slot or a tie.
PREFERENCE_VALUE_SHARE = 0.8


def preference_share(values: Sequence[str], targets: Sequence[str]) -> float:
    """The share of ``values`` (filled cells) that a preference mapping would suggest a target for."""
    if not values:
        return 0.0
    distinct = list(dict.fromkeys(values))
    suggested = suggest_preference_map(distinct, targets)
    return sum(value in suggested for value in values) / len(values)


def suggest_preference_column(values_by_column: Mapping[str, Sequence[str]], targets: Sequence[str],
                              taken: Iterable[str] = ()) -> str | None:
    """The one free column whose values read as preferences (candidate names, A/B, tie), or None.

    Answers and prompts are long and varied, so only columns with few distinct values are considered.
    """
    used = set(taken)
    fitting = []
    for column, values in values_by_column.items():
        if column in used or not values or len(set(values)) > max(8, 2 * len(targets) + 4):
            continue
        share = preference_share(values, targets)
        if share >= PREFERENCE_VALUE_SHARE:
            fitting.append((share, column))
    if not fitting:
        return None
    fitting.sort(key=lambda found: -found[0])
    best = [column for share, column in fitting if share == fitting[0][0]]
    return best[0] if len(best) == 1 else None
