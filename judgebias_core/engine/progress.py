"""The live progress file a run keeps next to its journal, and the cancel file that stops it.

Any process (the dashboard, another shell) reads progress and asks for a stop without touching the store.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

from judgebias_core.engine.journal import cancel_path, progress_path, run_file
from judgebias_core.models import RunStatus
from judgebias_core.store.handle import Store


@dataclass(frozen=True)
class RunProgress:
    run_id: str
    status: RunStatus
    planned: int
    completed: int  # calls with a stored reply, unparseable ones included
    failed: int  # calls with no reply after every retry
    parse_failures: int
    cached: int
    cost_usd: float
    elapsed_s: float
    seconds_left: float | None
    pid: int
    updated_at: float
    unpriced_calls: int = 0  # replies whose cost is unknown (no price for the model): not in cost_usd

    @property
    def done(self) -> int:
        return self.completed + self.failed


def write_progress(store: Store, progress: RunProgress) -> None:
    path = progress_path(store, progress.run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(progress)), encoding="utf-8")
    temporary.replace(path)


def write_batch_line(store: Store, run_id: str, line: str) -> None:
    """The batch run's latest provider progress line, next to its progress file (read by the Runs page)."""
    path = _batch_line_path(store, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp-batches")
    temporary.write_text(line, encoding="utf-8")
    temporary.replace(path)


def read_batch_line(store: Store, run_id: str) -> str | None:
    """The last batch progress line of the run's current session (None for live runs or before the first poll)."""
    try:
        return _batch_line_path(store, run_id).read_text(encoding="utf-8")
    except OSError:
        return None


def _batch_line_path(store: Store, run_id: str) -> Path:
    return run_file(store, run_id, ".batches.txt")


def begin_session(store: Store, run_id: str) -> None:
    """What a new session of a run (live or batch) starts from: no pending cancel request, and no batch line
    left by an earlier session."""
    clear_cancel(store, run_id)
    _batch_line_path(store, run_id).unlink(missing_ok=True)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_progress(store: Store, run_id: str) -> RunProgress | None:
    """The run's last progress; a 'running' run whose process is gone reads as 'interrupted'."""
    path = progress_path(store, run_id)
    try:
        values = json.loads(Path(path).read_text(encoding="utf-8"))
        progress = RunProgress(**(values | {"status": RunStatus(values["status"])}))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if progress.status is RunStatus.RUNNING and not process_alive(progress.pid):
        return RunProgress(**(asdict(progress) | {"status": RunStatus.INTERRUPTED, "seconds_left": None}))
    return progress


def request_cancel(store: Store, run_id: str) -> None:
    """Ask a running run to stop (it finishes the calls in flight, stores them and exits cleanly)."""
    path = cancel_path(store, run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(str(time.time()), encoding="utf-8")


def cancel_requested(store: Store, run_id: str) -> bool:
    return cancel_path(store, run_id).exists()


def clear_cancel(store: Store, run_id: str) -> None:
    cancel_path(store, run_id).unlink(missing_ok=True)


class RunLock:
    """One process per run id: a second launch of a run that is still going is refused.

    The lock is an exclusive OS lock on ``<run>.lock`` (``flock``; ``msvcrt.locking`` on Windows), taken in one
    system call, so two launches racing for the same run cannot both get it; the OS drops it when its process
    dies, so a killed run never leaves a stale lock. The file keeps the holder's pid for the message, and stays
    when the lock is released: removing it would let a launch that opened it a moment before lock an orphaned
    file while a third launch locks a new one.
    """

    def __init__(self, store: Store, run_id: str) -> None:
        self.path = run_file(store, run_id, ".lock")
        self.run_id = run_id
        self._file: IO[str] | None = None

    def __enter__(self) -> RunLock:
        from judgebias_core.errors import InvalidArgument  # noqa: PLC0415

        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")
        try:
            _lock(handle)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise InvalidArgument(f"run {self.run_id!r} is already running (process {holder})") from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is None:
            return
        self._file.seek(0)
        self._file.truncate()
        _unlock(self._file)
        self._file.close()
        self._file = None


def _lock(handle: IO[str]) -> None:
    """Take the exclusive lock without waiting; OSError when another process holds it."""
    if sys.platform == "win32":
        import msvcrt  # noqa: PLC0415

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        import fcntl  # noqa: PLC0415

        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _unlock(handle: IO[str]) -> None:
    if sys.platform == "win32":
        import msvcrt  # noqa: PLC0415

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        import fcntl  # noqa: PLC0415

        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
