"""Which judges are measured in several studies of one dataset on different item sets, in words.

A judge's figures from two studies are only comparable on the same items: gpt-4-0613 flips 18.5% of MTBench's
full study (80 items) and 11.5% of its repetition study (24 of those 80 items). Pages and reports put the note
beside each of the judge's figures so the two numbers are never read as one judge disagreeing with itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd


def _note(sets: dict[str, frozenset[str]]) -> str:
    """One note for every study of a judge: the widest study's items first, the others measured against it."""
    widest = sorted(sets, key=lambda s: (-len(sets[s]), s))[0]
    base = sets[widest]
    parts = [f"{widest}: {len(base):,} items"]
    for study in sorted(s for s in sets if s != widest):
        own = sets[study]
        if own == base:
            parts.append(f"{study}: the same {len(own):,} items")
        elif own <= base:
            parts.append(f"{study}: {len(own):,} of the {len(base):,} items")
        else:
            parts.append(f"{study}: {len(own):,} items, {len(own & base):,} of them in {widest}")
    return "; ".join(parts)


def item_set_notes(items: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(judge, study) -> a note naming the item set of each of the judge's studies, for every judge measured in
    several studies whose item sets differ. ``items`` has one row per (study, judge, item_id)."""
    notes: dict[tuple[str, str], str] = {}
    if items.empty:
        return notes
    for judge, rows in items.groupby("judge", sort=True):
        sets = {str(study): frozenset(group["item_id"].astype(str)) for study, group in rows.groupby("study")}
        if len(sets) < 2 or len(set(sets.values())) == 1:
            continue
        note = _note(sets)
        for study in sets:
            notes[(str(judge), study)] = note
    return notes


def scoped_name(judge: str, study: str, notes: dict[tuple[str, str], str]) -> str:
    """The judge as a default view names it: with its study, and the item-set note when there is one."""
    note = notes.get((judge, study))
    return f"{judge} [{study}" + (f"; {note}]" if note else "]")


DEFAULT_VIEW_CELLS = 20  # (judge, study) rows a default view shows before it keeps to the fewest covering studies


def default_studies(study_judges: Mapping[str, Sequence[str]], limit: int = DEFAULT_VIEW_CELLS) -> list[str]:
    """The studies a default view opens on: every study (each judge of each study, MTBench's 3 + 9) when that makes
    at most ``limit`` (judge, study) rows, else the fewest studies that still hold every judge (an LLMBar subset's
    15 prompting strategies x 6 judges: one strategy with all six)."""
    if sum(len(judges) for judges in study_judges.values()) <= limit:
        return sorted(study_judges)
    missing = {j for judges in study_judges.values() for j in judges}
    chosen: list[str] = []
    while missing:
        study = min(study_judges, key=lambda s: (-len(missing & set(study_judges[s])), s))
        chosen.append(study)
        missing -= set(study_judges[study])
    return sorted(chosen)


def studies_sentence(study_judges: Mapping[str, Sequence[str]], notes: dict[tuple[str, str], str]) -> str:
    """Which study each judge shown comes from, and the item sets of judges whose studies cover different items."""
    parts = [f"{study}: {', '.join(sorted(judges))}" for study, judges in sorted(study_judges.items())]
    sentence = "Judges by study: " + "; ".join(parts) + "."
    differing = sorted({(judge, note) for (judge, study), note in notes.items() if study in study_judges
                        and sum(judge in js for js in study_judges.values()) > 1})
    if differing:
        by_note: dict[str, list[str]] = {}
        for judge, note in differing:
            by_note.setdefault(note, []).append(judge)
        sentence += " Items differ by study for " + "; ".join(
            f"{', '.join(judges)} ({note})" for note, judges in by_note.items()) + \
            ": two studies' figures of one judge are compared on the calls both hold."
    return sentence


def other_studies_sentence(study_judges: Mapping[str, Sequence[str]], study: str) -> str | None:
    """For a view of one study: the dataset's judges it does not hold and the studies that do (None when it holds
    every judge), so no judge sits in a study nothing points to."""
    here = set(study_judges.get(study, ()))
    everyone = {j for judges in study_judges.values() for j in judges}
    missing = everyone - here
    if not missing:
        return None
    where = {s: sorted(missing & set(js)) for s, js in sorted(study_judges.items()) if s != study}
    places = "; ".join(f"{s}: {', '.join(js)}" for s, js in where.items() if js)
    verb = "is" if len(missing) == 1 else "are"
    return (f"Study {study} holds {len(here)} of the dataset's {len(everyone)} judges; the other {len(missing)} "
            f"{verb} in another study ({places}): pick it above to see them.")
