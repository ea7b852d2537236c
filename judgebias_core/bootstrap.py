"""What a fresh install needs before the dashboard opens: the schema, the bundled data, the demo runs.

A first launch loads the pre-built snapshot of all of it (store/prebuilt.py, a few Parquet files) when it
matches the bundled sources; otherwise it builds the same store from the sources, which takes much longer.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from judgebias_core.store.prebuilt import load_prebuilt, prebuilt_status
from judgebias_core.store.queries import store_is_empty
from judgebias_core.store.schema import migrate

# Steps run after the bundled import on first launch (e.g. the simulated demo runs). Each takes the store path
# and must be idempotent: after the snapshot is loaded they run too, and find their work done.
FIRST_LAUNCH_STEPS: list[Callable[[str | os.PathLike[str]], None]] = []


def _demo_runs(path: str | os.PathLike[str]) -> None:
    from judgebias_core.demo import ensure_demo_runs  # noqa: PLC0415 - keeps the engine out of plain imports

    ensure_demo_runs(path)


FIRST_LAUNCH_STEPS.append(_demo_runs)


def build_from_sources(path: str | os.PathLike[str]) -> None:
    """The first-launch store the slow way: parse the bundled gz sources, then run the first-launch steps.
    The reference the snapshot is built from and compared with."""
    from judgebias_core.sources.bundled import import_bundled  # noqa: PLC0415 - pandas parsing, slow path only

    migrate(path)
    import_bundled(path)
    for step in FIRST_LAUNCH_STEPS:
        step(path)


def ensure_store_ready(path: str | os.PathLike[str]) -> bool:
    """Migrate the store; on an empty store load the bundled data and run the first-launch steps.

    Returns True when it had to populate the store.
    """
    if not store_is_empty(path):
        migrate(path)
        return False
    migrate(path)
    if prebuilt_status().usable and load_prebuilt(path):
        for step in FIRST_LAUNCH_STEPS:
            step(path)
        return True
    build_from_sources(path)
    return True
