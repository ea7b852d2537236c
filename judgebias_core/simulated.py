"""Which judges are simulated, and how every figure, file and page says so (issue 24).

A simulated judge is stored under the simulated provider's prefix ("simulated:demo-judge"); its results show how
an analysis reads, not how any model behaves. The chart builders (``charts.style.styled``), the download names
and the page banners all take their words from here, so a simulated judge is named the same way everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pandas as pd

SIMULATED_PREFIX = "simulated:"  # the simulated provider's judge_prefix (tests/test_simulated_marking.py checks it)
SIMULATED_FILE_MARK = "SIMULATED"
NAMED_AT_MOST = 3
# How a sentence comparing a simulated judge with people names it, after its name.
SIMULATED_WHO = " (a simulated judge, not a model)"
JUDGE_COLUMN_WORDS = ("judge", "label", "configuration", "run")
# A simulated judge's name inside a longer label ("simulated:demo-judge · summeval/runs (n=40)").
_NAME_IN_LABEL = re.compile(re.escape(SIMULATED_PREFIX) + r"[^\s,;()\[\]·<>]+")


def is_simulated(judge: object) -> bool:
    """Whether a judge's name is a simulated judge's."""
    return isinstance(judge, str) and judge.strip().startswith(SIMULATED_PREFIX)


def simulated_among(names: Iterable[object]) -> tuple[str, ...]:
    """The simulated judges named in ``names`` (judge names, or labels that contain one), each once, in order."""
    seen: dict[str, None] = {}
    for name in names:
        for found in _NAME_IN_LABEL.findall(str(name)) if isinstance(name, str) else ():
            seen.setdefault(found, None)
    return tuple(seen)


def _listed(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:NAMED_AT_MOST])
    return shown + (f" and {len(names) - NAMED_AT_MOST} more" if len(names) > NAMED_AT_MOST else "")


def judge_note(judges: Iterable[object], labels: Iterable[object] = ()) -> str:
    """The line a chart carries under its title: the judge when the chart is about one, and "simulated" whenever a
    simulated judge is among ``judges`` or among the chart's own labels (judge names on an axis or in the legend).

    Empty when there is nothing to say (several real judges: their names are on the chart itself)."""
    named = tuple(dict.fromkeys(str(j) for j in judges if j is not None and str(j)))
    simulated = simulated_among((*named, *labels))
    if simulated:
        judge_word = "judge" if len(simulated) == 1 else "judges"
        return f"Simulated {judge_word}, not a real model: {_listed(simulated)}"
    if len(named) == 1:
        return f"Judge: {named[0]}"
    return ""


def simulated_notice(judges: Iterable[object]) -> str | None:
    """The banner a page shows above results that include a simulated judge; None when none is simulated."""
    simulated = simulated_among(judges)
    if not simulated:
        return None
    these = "this judge" if len(simulated) == 1 else "these judges"
    judge_word = "judge" if len(simulated) == 1 else "judges"
    return (f"Simulated {judge_word}, not a real model: {_listed(simulated)}. Results of {these} show how the "
            "analysis reads, not how any language model behaves; every chart, table and download of them says so.")


def marked_file_stem(stem: str, judges: Iterable[object]) -> str:
    """A download's file name (without extension) that says SIMULATED when a simulated judge is in it."""
    if not simulated_among(judges) or SIMULATED_FILE_MARK in stem:
        return stem
    return f"{stem}-{SIMULATED_FILE_MARK}"


def table_judges(frame: pd.DataFrame, judges: Iterable[str] = ()) -> tuple[str, ...]:
    """``judges`` and the judge names a table holds in its judge, label or run columns (for download names)."""
    found = [str(judge) for judge in judges] + [str(column) for column in frame.columns]  # a column per judge
    for column in frame.columns:
        name = str(column).lower()
        if any(word in name for word in JUDGE_COLUMN_WORDS) and not pd.api.types.is_numeric_dtype(frame[column]):
            found += [str(value) for value in frame[column].dropna().unique()[:1000]]
    return tuple(found)
