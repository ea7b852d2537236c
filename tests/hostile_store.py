"""Hostile stores: a tiny pairwise dataset whose every name and text is hostile HTML/script, for the report's
escaping tests; and damaged store files (``DAMAGED_STORES``) for the named store errors of the CLI and the pages.

Hand-built: 6 items x 1 candidate against a baseline, judged in both orders by one judge, so that the
report has consistent, primacy and recency pairs (2 each) and one parse failure to count.
"""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch

SCRIPT = "<script>alert('xss-script')</script>"
IMG = "<img src=x onerror=alert('xss-img')>"
DATASET_ID = "hostile"
JUDGE = f"judge{SCRIPT}"
CANDIDATE = f"cand{IMG}"
TASK = f"task</td><td>{IMG}"
BASELINE = "baseline"
RUN_ID = f"run-{SCRIPT}"
# (original order verdict, swapped order verdict) per item: 2 consistent, 2 primacy, 2 recency (one unparsed extra).
VERDICTS = [("A", "B"), ("B", "A"), ("A", "A"), ("C", "A"), ("B", "B"), ("B", "C"), ("A", None)]
HOSTILE_STRINGS = (SCRIPT, IMG)


@dataclass(frozen=True)
class HostileNames:
    """The names and texts the hostile dataset is written with: ``text`` where a sentence goes, ``markup`` where an
    answer or a reply goes."""

    dataset_id: str = DATASET_ID
    judge: str = JUDGE
    candidate: str = CANDIDATE
    task: str = TASK
    run_id: str = RUN_ID
    text: str = SCRIPT
    markup: str = IMG


def build_hostile_store(path: Path, names: HostileNames = HostileNames()) -> Path:
    """Write the hostile dataset to ``path`` (an existing store at the latest schema) and return it."""
    items = [f"item{n}{names.text if n == 0 else ''}" for n in range(len(VERDICTS))]
    calls = []
    for item, (original, swapped) in zip(items, VERDICTS, strict=True):
        for label, first, second, verdict in (("original", BASELINE, names.candidate, original),
                                              ("swapped", names.candidate, BASELINE, swapped)):
            calls.append({
                "call_id": f"{item}-{label}", "run_id": names.run_id, "dataset_id": names.dataset_id, "study": "full",
                "judge": names.judge, "item_id": item, "kind": "pairwise", "repetition": 1, "options": 3,
                "slots": [first, second], "first_candidate": first, "second_candidate": second,
                "order_label": label, "raw_output": f"{names.markup} [[{verdict}]]" if verdict else names.text,
                "verdict": verdict, "parse_status": "ok" if verdict else "failed", "parser": "mtbench",
            })
    batch = StoreBatch(
        datasets=pd.DataFrame([{"dataset_id": names.dataset_id, "name": f"Hostile {names.text}", "kind": "pairwise",
                                "source": f"source {names.markup}", "licence": names.text, "description": f"about {names.markup}",
                                "baseline_candidate": BASELINE, "origin": "upload"}]),
        items=pd.DataFrame({"dataset_id": names.dataset_id, "item_id": items, "seq": range(len(items)), "task": names.task,
                            "question": names.text}),
        answers=pd.DataFrame([{"dataset_id": names.dataset_id, "item_id": item, "candidate": candidate, "answer": names.markup}
                              for item in items for candidate in (BASELINE, names.candidate)]),
        judges=pd.DataFrame([{"judge": names.judge, "provider": "upload", "family": f"family{names.markup}", "simulated": False}]),
        runs=pd.DataFrame([{"run_id": names.run_id, "dataset_id": names.dataset_id, "study": "full", "origin": "upload",
                            "protocol": "pairwise-swap", "provider": "upload", "judge": names.judge, "model": names.text,
                            "simulated": False, "status": "complete"}]),
        judge_calls=pd.DataFrame(calls),
    )
    write_batch(Store.open(path), batch)
    return path


# Damaged store files, as the attack campaign of issue 27 left them: each builder copies a sound store ``good`` to
# ``path`` and damages the copy.
DUCKDB_HEADER_BYTES = 3 * 4096


def _block_size(path: Path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        return int(con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0])


def truncated_by_one_byte(good: Path, path: Path) -> None:
    path.write_bytes(good.read_bytes()[:-1])


def half_truncated(good: Path, path: Path) -> None:
    data = good.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def last_block_zeroed(good: Path, path: Path) -> None:
    block = _block_size(good)
    data = bytearray(good.read_bytes())
    assert (len(data) - DUCKDB_HEADER_BYTES) % block == 0  # the layout blocks.py reads
    data[-block:] = bytes(block)
    path.write_bytes(bytes(data))


def dropped_table(good: Path, path: Path, table: str = "judge_calls") -> None:
    shutil.copy(good, path)
    with duckdb.connect(str(path)) as con:
        con.execute(f"DROP TABLE {table}")


def sqlite_file(good: Path, path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE judge_calls (call_id TEXT)")
    con.commit()
    con.close()


DAMAGED_STORES = {
    "truncated-1-byte": truncated_by_one_byte, "half-truncated": half_truncated,
    "last-block-zeroed": last_block_zeroed, "dropped-table": dropped_table, "sqlite": sqlite_file,
}
