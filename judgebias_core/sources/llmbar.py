"""LLMBar (Zeng et al., ICLR 2024) as eight bundled pairwise datasets, one study per prompting strategy.

data/llmbar/ is derived from the published tarball by scripts/derive_llmbar.py: every pair with its label, every
judge call with its reply verbatim and the authors' published winner, and the authors' statistics. The published
winner is the verdict (the authors' parsing; a call without one is stored as a parse failure with its reply).
Candidates are ``output_1`` and ``output_2``; the original order shows ``output_1`` first (LLMBar's "swap = False").
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from judgebias_core.models import NO_REPLY, PARSE_FAILED, PARSE_OK, PARSER_PREPARSED
from judgebias_core.sources.common import call_ids, judges_frame
from judgebias_core.store.writes import StoreBatch

LLMBAR_FOLDER = "llmbar"
LLMBAR_SOURCE = ('Zeng et al., "Evaluating Large Language Models at Evaluating Instruction Following" '
                 "(LLMBar, ICLR 2024), princeton-nlp/LLMBar repository")
LLMBAR_LICENCE = "MIT (c) 2023 Princeton Natural Language Processing"
BASELINE = "output_1"
CANDIDATES = ("output_1", "output_2")
# rater_group of the labels: the LLMBar subsets' objective judgement by the authors, or the processed sets' human
# annotators. label_source stays 'human' (people made both), rater_group says which kind.
GOLD = "gold"
HUMAN = "human"

# dataset id -> (name, description of its labels)
LLMBAR_DATASETS: dict[str, tuple[str, str]] = {
    "llmbar-natural": ("LLMBar Natural", "gold"),
    "llmbar-neighbor": ("LLMBar Adversarial: Neighbor", "gold"),
    "llmbar-gptinst": ("LLMBar Adversarial: GPTInst", "gold"),
    "llmbar-gptout": ("LLMBar Adversarial: GPTOut", "gold"),
    "llmbar-manual": ("LLMBar Adversarial: Manual", "gold"),
    "llmbar-faireval": ("LLMBar processed FairEval", "human"),
    "llmbar-llmeval2": ("LLMBar processed LLMEval^2", "human"),
    "llmbar-mtbench": ("LLMBar processed MT-Bench", "human"),
}
_LABEL_WORDS = {
    GOLD: "gold labels (the LLMBar authors' objective instruction-following judgement)",
    HUMAN: "human labels (the original dataset's annotators; ties removed by the LLMBar authors)",
}


def study_name(strategy: str) -> str:
    """LLMBar's strategy folder as a study: ``Metrics_Reference`` -> ``metrics_reference``."""
    return strategy.lower()


def _read(path: Path) -> pd.DataFrame:
    return pd.read_json(path, lines=True, dtype=False, compression="gzip")


class LlmbarFiles:
    """The three derived files, read once for all eight datasets (the judgments file is the slow part)."""

    def __init__(self, data_dir: Path) -> None:
        folder = data_dir / LLMBAR_FOLDER
        self.pairs = _read(folder / "pairs.jsonl.gz")
        self.judgments = _read(folder / "judgments.jsonl.gz")


def _raw_output(reply: object, scores: object) -> str | None:
    """The judge's reply verbatim; the Rating strategies' two score replies (one per output, shared by both orders)
    as the JSON object the authors published."""
    if isinstance(reply, str):
        return reply
    if isinstance(scores, dict):
        return json.dumps(scores, ensure_ascii=False, sort_keys=True)
    return None


