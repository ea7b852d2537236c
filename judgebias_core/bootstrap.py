"""What a fresh install needs before the dashboard opens: the schema, the bundled data, the demo runs."""

from __future__ import annotations

import os
from collections.abc import Callable

from judgebias_core.sources.bundled import import_bundled
from judgebias_core.store.queries import store_is_empty
from judgebias_core.store.schema import migrate

# Steps run after the bundled import on first launch (e.g. the simulated demo runs). Each takes the store path
# and must be idempotent.
FIRST_LAUNCH_STEPS: list[Callable[[str | os.PathLike[str]], None]] = []


def _demo_runs(path: str | os.PathLike[str]) -> None:
    from judgebias_core.demo import ensure_demo_runs  # noqa: PLC0415 - keeps the engine out of plain imports

    ensure_demo_runs(path)


FIRST_LAUNCH_STEPS.append(_demo_runs)


def ensure_store_ready(path: str | os.PathLike[str]) -> bool:
    """Migrate the store; on an empty store import the bundled data and run the first-launch steps.

    Returns True when it had to populate the store.
    """
    if not store_is_empty(path):
        migrate(path)
        return False
    migrate(path)
    import_bundled(path)
    for step in FIRST_LAUNCH_STEPS:
        step(path)
    return True
