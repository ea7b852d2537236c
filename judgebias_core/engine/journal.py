"""The run's append-only journal on disk: one JSON line per reply, flushed the moment it arrives.

The journal is the source of truth while a run is going: DuckDB receives its lines in small batches, and a
resumed run first replays it, so a reply that reached the journal is never requested again.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from judgebias_core.engine.records import ReplyRecord
from judgebias_core.store.handle import Store

JOURNAL_SUFFIX = ".journal.jsonl"


def _safe(run_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", run_id)


def run_file(store: Store, run_id: str, suffix: str) -> Path:
    """One of a run's files: ``.journal.jsonl``, ``.progress.json``, ``.cancel``, ``.launch.json``, ``.log``."""
    return store.run_folder / f"{_safe(run_id)}{suffix}"


def journal_path(store: Store, run_id: str) -> Path:
    return run_file(store, run_id, JOURNAL_SUFFIX)


def progress_path(store: Store, run_id: str) -> Path:
    return run_file(store, run_id, ".progress.json")


def cancel_path(store: Store, run_id: str) -> Path:
    return run_file(store, run_id, ".cancel")


class Journal:
    """Appends reply records (never keys) to the run's journal file."""

    def __init__(self, path: Path, fsync: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fsync = fsync
        self._file = path.open("a", encoding="utf-8")

    def append(self, record: ReplyRecord) -> None:
        self._file.write(record.to_json() + "\n")
        self._file.flush()  # in the OS after this: survives the process being killed
        if self._fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def read_journal(path: Path) -> dict[str, ReplyRecord]:
    """The last record of every call in a journal; a torn last line (killed mid-write) is skipped."""
    records: dict[str, ReplyRecord] = {}
    if not path.exists():
        return records
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                record = ReplyRecord.from_json(line)
            except ValueError:
                continue
            records[record.call_id] = record
    return records
