"""Fill a template's ``{{fields}}`` and split it into system and user messages; hash templates."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judgebias_core.errors import InvalidArgument
from judgebias_core.models import Rubric
from judgebias_core.prompts.templates import SYSTEM_MARKER, USER_MARKER

FIELD_PATTERN = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
SLOT_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class RenderedPrompt:
    """What the judge is sent: an optional system message and the user message."""

    system: str
    user: str

    @property
    def text(self) -> str:
        """The whole prompt as stored with the call (and as the cache key sees it)."""
        return f"{SYSTEM_MARKER}\n{self.system}\n{USER_MARKER}\n{self.user}" if self.system else self.user


def template_id(text: str) -> str:
    """The template's id: the sha256 of its exact text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def template_fields(text: str) -> set[str]:
    return set(FIELD_PATTERN.findall(text))


def _split(text: str) -> tuple[str, str]:
    if USER_MARKER not in text:
        return "", text.strip("\n")
    head, user = text.split(USER_MARKER, 1)
    system = head.replace(SYSTEM_MARKER, "", 1).strip("\n")
    return system, user.strip("\n")


def render(text: str, values: Mapping[str, str]) -> RenderedPrompt:
    """Fill every ``{{field}}``; a field with no value is an error, never left in the prompt."""
    missing = template_fields(text) - set(values)
    if missing:
        raise InvalidArgument(f"the template uses field(s) {', '.join(sorted(missing))} that this run cannot fill")
    filled = FIELD_PATTERN.sub(lambda m: str(values[m.group(1)]), text)
    system, user = _split(filled)
    return RenderedPrompt(system=system, user=user)


def score_lines(rubric: Rubric, ordering: Sequence[int]) -> str:
    """One ``Score n: description`` line per level, in the ordering's order."""
    described = {level.level: level.description for level in rubric.levels}
    return "\n".join(f"Score {score}: {described[score]}" for score in ordering)


def rubric_values(instruction: str, response: str, rubric: Rubric, ordering: Sequence[int],
                  reference_answer: str | None) -> dict[str, str]:
    """The fields of a Prometheus absolute-grading prompt for one ordering of the rubric."""
    with_reference = bool(reference_answer)
    return {
        "instruction": instruction,
        "response": response,
        "criterion": rubric.criterion,
        "score_lines": score_lines(rubric, ordering),
        "min_score": str(min(rubric.scores)),
        "max_score": str(max(rubric.scores)),
        "reference_note": f"a reference answer that gets a score of {max(rubric.scores)}, " if with_reference else "",
        "reference_section": (f"###Reference Answer (Score {max(rubric.scores)}):\n{reference_answer}\n\n"
                              if with_reference else ""),
    }


def pairwise_values(question: str, answer_a: str, answer_b: str) -> dict[str, str]:
    return {"question": question, "answer_a": answer_a, "answer_b": answer_b}


def listwise_values(question: str, answers: Sequence[str], allow_none: bool) -> dict[str, str]:
    letters = SLOT_LETTERS[: len(answers)]
    block = "\n\n".join(
        f"[The Start of Assistant {letter}'s Answer]\n{answer}\n[The End of Assistant {letter}'s Answer]"
        for letter, answer in zip(letters, answers, strict=True)
    )
    return {
        "question": question,
        "count": str(len(answers)),
        "letters": ", ".join(letters),
        "none_instruction": ', or "[[NONE]]" if no response is clearly best' if allow_none else "",
        "answers_block": block,
    }