def _calls_frame(dataset_id: str, judgments: pd.DataFrame) -> pd.DataFrame:
    rows = judgments[judgments["dataset_id"] == dataset_id].reset_index(drop=True)
    original = (rows["order"] == "original").to_numpy()
    first = np.where(original, CANDIDATES[0], CANDIDATES[1])
    second = np.where(original, CANDIDATES[1], CANDIDATES[0])
    winner = rows["winner"].where(rows["winner"].isin(["1", "2"]))
    # the published winner names an output; the verdict names a slot (A = the first slot's output won)
    first_won = winner == pd.Series(np.where(original, "1", "2"))
    verdict = pd.Series(np.where(first_won, "A", "B"), dtype=object).where(winner.notna())
    raw = [_raw_output(reply, scores) for reply, scores in zip(rows["reply"], rows["scores"], strict=True)]
    status = np.where(winner.notna(), PARSE_OK, np.where(pd.Series(raw).notna(), PARSE_FAILED, NO_REPLY))
    study = rows["strategy"].map(study_name)
    frame = pd.DataFrame({
        "run_id": "bundled:" + dataset_id + ":" + study,
        "dataset_id": dataset_id,
        "study": study,
        "judge": rows["judge"],
        "item_id": rows["item_id"],
        "kind": "pairwise",
        "repetition": 1,
        "options": 2,
        "slots": [[a, b] for a, b in zip(first, second, strict=True)],
        "first_candidate": first,
        "second_candidate": second,
        "order_label": rows["order"],
        "prompt": rows["prompt"],
        "raw_output": raw,
        "verdict": verdict,
        "parse_status": status,
        "parser": PARSER_PREPARSED,
        "error": pd.Series("no published winner for this call", index=rows.index).where(winner.isna()),
    })
    frame.insert(0, "call_id", call_ids(frame, ["dataset_id", "study", "judge", "item_id", "first_candidate",
                                                  "second_candidate", "repetition"]))
    return frame


def _runs_frame(dataset_id: str, calls: pd.DataFrame, judgments: pd.DataFrame) -> pd.DataFrame:
    strategies = judgments.loc[judgments["dataset_id"] == dataset_id, "strategy"].drop_duplicates()
    planned = calls.groupby("study").size()
    return pd.DataFrame({
        "run_id": ["bundled:" + dataset_id + ":" + study_name(s) for s in strategies],
        "dataset_id": dataset_id,
        "study": [study_name(s) for s in strategies],
        "origin": "bundled",
        "protocol": "pairwise-swap",
        "provider": "recorded",
        "status": "complete",
        "planned": [int(planned[study_name(s)]) for s in strategies],
        "params": [json.dumps({"note": "published judge calls, imported as recorded", "prompting_strategy": s,
                               "verdict": "the authors' published winner"}) for s in strategies],
    })


def llmbar_batch(dataset_id: str, files: LlmbarFiles) -> StoreBatch:
    """The store records of one LLMBar dataset."""
    name, label_kind = LLMBAR_DATASETS[dataset_id]
    pairs = files.pairs[files.pairs["dataset_id"] == dataset_id].sort_values("seq").reset_index(drop=True)
    items = pd.DataFrame({
        "dataset_id": dataset_id, "item_id": pairs["item_id"], "seq": pairs["seq"].astype(int),
        "task": pairs["subset"], "question": pairs["input"], "turns": pairs["input"].map(lambda text: [text]),
    })
    answers = pd.concat([
        pd.DataFrame({"dataset_id": dataset_id, "item_id": pairs["item_id"], "candidate": column,
                      "answer": pairs[column], "turns": pairs[column].map(lambda text: [text])})
        for column in CANDIDATES
    ])
    labels = pd.DataFrame({
        "dataset_id": dataset_id, "item_id": pairs["item_id"],
        "rater": "llmbar-authors" if label_kind == GOLD else "annotators", "rater_group": label_kind,
        "label_source": "human", "rubric_id": "",
        "preference": pairs["label"].map({1: CANDIDATES[0], 2: CANDIDATES[1]}),
    })
    calls = _calls_frame(dataset_id, files.judgments)
    judges = calls["judge"].drop_duplicates().tolist()
    studies = calls["study"].nunique()
    description = (f"{len(pairs)} instruction-following pairs (output_1 vs output_2) with {_LABEL_WORDS[label_kind]}; "
                   f"{len(judges)} judges ({', '.join(sorted(judges))}) under {studies} prompting strategies (one "
                   "study each), every pair judged in both orders; verdicts are the authors' published winners.")
    return StoreBatch(
        datasets=pd.DataFrame([{
            "dataset_id": dataset_id, "name": name, "kind": "pairwise", "source": LLMBAR_SOURCE,
            "licence": LLMBAR_LICENCE, "description": description, "baseline_candidate": BASELINE,
            "origin": "bundled",
        }]),
        items=items, answers=answers, human_labels=labels,
        judges=judges_frame(calls["judge"], "recorded", description="LLMBar evaluator (as the LLMBar authors name it)"),
        runs=_runs_frame(dataset_id, calls, files.judgments), judge_calls=calls,
    )
