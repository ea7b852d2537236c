"""Load the bundled real datasets (data/) into the store. Idempotent: a second import adds nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pandas as pd

from judgebias_core.identity import stable_id
from judgebias_core.models import NO_REPLY, PARSE_FAILED, PARSE_OK, PARSER_PREPARSED, Rubric
from judgebias_core.sources.common import call_ids, join_turns, judges_frame
from judgebias_core.sources.llmbar import LLMBAR_DATASETS, LlmbarFiles, llmbar_batch
from judgebias_core.sources.summeval_rubrics import SUMMEVAL_DIMENSIONS, summeval_rubric
from judgebias_core.store.connection import PROJECT_ROOT
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import dataset_summaries
from judgebias_core.store.writes import StoreBatch, WriteResult, write_batch

BUNDLED_DATA_DIR = PROJECT_ROOT / "data"

JTJ_SOURCE = 'Shi et al., "Judging the Judges" (arXiv 2406.07791), Position-Bias-Analyzer repository'
JTJ_LICENCE = "MIT (c) 2024 Slimshilin"
APACHE = "Apache-2.0"

# (dataset id, name, baseline, parser, verdict pattern) for the two Judging-the-Judges benchmarks
_JTJ = {
    "mtbench": ("MTBench (Judging the Judges)", "vicuna-13b-v1.3", "mtbench", r"\[\[([ABCD])\]\]"),
    "devbench": ("DevBench (Judging the Judges)", "human", "devbench", r"(?:选择：|Choice: )([ABCD])"),
}


@dataclass(frozen=True)
class ImportReport:
    dataset_id: str
    inserted: dict[str, int]


def _read(path: Path) -> pd.DataFrame:
    return pd.read_json(path, lines=True, dtype=False, compression="gzip")


def _dataset_row(dataset_id: str, name: str, dataset_kind: str, source: str, licence: str, description: str,
                 baseline: str | None = None) -> pd.DataFrame:
    return pd.DataFrame([{
        "dataset_id": dataset_id, "name": name, "kind": dataset_kind, "source": source, "licence": licence,
        "description": description, "baseline_candidate": baseline, "origin": "bundled",
    }])


def _rubric_frames(rubrics: list[Rubric], dataset_id: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    heads = pd.DataFrame([
        {"rubric_id": r.rubric_id, "criterion": r.criterion, "k": r.k, "source": r.source, "dataset_id": dataset_id}
        for r in rubrics
    ])
    levels = pd.DataFrame([
        {"rubric_id": r.rubric_id, "level": level.level, "description": level.description}
        for r in rubrics for level in r.levels
    ])
    return heads, levels


def _jtj_batch(dataset_id: str, data_dir: Path) -> StoreBatch:
    name, baseline, parser, pattern = _JTJ[dataset_id]
    folder = data_dir / "judging-the-judges"
    raw_items = _read(folder / f"{dataset_id}_items.jsonl.gz")
    items = pd.DataFrame({
        "dataset_id": dataset_id,
        "item_id": raw_items["item_id"].astype(str),
        "seq": range(len(raw_items)),
        "task": raw_items["task"],
        "question": raw_items["turns"].map(join_turns),
        "turns": raw_items["turns"],
        "reference_answer": raw_items["reference_answers"].map(lambda refs: join_turns(refs) or None),
        "metadata": [
            json.dumps({"evaluating_guidance": g} if isinstance(g, str) else {})
            for g in raw_items.get("evaluating_guidance", pd.Series([None] * len(raw_items)))
        ],
    })
    answers = pd.DataFrame([
        {"dataset_id": dataset_id, "item_id": str(row.item_id), "candidate": model,
         "answer": join_turns(turns), "turns": list(turns)}
        for row in raw_items.itertuples() for model, turns in row.answers.items() if turns is not None
    ])
    calls = _read(folder / f"{dataset_id}_judgments.jsonl.gz")
    calls["item_id"] = calls["item_id"].astype(str)
    verdict = calls["raw_output"].str.extract(pattern, expand=False)
    parsed = verdict.isin(["A", "B", "C"]) & ~((calls["options"] == 2) & (verdict == "C"))
    frame = pd.DataFrame({
        "run_id": "bundled:" + dataset_id + ":" + calls["study"],
        "dataset_id": dataset_id,
        "study": calls["study"],
        "judge": calls["judge"],
        "item_id": calls["item_id"],
        "kind": "pairwise",
        "repetition": calls["repetition"].astype(int),
        "options": calls["options"].astype(int),
        "slots": [[a, b] for a, b in zip(calls["first"], calls["second"], strict=True)],
        "first_candidate": calls["first"],
        "second_candidate": calls["second"],
        "order_label": (calls["first"] == baseline).map({True: "original", False: "swapped"}),
        "raw_output": calls["raw_output"],
        "verdict": verdict.where(parsed),
        "parse_status": parsed.map({True: PARSE_OK, False: PARSE_FAILED}),
        "parser": parser,
        "error": None,
    })
    frame.loc[~parsed, "error"] = f"no verdict matching {pattern}"
    frame.insert(0, "call_id", call_ids(frame, ["dataset_id", "study", "judge", "item_id", "first_candidate",
                                                  "second_candidate", "repetition"]))
    runs = _recorded_runs(frame, dataset_id, "pairwise-swap")
    return StoreBatch(
        datasets=_dataset_row(dataset_id, name, "pairwise", JTJ_SOURCE, JTJ_LICENCE,
                              f"{len(items)} questions; every candidate judged against {baseline} in both orders.",
                              baseline),
        items=items, answers=answers, judges=judges_frame(frame["judge"], "recorded"), runs=runs, judge_calls=frame,
    )


def _recorded_runs(calls: pd.DataFrame, dataset_id: str, protocol: str) -> pd.DataFrame:
    grouped = calls.groupby("study").size().reset_index(name="planned")
    return pd.DataFrame({
        "run_id": "bundled:" + dataset_id + ":" + grouped["study"],
        "dataset_id": dataset_id,
        "study": grouped["study"],
        "origin": "bundled",
        "protocol": grouped["study"].map(lambda s: "repetition" if s == "repetition" else protocol),
        "provider": "recorded",
        "status": "complete",
        "planned": grouped["planned"].astype(int),
        "params": json.dumps({"note": "published judge calls, imported as recorded"}),
    })


def _autoj_batch(data_dir: Path) -> StoreBatch:
    dataset_id = "autoj"
    folder = data_dir / "autoj-pairwise"
    pairs = _read(folder / "pairs.jsonl.gz")
    pairs["item_id"] = pairs["pair_id"].astype(str)
    items = pd.DataFrame({
        "dataset_id": dataset_id, "item_id": pairs["item_id"], "seq": range(len(pairs)),
        "task": pairs["scenario"], "question": pairs["prompt"], "turns": pairs["prompt"].map(lambda p: [p]),
    })
    answers = pd.concat([
        pd.DataFrame({"dataset_id": dataset_id, "item_id": pairs["item_id"], "candidate": column,
                      "answer": pairs[column], "turns": pairs[column].map(lambda a: [a])})
        for column in ("response_1", "response_2")
    ])
    labels = pd.DataFrame({
        "dataset_id": dataset_id, "item_id": pairs["item_id"], "rater": "human", "rater_group": "human",
        "label_source": "human", "rubric_id": "", "preference": pairs["human_label"],
    })
    verdicts = _read(folder / "autoj_verdicts.jsonl.gz")
    letter = verdicts["verdict"].map({"first": "A", "second": "B", "tie": "C"})
    frame = pd.DataFrame({
        "run_id": "bundled:autoj:full", "dataset_id": dataset_id, "study": "full", "judge": verdicts["judge"],
        "item_id": verdicts["pair_id"].astype(str), "kind": "pairwise", "repetition": 1, "options": 3,
        "slots": [[a, b] for a, b in zip(verdicts["first"], verdicts["second"], strict=True)],
        "first_candidate": verdicts["first"], "second_candidate": verdicts["second"],
        "order_label": verdicts["order"], "raw_output": None, "verdict": letter,
        "parse_status": letter.notna().map({True: PARSE_OK, False: NO_REPLY}),
        "parser": PARSER_PREPARSED,
    })
    frame.insert(0, "call_id", call_ids(frame, ["dataset_id", "study", "judge", "item_id", "first_candidate",
                                                  "second_candidate", "repetition"]))
    return StoreBatch(
        datasets=_dataset_row(
            dataset_id, "Auto-J pairwise (human-labelled)", "pairwise",
            "Auto-J project data, via the prometheus-eval repository", APACHE,
            f"{len(pairs)} response pairs over {pairs['scenario'].nunique()} scenarios with human preferences; "
            "Auto-J-13B verdicts in both orders, published without the judge's replies (stored pre-parsed).",
            "response_1"),
        items=items, answers=answers, human_labels=labels, judges=judges_frame(frame["judge"], "recorded"),
        runs=_recorded_runs(frame, dataset_id, "pairwise-swap"), judge_calls=frame,
    )


def _prometheus_batch(dataset_id: str, file_name: str, name: str, data_dir: Path) -> StoreBatch:
    raw = _read(data_dir / "prometheus-rubric" / file_name)
    rubrics: dict[str, Rubric] = {}
    rubric_ids = []
    for row in raw.itertuples():
        levels = tuple(sorted((int(k), v) for k, v in row.score_descriptions.items()))
        rubric_id = "prometheus-" + stable_id(row.criteria, levels)[:12]
        rubric_ids.append(rubric_id)
        if rubric_id not in rubrics:
            from judgebias_core.models import RubricLevel  # noqa: PLC0415 - local to keep the import list short

            rubrics[rubric_id] = Rubric(rubric_id, row.criteria, tuple(RubricLevel(lv, d) for lv, d in levels),
                                        source=f"prometheus-eval {file_name}")
    items = pd.DataFrame({
        "dataset_id": dataset_id, "item_id": raw["item_id"], "seq": range(len(raw)), "task": raw["category"],
        "question": raw["instruction"], "turns": raw["instruction"].map(lambda t: [t]), "response": raw["response"],
        "candidate": raw["response_source"], "reference_answer": raw["reference_answer"], "rubric_id": rubric_ids,
        "metadata": raw["question_id"].map(lambda q: json.dumps({"question_id": int(q)})),
    })
    labels = pd.DataFrame([
        {"dataset_id": dataset_id, "item_id": item_id, "rater": f"gpt-4 #{i}", "rater_group": "reference-judge",
         "label_source": "reference-judge", "rubric_id": rubric_id, "score": float(score)}
        for item_id, rubric_id, scores in zip(raw["item_id"], rubric_ids, raw["gpt4_scores"], strict=True)
        for i, score in enumerate(scores, start=1)
    ])
    heads, levels = _rubric_frames(list(rubrics.values()), dataset_id)
    return StoreBatch(
        datasets=_dataset_row(
            dataset_id, name, "pointwise", "prometheus-eval repository (Prometheus absolute-grading sets)", APACHE,
            f"{len(raw)} responses, each with its own 5-level rubric; GPT-4's three scores are a reference "
            "judge's labels, not human ones."),
        rubrics=heads, rubric_levels=levels, items=items, human_labels=labels,
    )


def _summeval_batch(data_dir: Path) -> StoreBatch:
    dataset_id = "summeval"
    raw = _read(data_dir / "summeval" / "expert_annotations.jsonl.gz")
    items = pd.DataFrame({
        "dataset_id": dataset_id, "item_id": raw["item_id"], "seq": range(len(raw)), "task": "summarization",
        "question": "Summarize the following news article.\n\n" + raw["article"],
        "turns": raw["article"].map(lambda a: [a]), "response": raw["summary"], "candidate": raw["system"],
        "reference_answer": raw["references"].map(lambda refs: refs[0] if len(refs) else None),
        "rubric_id": "summeval-coherence",
        "metadata": [json.dumps({"doc_id": d, "references": list(r)}) for d, r in zip(raw["doc_id"], raw["references"],
                                                                                   strict=True)],
    })
    labels = pd.DataFrame([
        {"dataset_id": dataset_id, "item_id": row.item_id, "rater": f"expert-{i}", "rater_group": "expert",
         "label_source": "human", "rubric_id": f"summeval-{dimension}", "score": float(score)}
        for row in raw.itertuples() for dimension in SUMMEVAL_DIMENSIONS
        for i, score in enumerate(row.expert_scores[dimension], start=1)
    ])
    heads, levels = _rubric_frames([summeval_rubric(d) for d in SUMMEVAL_DIMENSIONS], dataset_id)
    return StoreBatch(
        datasets=_dataset_row(
            dataset_id, "SummEval expert annotations", "pointwise",
            "SummEval (Fabbri et al., 2021), public copy of its expert annotations", "MIT",
            f"{len(raw)} summaries ({raw['doc_id'].nunique()} CNN/DailyMail articles x {raw['system'].nunique()} "
            "systems), three expert ratings 1-5 on coherence, consistency, fluency and relevance."),
        rubrics=heads, rubric_levels=levels, items=items, human_labels=labels,
    )


BUNDLED_DATASETS: tuple[str, ...] = ("mtbench", "devbench", "autoj", "prometheus-vicuna", "prometheus-mt-bench",
                                     "summeval", *LLMBAR_DATASETS)


@lru_cache(maxsize=1)
def _llmbar_files(data_dir: Path) -> LlmbarFiles:
    """LLMBar's derived files, read once for its eight datasets."""
    return LlmbarFiles(data_dir)


