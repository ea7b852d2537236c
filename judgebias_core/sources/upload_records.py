"""Turn validated, checked upload rows into store records (one ``StoreBatch``, written in one transaction)."""

from __future__ import annotations

import hashlib
import json

import pandas as pd

from judgebias_core.sources.common import judges_frame
from judgebias_core.sources.upload_checks import CheckedItems, CheckedPairs
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.store.writes import StoreBatch

UPLOAD_PROVIDER = "upload"


def _row_ids(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    """Deterministic ids from key columns: the keys of ``common.call_ids``, joined column-wise (fast)."""
    keys = frame[columns[0]].astype(str)
    for column in columns[1:]:
        keys = keys + "\x1f" + frame[column].astype(str)
    return keys.map(lambda key: hashlib.sha256(key.encode("utf-8")).hexdigest()[:24])


def upload_run_id(spec: UploadSpec, content_hash: str) -> str:
    """Deterministic: the same file with the same settings is the same run."""
    return f"upload:{spec.dataset_id}:{content_hash[:12]}"


def _dataset_frame(spec: UploadSpec, dataset_kind: str, file_name: str, content_hash: str, description: str,
                   baseline: str | None = None) -> pd.DataFrame:
    return pd.DataFrame([{
        "dataset_id": spec.dataset_id, "name": spec.dataset_name or spec.dataset_id, "kind": dataset_kind,
        "source": f"upload: {file_name}", "licence": spec.licence,
        "description": spec.description or description, "baseline_candidate": baseline, "origin": "upload",
        "content_hash": content_hash,
    }])


def _item_frame(valid: pd.DataFrame, spec: UploadSpec, question: str) -> pd.DataFrame:
    return pd.DataFrame({
        "dataset_id": spec.dataset_id, "item_id": valid["item_id"], "seq": valid["row"] - 1, "task": valid["task"],
        "question": valid[question], "turns": valid[question].map(lambda text: [text]),
        "metadata": valid["row"].map(lambda row: json.dumps({"upload_row": int(row)})),
    })


def items_batch(valid: pd.DataFrame, checked: CheckedItems, spec: UploadSpec, file_name: str,
                content_hash: str) -> StoreBatch:
    """A pointwise dataset: items (instruction, response, reference) and human scores on the chosen rubric."""
    items = _item_frame(valid, spec, "instruction").assign(
        response=valid["response"].to_numpy(), candidate=valid["candidate"].to_numpy(),
        reference_answer=valid["reference_answer"].to_numpy(), rubric_id=spec.rubric_id)
    labels = checked.scores.assign(dataset_id=spec.dataset_id, rater_group="human", label_source="human",
                                   rubric_id=spec.rubric_id or "").drop(columns="row")
    raters = labels["rater"].nunique()
    scored = f", scored by {raters} rater(s)" if raters else ""
    return StoreBatch(
        datasets=_dataset_frame(spec, "pointwise", file_name, content_hash,
                                f"{len(items)} uploaded responses{scored}"),
        items=items, human_labels=labels if not labels.empty else None,
    )


def pairs_batch(valid: pd.DataFrame, checked: CheckedPairs, spec: UploadSpec, file_name: str,
                content_hash: str) -> StoreBatch:
    """A pairwise dataset: prompts, candidate answers and human preferences (a candidate or 'tie')."""
    answers = checked.answers.assign(dataset_id=spec.dataset_id, turns=checked.answers["answer"].map(lambda a: [a]))
    labels = checked.preferences.assign(dataset_id=spec.dataset_id, rater="human", rater_group="human",
                                        label_source="human", rubric_id="").drop(columns="row")
    candidates = answers["candidate"].nunique()
    return StoreBatch(
        datasets=_dataset_frame(spec, "pairwise", file_name, content_hash,
                                f"{len(valid)} uploaded prompts with {candidates} candidates",
                                spec.baseline_candidate),
        items=_item_frame(valid, spec, "prompt"),
        answers=answers[["dataset_id", "item_id", "candidate", "answer", "turns"]],
        human_labels=labels if not labels.empty else None,
    )


def _run_frame(spec: UploadSpec, run_id: str, calls: pd.DataFrame, protocol: str, file_name: str,
               content_hash: str, parser: str, rubric_id: str | None = None) -> pd.DataFrame:
    judges = calls["judge"].unique().tolist()
    params = {"file": file_name, "content_hash": content_hash, "parser": parser,
              "settings": spec.model_dump(mode="json")}
    return pd.DataFrame([{
        "run_id": run_id, "dataset_id": spec.dataset_id, "study": run_id, "origin": "upload", "protocol": protocol,
        "provider": UPLOAD_PROVIDER, "judge": judges[0] if len(judges) == 1 else None,
        "model": judges[0] if len(judges) == 1 else None, "simulated": False, "params": json.dumps(params),
        "rubric_id": rubric_id, "status": "complete", "planned": len(calls),
    }])


def _call_frame(calls: pd.DataFrame, spec: UploadSpec, run_id: str) -> pd.DataFrame:
    return pd.DataFrame({
        "run_id": run_id, "dataset_id": spec.dataset_id, "study": run_id, "judge": calls["judge"],
        "item_id": calls["item_id"], "repetition": calls["repetition"].astype(int), "prompt": calls["prompt"],
        "raw_output": calls["raw_output"], "parse_status": calls["parse_status"], "parser": calls["parser"],
        "error": calls["error"],
    })


def _slotted_calls(calls: pd.DataFrame, spec: UploadSpec, run_id: str, call_kind: str, slots: list[list[str]],
                   options: int | None) -> pd.DataFrame:
    """Pairwise or list-wise calls as the engine stores them: candidates in slot order, the first two also in
    their own columns, a verdict naming a slot."""
    return _call_frame(calls, spec, run_id).assign(
        kind=call_kind, options=options, slots=slots, first_candidate=[s[0] for s in slots],
        second_candidate=[s[1] for s in slots], order_label=calls["order_label"], verdict=calls["verdict"])


def _log_batch(frame: pd.DataFrame, spec: UploadSpec, run_id: str, protocol: str, file_name: str,
               content_hash: str, parser: str, rubric_id: str | None = None) -> StoreBatch:
    return StoreBatch(judges=judges_frame(frame["judge"], UPLOAD_PROVIDER, description="from an uploaded log"),
                      runs=_run_frame(spec, run_id, frame, protocol, file_name, content_hash, parser, rubric_id),
                      judge_calls=frame)


def pairwise_log_batch(calls: pd.DataFrame, spec: UploadSpec, run_id: str, file_name: str,
                       content_hash: str, parser: str) -> StoreBatch:
    """One run of uploaded pairwise calls; ``write_batch`` classifies their pairs into ``pair_outcomes``."""
    slots = [[a, b] for a, b in zip(calls["first_candidate"], calls["second_candidate"], strict=True)]
    frame = _slotted_calls(calls, spec, run_id, "pairwise", slots, spec.options)
    frame.insert(0, "call_id", _row_ids(frame, ["run_id", "judge", "item_id", "first_candidate", "second_candidate",
                                                "repetition"]))
    return _log_batch(frame, spec, run_id, "pairwise-swap", file_name, content_hash, parser)


def listwise_log_batch(calls: pd.DataFrame, spec: UploadSpec, run_id: str, file_name: str,
                       content_hash: str, parser: str) -> StoreBatch:
    """One run of uploaded list-wise calls (protocol ``listwise``; ``options`` stays empty as in engine runs, the
    number of slots is the length of ``slots``)."""
    frame = _slotted_calls(calls, spec, run_id, "listwise", [list(s) for s in calls["slots"]], None)
    frame.insert(0, "call_id", _row_ids(frame.assign(slots_key=frame["slots"].map(json.dumps)),
                                        ["run_id", "judge", "item_id", "slots_key", "repetition"]))
    return _log_batch(frame, spec, run_id, "listwise", file_name, content_hash, parser)


def rubric_log_batch(trials: pd.DataFrame, spec: UploadSpec, run_id: str, file_name: str,
                     content_hash: str, parser: str) -> StoreBatch:
    """One run of uploaded rubric trials (ordering shown, score, chosen position)."""
    frame = _call_frame(trials, spec, run_id).assign(
        kind="rubric", ordering=trials["ordering"].map(list), rubric_id=trials["rubric_id"],
        score=trials["score"], chosen_position=trials["chosen_position"].astype("Int64"))
    frame.insert(0, "call_id", _row_ids(frame.assign(ordering_key=frame["ordering"].map(str)),
                                        ["run_id", "judge", "item_id", "ordering_key", "repetition"]))
    canonical = frame["ordering"].map(lambda o: o == sorted(o)).all()
    rubrics = frame["rubric_id"].unique().tolist()
    return _log_batch(frame, spec, run_id, "rubric-repeat" if canonical else "rubric-permutation", file_name,
                      content_hash, parser, rubrics[0] if len(rubrics) == 1 else None)
