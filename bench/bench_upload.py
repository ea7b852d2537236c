"""Benchmark: uploads of real data (a benchmark, not a test; prints figures).

Builds a temporary store with the bundled MTBench and Auto-J data, then times, per file:
reading, validation and checks (prepare_upload), and the one-transaction write, for
- the Auto-J pairs (1,392 prompts x 2 answers + human labels) as JSON Lines,
- the MTBench `full` study judge calls of all three judges (14,400 calls with raw replies) as CSV,
- the same log again (already stored: writes nothing).
Run: python bench/bench_upload.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.sources.bundled import BUNDLED_DATA_DIR, import_bundled
from judgebias_core.sources.upload import prepare_upload, suggest_spec, write_upload
from judgebias_core.sources.upload_read import read_table
from judgebias_core.store.handle import Store


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
    print(f"  rows {preview.rows:,}; inserted {result.inserted}; already stored: {result.already_stored}")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "bench.duckdb"
        _timed("bundled import (mtbench, autoj)", lambda: import_bundled(Store.open(store), ("mtbench", "autoj")))
        pairs = pd.read_json(BUNDLED_DATA_DIR / "autoj-pairwise" / "pairs.jsonl.gz", lines=True, dtype=False)
        _upload(store, pairs.to_json(orient="records", lines=True).encode(), "autoj_pairs.jsonl", "pairs",
                "autoj-upload", baseline_candidate="response_1")
        calls = pd.read_json(BUNDLED_DATA_DIR / "judging-the-judges" / "mtbench_judgments.jsonl.gz", lines=True,
                             dtype=False)
        log = calls.loc[calls["study"] == "full", ["item_id", "judge", "first", "second", "raw_output"]]
        data = log.to_csv(index=False).encode()
        _upload(store, data, "mtbench_full_log.csv", "pairwise-log", "mtbench")
        _upload(store, data, "mtbench_full_log.csv", "pairwise-log", "mtbench")


if __name__ == "__main__":
    main()
