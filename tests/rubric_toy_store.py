"""A small hand-made rubric store (k = 3) whose metrics are computed by hand in tests/test_metrics_rubric.py.

Items i1..i4 with human means 1, 2, 3, 2.5. Permutation run ``toy-perm`` (balanced set, 6 orderings): on i1 and i2
the judge always picks position 1; on i3 it always answers 3; on i4 it answers 2, except one reply under (1,3,2)
that failed to parse. Repeat run ``toy-repeat``: canonical ordering 6 times per item. Probe run ``toy-probe``:
orderings (1,2,3) and (2,3,1) on i1, always position 1 (score 3 never chosen).
"""

from __future__ import annotations

import json
import os

import pandas as pd

from judgebias_core.protocols.orderings import balanced_orderings
from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch

DATASET = "toy-rubric"
RUBRIC = "toy-k3"
JUDGE = "toy-judge"
LABELS = {"i1": (1, 1), "i2": (2, 2), "i3": (3, 3), "i4": (2, 3)}
BALANCED_K3 = balanced_orderings([1, 2, 3])
FAILED = ("i4", (1, 3, 2))


def _call(run_id: str, item_id: str, ordering: tuple[int, ...], repetition: int, score: int | None) -> dict:
    return {
        "call_id": f"{run_id}:{item_id}:{''.join(map(str, ordering))}:{repetition}", "run_id": run_id,
        "dataset_id": DATASET, "study": run_id, "judge": JUDGE, "item_id": item_id, "kind": "rubric",
        "repetition": repetition, "ordering": list(ordering), "rubric_id": RUBRIC, "score": score,
        "chosen_position": None if score is None else ordering.index(score) + 1,
        "parse_status": "ok" if score is not None else "failed", "parser": "prometheus",
        "raw_output": f"Feedback: toy [RESULT] {score}" if score is not None else "no score here",
    }


def permutation_calls() -> list[dict]:
    calls = []
    for ordering in BALANCED_K3:
        calls.append(_call("toy-perm", "i1", ordering, 1, ordering[0]))
        calls.append(_call("toy-perm", "i2", ordering, 1, ordering[0]))
        calls.append(_call("toy-perm", "i3", ordering, 1, 3))
        calls.append(_call("toy-perm", "i4", ordering, 1, None if ("i4", ordering) == FAILED else 2))
    return calls


REPEAT_SCORES = {"i1": [1] * 6, "i2": [1, 2] * 3, "i3": [3] * 6, "i4": [2, 3] * 3}


def repeat_calls() -> list[dict]:
    return [_call("toy-repeat", item, (1, 2, 3), rep, score)
            for item, scores in REPEAT_SCORES.items() for rep, score in enumerate(scores, start=1)]


def probe_calls() -> list[dict]:
    return [_call("toy-probe", "i1", ordering, 1, ordering[0]) for ordering in [(1, 2, 3), (2, 3, 1)]]


def _run(run_id: str, protocol: str, when: str) -> dict:
    return {"run_id": run_id, "dataset_id": DATASET, "study": run_id, "origin": "engine", "protocol": protocol,
            "provider": "simulated", "judge": JUDGE, "model": JUDGE, "simulated": True,
            "params": json.dumps({"temperature": 0.0, "toy": True}), "rubric_id": RUBRIC, "status": "finished",
            "created_at": pd.Timestamp(when)}


def write_toy_store(path: str | os.PathLike[str]) -> None:
    """Write the toy dataset, labels and the three runs into the store at ``path``."""
    write_batch(Store.open(path), StoreBatch(
        datasets=pd.DataFrame([{"dataset_id": DATASET, "name": "Toy rubric set", "kind": "pointwise",
                                "source": "hand-made test case", "licence": "MIT", "origin": "upload"}]),
        rubrics=pd.DataFrame([{"rubric_id": RUBRIC, "criterion": "Toy criterion", "k": 3, "dataset_id": DATASET}]),
        rubric_levels=pd.DataFrame([{"rubric_id": RUBRIC, "level": lv, "description": f"level {lv}"}
                                    for lv in (1, 2, 3)]),
        items=pd.DataFrame([{"dataset_id": DATASET, "item_id": item, "seq": seq, "question": f"question {item}",
                             "response": f"response {item}", "rubric_id": RUBRIC}
                            for seq, item in enumerate(LABELS)]),
        human_labels=pd.DataFrame([{"dataset_id": DATASET, "item_id": item, "rater": f"expert-{r}",
                                    "rater_group": "expert", "label_source": "human", "rubric_id": RUBRIC,
                                    "score": float(score)}
                                   for item, scores in LABELS.items() for r, score in enumerate(scores, start=1)]),
        judges=pd.DataFrame([{"judge": JUDGE, "provider": "simulated", "family": "simulated", "simulated": True}]),
        runs=pd.DataFrame([_run("toy-perm", "rubric-permutation", "2026-01-01 10:00"),
                           _run("toy-repeat", "rubric-repeat", "2026-01-01 10:05"),
                           _run("toy-probe", "rubric-permutation", "2026-01-01 09:00")]),
        judge_calls=pd.DataFrame(permutation_calls() + repeat_calls() + probe_calls()),
    ))
