"""Issue 22: LLMBar's gold labels (the authors' answers, stored as label_source 'human', rater_group 'gold') are
named gold wherever labels are named, never people's ratings; the figures stay the same."""

from __future__ import annotations

from pathlib import Path

from judgebias_core.analyses.calibration import calibration, dataset_label_words
from judgebias_core.metrics.label_words import LabelWords, label_kind_cell, label_words
from judgebias_core.report.judges_section import calibration_row, calibration_sentence
from judgebias_core.store.handle import Store
from judgebias_core.wording.verdict import calibration_verdict
from tests.app_helpers import open_page


def test_words_per_label_kind() -> None:
    assert label_words("human", ["gold"]).phrase.startswith("the gold labels")
    assert label_words("human", ["human"]).phrase == label_words("human", ["crowd", "expert"]).phrase == (
        "people's labels")
    assert label_words("reference-judge").phrase == "a reference judge's labels (not people's)"
    assert (LabelWords("human", "gold").short, LabelWords("human", "gold").axis) == ("gold", "gold label")
    assert label_kind_cell("gold").startswith("gold") and label_kind_cell("human") == "human raters"


def test_gold_labels_are_named_gold_in_sentences_and_rows(bundled_db_master: Path) -> None:
    with Store(bundled_db_master).reader() as reader:
        gold = dataset_label_words(reader, "llmbar-natural", "human")
        people = dataset_label_words(reader, "llmbar-mtbench", "human")  # the processed set: annotators' labels
        autoj = dataset_label_words(reader, "autoj", "human")
        result = calibration(reader, "llmbar-natural", "GPT-4", "vanilla")
    assert gold.gold and not people.gold and not autoj.gold
    sentence = calibration_sentence(result, "GPT-4", gold)
    assert sentence.startswith("Against the gold labels (each pair's correct answer as the dataset's authors set it")
    assert "people" not in sentence.split(" on ")[0]
    assert calibration_row(result, gold)["labels"] == "gold"
    assert "people's" not in " ".join(line.text for line in calibration_verdict(result, words=gold).lines)
    # the figures do not move with the words
    assert calibration_verdict(result, words=gold).figures == calibration_verdict(result).figures


def test_calibration_page_names_gold_labels(app_env: Path) -> None:
    at = open_page("calibration.py", query={"cal_dataset": "llmbar-natural"})
    assert not at.exception
    assert any("**gold labels**" in i.value for i in at.info)
    markdown = " ".join(m.value for m in at.markdown)
    assert "agrees with the gold labels" in markdown and "people's labels" not in markdown
    assert any("gold label says (n)" in d.value.columns for d in at.dataframe)
