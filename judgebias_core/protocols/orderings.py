"""Orderings of rubric score options: which score is shown at which position.

An ordering is a tuple of scores in position order: (2, 3, 4, 5, 1) shows score 2 at position 1.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Literal

from judgebias_core.errors import InvalidArgument
from judgebias_core.run_types import Ordering

OrderingDesign = Literal["balanced", "reverse", "latin", "all", "canonical"]
MAX_ALL_PERMUTATIONS_K = 6  # 6! = 720 orderings; beyond that "all" is not a practical design


def canonical(scores: Sequence[int]) -> Ordering:
    """The rubric's own order (1..k)."""
    return tuple(sorted(scores))


def rotations(order: Sequence[int]) -> list[Ordering]:
    """The k forward cyclic rotations of ``order``, starting with ``order`` itself."""
    values = tuple(order)
    return [values[i:] + values[:i] for i in range(len(values))]


def balanced_orderings(scores: Sequence[int]) -> list[Ordering]:
    """The 2k orderings of METHODS.md section 1: k rotations of (1..k) and k rotations of (k..1).

    Every score appears exactly twice at every position.
    """
    forward = canonical(scores)
    return rotations(forward) + rotations(tuple(reversed(forward)))


def reverse_orderings(scores: Sequence[int]) -> list[Ordering]:
    """The canonical ordering and its reversal."""
    forward = canonical(scores)
    return [forward, tuple(reversed(forward))]


def latin_square_orderings(scores: Sequence[int]) -> list[Ordering]:
    """k orderings (the forward rotations) in which every score appears once at every position."""
    return rotations(canonical(scores))


def all_orderings(scores: Sequence[int]) -> list[Ordering]:
    """Every permutation of the scores; only for small k."""
    if len(scores) > MAX_ALL_PERMUTATIONS_K:
        raise InvalidArgument(
            f"all orderings of {len(scores)} options would be {math.factorial(len(scores)):,} orderings; "
            f"use it for k <= {MAX_ALL_PERMUTATIONS_K}"
        )
    return [tuple(p) for p in itertools.permutations(canonical(scores))]


def parse_ordering_list(text: str, scores: Sequence[int]) -> list[Ordering]:
    """A user's list such as ``12345,54321`` or ``[[1,2,3],[3,2,1]]``; each must be a permutation of the scores."""
    import json  # noqa: PLC0415

    stripped = text.strip()
    if stripped.startswith("["):
        try:
            raw = json.loads(stripped)
        except json.JSONDecodeError as error:
            raise InvalidArgument(f"orderings {text!r} are not valid JSON: {error}") from error
        candidates = [tuple(int(x) for x in entry) for entry in raw]
    else:
        candidates = []
        for part in stripped.split(","):
            token = part.strip()
            if not token:
                continue
            if not token.isdigit():
                raise InvalidArgument(f"ordering {token!r} is not a list of score digits such as 12345")
            candidates.append(tuple(int(ch) for ch in token))
    expected = sorted(scores)
    for ordering in candidates:
        if sorted(ordering) != expected:
            raise InvalidArgument(f"ordering {list(ordering)} is not a permutation of the scores {expected}")
    if not candidates:
        raise InvalidArgument("no ordering given")
    return candidates


def orderings_for(design: str, scores: Sequence[int]) -> list[Ordering]:
    """The orderings of a named design (balanced, reverse, latin, all, canonical) or of a user's list."""
    if design == "balanced":
        return balanced_orderings(scores)
    if design == "reverse":
        return reverse_orderings(scores)
    if design == "latin":
        return latin_square_orderings(scores)
    if design == "all":
        return all_orderings(scores)
    if design == "canonical":
        return [canonical(scores)]
    return parse_ordering_list(design, scores)


def is_balanced(orderings: Sequence[Sequence[int]]) -> bool:
    """True when every score appears equally often at every position (score and position not confounded)."""
    if not orderings:
        return False
    k = len(orderings[0])
    counts: dict[tuple[int, int], int] = {}
    for ordering in orderings:
        if len(ordering) != k:
            return False
        for position, score in enumerate(ordering, start=1):
            counts[(score, position)] = counts.get((score, position), 0) + 1
    scores = {score for ordering in orderings for score in ordering}
    expected = len(orderings) / k
    return len(scores) == k and all(counts.get((s, p), 0) == expected for s in scores for p in range(1, k + 1))


def chosen_position(ordering: Sequence[int], score: int) -> int | None:
    """The 1-based position at which ``score`` was shown, or None when it was not an option."""
    for position, shown in enumerate(ordering, start=1):
        if shown == score:
            return position
    return None
