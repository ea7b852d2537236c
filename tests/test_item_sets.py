"""Issue 22: a judge measured in several studies on different items says so; default views cover every judge."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judgebias_core.analyses.pairwise import pairwise_metrics, study_item_notes
from judgebias_core.metrics.item_sets import (
    default_studies,
    item_set_notes,
    other_studies_sentence,
    studies_sentence,
)
from judgebias_core.store.handle import Store
from judgebias_core.wording.verdict_studies import verdicts_across_studies


def _items(rows: list[tuple[str, str, list[str]]]) -> pd.DataFrame:
    return pd.DataFrame([(study, judge, item) for study, judge, items in rows for item in items],
                        columns=["study", "judge", "item_id"])


def test_notes_name_each_studys_items() -> None:
    notes = item_set_notes(_items([("full", "a", ["1", "2", "3"]), ("rep", "a", ["1"]), ("other", "a", ["1", "9"]),
                                   ("full", "b", ["1", "2"]), ("rep", "b", ["1", "2"]), ("rep", "c", ["1"])]))
    assert notes[("a", "rep")] == notes[("a", "full")] == (
        "full: 3 items; other: 2 items, 1 of them in full; rep: 1 of the 3 items")
    assert ("b", "full") not in notes and ("c", "rep") not in notes  # same items, or one study only


def test_default_studies_show_every_judge() -> None:
    few = {"full": ["a", "b"], "rep": ["a", "b", "c"]}
    assert default_studies(few) == ["full", "rep"]
    assert other_studies_sentence(few, "rep") is None
    assert other_studies_sentence(few, "full") == ("Study full holds 2 of the dataset's 3 judges; the other 1 is in "
                                                   "another study (rep: c): pick it above to see them.")
    many = {f"s{i:02d}": ["a", "b", "c"] for i in range(10)} | {"z": ["d"]}
    assert default_studies(many) == ["s00", "z"]  # the fewest studies that still hold every judge
    sentence = studies_sentence(few, {("a", "full"): "full: 3 items; rep: 1 of the 3 items",
                                      ("a", "rep"): "full: 3 items; rep: 1 of the 3 items"})
    assert sentence.startswith("Judges by study: full: a, b; rep: a, b, c.")
    assert "Items differ by study for a (full: 3 items; rep: 1 of the 3 items)" in sentence


def test_mtbench_verdicts_name_the_study_and_the_subset(bundled_db_master: Path) -> None:
    with Store(bundled_db_master).reader() as reader:
        results = pairwise_metrics(reader, "mtbench")
        notes = study_item_notes(reader, "mtbench")
        assert study_item_notes(reader, "llmbar-natural") == {}  # every strategy on the same items
    verdicts = verdicts_across_studies(results, notes)
    assert len(verdicts) == 12 and {v.figures["study"] for v in verdicts} == {"full", "repetition"}
    gpt4 = {v.figures["study"]: v for v in verdicts if v.subject.startswith("gpt-4-0613 ")}
    assert gpt4["full"].figures["items"] == 80 and gpt4["repetition"].figures["items"] == 24
    assert gpt4["repetition"].subject == ("gpt-4-0613 · study repetition (items differ by study: full: 80 items; "
                                          "repetition: 24 of the 80 items)")
    assert gpt4["repetition"].lines[0].text.startswith("gpt-4-0613 [repetition] flips")
