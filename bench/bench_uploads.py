"""Benchmark: large valid uploads (a benchmark, not a test; prints figures).

Generates, in a temporary fresh store, and times reading + validation (prepare_upload) and the write of
- a 200,000-row pointwise items CSV (the row limit),
- a pairwise judge log of about 50 MB (the size limit) on a generated 1,000-prompt pairwise dataset,
- a YAML file of 500 rubrics (5 levels each),
and row validation of the items file alone, fast path vs every row through pydantic.
Run: python bench/bench_uploads.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.sources import upload, upload_validate
from judgebias_core.sources.rubric_files import upload_rubrics
from judgebias_core.sources.upload import prepare_upload, suggest_spec, write_upload
from judgebias_core.sources.upload_kind import UPLOAD_KINDS
from judgebias_core.sources.upload_read import MAX_UPLOAD_BYTES, read_table
from judgebias_core.sources.upload_validate import validate_rows
from judgebias_core.store.handle import Store
from judgebias_core.store.schema import migrate

ITEM_ROWS = 200_000
PROMPTS = 1_000
RUBRICS = 500


def _timed(label: str, work: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = work()
    print(f"  {label:<34} {time.perf_counter() - start:7.2f} s")
    return result


def _upload(store: Path, data: bytes, name: str, kind: str, dataset_id: str, **settings: Any) -> None:
    print(f"{name}: {len(data) / 1e6:.1f} MB")
    spec = suggest_spec(read_table(data, name), kind, dataset_id, **settings)  # type: ignore[arg-type]
    preview = _timed("read + validate + check (preview)", lambda: prepare_upload(Store.open(store), data, name, spec))
    assert preview.ok, preview.problems[:5]
    result = _timed("write (one transaction)", lambda: write_upload(Store.open(store), preview))
    print(f"  rows {preview.rows:,}; inserted {sum(result.inserted.values()):,} rows")


def _items_csv(rng: np.random.Generator) -> bytes:
    numbers = rng.integers(0, 10**9, ITEM_ROWS)
    return pd.DataFrame({"id": [f"item-{n}" for n in range(ITEM_ROWS)],
                         "instruction": [f"Summarise document {n} in two sentences." for n in numbers],
                         "response": [f"Document {n} says several things; this is a summary of them." for n in numbers],
                         "task": rng.choice(["news", "dialogue", "code"], ITEM_ROWS)}).to_csv(index=False).encode()


def _pairs_and_log(rng: np.random.Generator) -> tuple[bytes, bytes]:
    pairs = pd.DataFrame({"id": [f"p{n}" for n in range(PROMPTS)], "prompt": [f"Question {n}?" for n in range(PROMPTS)],
                          "Response (alpha)": "An answer.", "Response (beta)": "Another answer."})
    reply = "The first answer is more complete and more accurate than the second one. " * 3
    rows_needed = int(MAX_UPLOAD_BYTES * 0.95) // (len(reply) + 40)
    repetitions = rows_needed // (2 * PROMPTS) + 1
    item = np.tile(np.repeat(pairs["id"].to_numpy(), 2), repetitions)[:rows_needed]
    swapped = np.tile([False, True], rows_needed // 2 + 1)[:rows_needed]
    repetition = (np.arange(rows_needed) // (2 * PROMPTS)) + 1
    verdict = rng.choice(["[[A]]", "[[B]]", "[[C]]"], rows_needed)
    log = pd.DataFrame({"item_id": item, "first": np.where(swapped, "beta", "alpha"),
                        "second": np.where(swapped, "alpha", "beta"), "judge": "bench-judge",
                        "repetition": repetition, "raw_output": [reply + v for v in verdict]})
    return pairs.to_csv(index=False).encode(), log.to_csv(index=False).encode()


def _validation_side_by_side(data: bytes, name: str, kind: str, dataset_id: str) -> None:
    """Row validation alone, the column-wise fast path against every row through the pydantic row model (the code
    before it), on the same records in the same run; both must give the same rows and problems."""
    spec = suggest_spec(read_table(data, name), kind, dataset_id)
    record = UPLOAD_KINDS.get(kind)
    records = upload._records(read_table(data, name), spec, record)
    model, column_of = record.row_model, upload._column_locator(spec)
    fast_s = time.perf_counter()
    frame, problems = validate_rows(records, model, column_of)
    fast_s = time.perf_counter() - fast_s
    full_s = time.perf_counter()
    valid, errors = upload_validate._validate(records, model)
    full_s = time.perf_counter() - full_s
    assert len(valid) == len(frame) and len(errors) == len(problems)
    print(f"  validate_rows {len(records):,} rows: {fast_s:.2f} s; every row through pydantic {full_s:.2f} s "
          f"({full_s / fast_s:.1f}x); load {os.getloadavg()[0]:.1f}")


def _rubrics_yaml() -> bytes:
    parts = ["rubrics:"]
    for n in range(RUBRICS):
        parts.append(f"  - id: bench-{n}\n    criterion: Criterion number {n}?\n    levels:")
        parts += [f"      {level}: Level {level} of criterion {n}." for level in range(1, 6)]
    return ("\n".join(parts) + "\n").encode()


def main() -> None:
    rng = np.random.default_rng(16)
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "bench.duckdb"
        migrate(store)
        items = _items_csv(rng)
        _upload(store, items, "items_200k.csv", "items", "bench-items")
        _validation_side_by_side(items, "items_200k.csv", "items", "bench-items-2")
        pairs, log = _pairs_and_log(rng)
        _upload(store, pairs, "pairs.csv", "pairs", "bench-pairs", baseline_candidate="alpha")
        _upload(store, log, "pairwise_log.csv", "pairwise-log", "bench-pairs")
        data = _rubrics_yaml()
        print(f"rubrics_500.yaml: {len(data) / 1e6:.2f} MB")
        rubrics, result = _timed("read + validate + write", lambda: upload_rubrics(Store.open(store), data, "rubrics_500.yaml"))
        print(f"  rubrics {len(rubrics):,}; inserted {sum(result.inserted.values()):,} rows")


if __name__ == "__main__":
    main()
