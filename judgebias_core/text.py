"""Counts written for people: the library's messages and the dashboard share one rule (ui.text re-exports it)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun: "1 problem", "3 problems", "1,204 rows"."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