def bundled_batch(dataset_id: str, data_dir: Path = BUNDLED_DATA_DIR) -> StoreBatch:
    """The store records of one bundled dataset."""
    if dataset_id in _JTJ:
        return _jtj_batch(dataset_id, data_dir)
    if dataset_id == "autoj":
        return _autoj_batch(data_dir)
    if dataset_id == "prometheus-vicuna":
        return _prometheus_batch(dataset_id, "vicuna.jsonl.gz", "Prometheus Vicuna-bench (rubric-scored)", data_dir)
    if dataset_id == "prometheus-mt-bench":
        return _prometheus_batch(dataset_id, "mt_bench.jsonl.gz", "Prometheus MT-Bench (rubric-scored)", data_dir)
    if dataset_id == "summeval":
        return _summeval_batch(data_dir)
    if dataset_id in LLMBAR_DATASETS:
        return llmbar_batch(dataset_id, _llmbar_files(data_dir))
    raise KeyError(dataset_id)


def import_bundled(store: Store, datasets: tuple[str, ...] = BUNDLED_DATASETS,
                   data_dir: Path = BUNDLED_DATA_DIR, force: bool = False) -> list[ImportReport]:
    """Import the bundled datasets into the store; each dataset in one transaction.

    A dataset already in the store is skipped (each was written whole, in one transaction) unless ``force``
    asks to re-read it, which still inserts only rows that are missing.
    """
    with store.reader() as reader:
        present = {summary.id for summary in dataset_summaries(reader)}
    reports = []
    for dataset_id in datasets:
        if dataset_id in present and not force:
            reports.append(ImportReport(dataset_id=dataset_id, inserted={}))
            continue
        result: WriteResult = write_batch(store, bundled_batch(dataset_id, data_dir))
        reports.append(ImportReport(dataset_id=dataset_id, inserted=result.inserted))
    return reports
