"""How pages and reports name a dataset's labels: people's ratings, gold labels set by the dataset's authors, or a
reference judge's scores. LLMBar's five own subsets carry gold labels (the authors decided each pair's correct
answer); they are stored as ``label_source='human'`` with ``rater_group='gold'`` and must not read as ratings
collected from human raters. Only words change here: every figure stays the same."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

GOLD = "gold"
REFERENCE = "reference-judge"


@dataclass(frozen=True)
class LabelWords:
    """``source`` as stored (human | reference-judge); ``group`` the raters' group when the labels have one."""

    source: str
    group: str | None = None

    @property
    def reference(self) -> bool:
        return self.source != "human" or self.group == REFERENCE

    @property
    def gold(self) -> bool:
        return not self.reference and self.group == GOLD

    @property
    def phrase(self) -> str:
        """In a sentence: 'agrees with ...', 'not a substitute for ...'."""
        if self.reference:
            return "a reference judge's labels (not people's)"
        if self.gold:
            return "the gold labels (each pair's correct answer as the dataset's authors set it, not human raters')"
        return "people's labels"

    @property
    def short(self) -> str:
        """In a table cell or a title: 'labels: ...', 'X against ... labels'."""
        return "reference judge" if self.reference else ("gold" if self.gold else "human")

    @property
    def axis(self) -> str:
        """A confusion matrix's label axis and a class table's column: '... says'."""
        return "reference judge" if self.reference else ("gold label" if self.gold else "human")


def label_words(source: str, groups: Sequence[str] = ()) -> LabelWords:
    """The words for labels of ``source`` whose raters belong to ``groups`` (a single group names them)."""
    distinct = sorted(set(groups))
    return LabelWords(source, distinct[0] if len(distinct) == 1 else None)


def label_kind_cell(group: str | None) -> str:
    """A scorecard row's labels in a table cell: gold labels are never called people's ratings."""
    if group is None:
        return "none"
    if group == GOLD:
        return "gold (set by the authors, not raters)"
    if group == REFERENCE:
        return "reference judge"
    return "human raters" if group == "human" else f"human raters ({group})"
