"""LLMBar bundled as eight pairwise datasets: the scorecard CLI reproduces every one of the authors' 349 published
statistics (correct_False, correct_True, correct_both, equal) from the store."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from judgebias_core.cli import main
from judgebias_core.sources.llmbar import LLMBAR_DATASETS, study_name
from judgebias_core.store.handle import Store

STATISTICS = Path(__file__).resolve().parents[1] / "data" / "llmbar" / "statistics.jsonl.gz"
_FIELDS = {"correct_False": "correct_first_order", "correct_True": "correct_swapped_order",
           "correct_both": "correct_both_orders", "equal": "consistent"}


def _published() -> list[dict]:
    with gzip.open(STATISTICS, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def _count(text: str) -> tuple[int, int]:
    """'95 / 100 = 95.0%' -> (95, 100)."""
    events, rest = text.split("/")
    return int(events), int(rest.split("=")[0])


def _scorecard(db: Path, dataset: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["--db", str(db), "scorecard", "--dataset", dataset, "--json", "--resamples", "50"]) == 0
    return json.loads(capsys.readouterr().out)


def test_every_published_statistic_is_reproduced(bundled_db_master: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    published = _published()
    assert len(published) == 349
    rows: dict[tuple[str, str, str], dict] = {}
    for dataset in LLMBAR_DATASETS:
        card = _scorecard(bundled_db_master, dataset, capsys)
        assert card["has_labels"]
        rows |= {(dataset, r["judge"], r["study"]): r for r in card["rows"]}
    assert len(rows) == 349  # one row per (dataset, judge, study), no more
    for entry in published:
        row = rows[(entry["dataset_id"], entry["judge"], study_name(entry["strategy"]))]
        for theirs, ours in _FIELDS.items():
            events, pairs = _count(entry["statistics"][theirs])
            assert (row[ours], row["items"], row["pairs"]) == (events, pairs, pairs), (entry, theirs)


def test_a_row_carries_the_contract(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    card = _scorecard(bundled_db_master, "llmbar-gptout", capsys)
    row = next(r for r in card["rows"] if (r["judge"], r["study"]) == ("GPT-4", "vanilla"))
    assert row["label_kind"] == "gold" and row["items"] == 47
    assert set(row["accuracy"]) >= {"estimate", "low", "high", "method"}
    assert row["accuracy"]["low"] <= row["accuracy"]["estimate"] <= row["accuracy"]["high"]
    assert row["cost_per_1000_usd"] is None and "no price for GPT-4" in row["cost_note"]
    assert row["cost_basis"] == "not recorded"
    best = [r for r in card["rows"] if r["is_best"]]
    assert len(best) == 1 and best[0]["difference_from_best"] is None
    others = [r for r in card["rows"] if not r["is_best"]]
    assert all(r["difference_from_best"]["shared_pairs"] == 47 for r in others)
    assert card["recommendation"]["sentence"]


def test_labels_are_gold_or_human_and_calls_keep_replies(bundled_db_master: Path) -> None:
    with Store(bundled_db_master).reader() as reader:
        kinds = dict(reader.con.execute(
            "SELECT dataset_id, string_agg(DISTINCT rater_group) FROM human_labels "
            "WHERE dataset_id LIKE 'llmbar-%' GROUP BY ALL").fetchall())
        calls = reader.con.execute(
            "SELECT count(*), count(raw_output), count(*) FILTER (parse_status <> 'ok') FROM judge_calls "
            "WHERE dataset_id LIKE 'llmbar-%'").fetchall()[0]
        studies = {s for (s,) in reader.con.execute(
            "SELECT DISTINCT study FROM runs WHERE dataset_id LIKE 'llmbar-%'").fetchall()}
    assert kinds == {d: ("gold" if kind == "gold" else "human") for d, (_, kind) in LLMBAR_DATASETS.items()}
    assert calls[0] == 61_926 and calls[2] == 273  # every published call; 273 without a published winner
    assert calls[1] == calls[0]  # every call keeps its reply (Rating strategies: the two score replies)
    assert {"vanilla", "cot", "swap_cot", "metrics_reference", "rating_metrics_reference"} <= studies
