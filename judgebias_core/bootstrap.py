"""What a fresh install needs before the dashboard opens: the schema, the bundled data, the demo runs.

A first launch loads the pre-built snapshot of all of it (store/prebuilt.py, a few Parquet files) when it
matches the bundled sources; otherwise it builds the same store from the sources, which takes much longer.
"""

from __future__ import annotations

from collections.abc import Callable

from judgebias_core.store.handle import Store
from judgebias_core.store.prebuilt import load_prebuilt, prebuilt_status
from judgebias_core.store.queries import store_is_empty

# Steps run after the bundled import on first launch (e.g. the simulated demo runs). Each takes the opened store
# and must be idempotent: after the snapshot is loaded they run too, and find their work done.
FIRST_LAUNCH_STEPS: list[Callable[[Store], None]] = []


def _demo_runs(store: Store) -> None:
    from judgebias_core.demo import ensure_demo_runs  # noqa: PLC0415 - keeps the engine out of plain imports

    ensure_demo_runs(store)


FIRST_LAUNCH_STEPS.append(_demo_runs)


def build_from_sources(store: Store) -> None:
    """The first-launch store the slow way: parse the bundled gz sources, then run the first-launch steps.
    The reference the snapshot is built from and compared with."""
    from judgebias_core.sources.bundled import import_bundled  # noqa: PLC0415 - pandas parsing, slow path only

    import_bundled(store)
    for step in FIRST_LAUNCH_STEPS:
        step(store)


def ensure_store_ready(store: Store) -> bool:
    """On an empty (opened, so migrated) store, load the bundled data and run the first-launch steps.

    Returns True when it had to populate the store.
    """
    with store.reader() as reader:
        if not store_is_empty(reader):
            return False
    if prebuilt_status().usable and load_prebuilt(store):
        for step in FIRST_LAUNCH_STEPS:
            step(store)
        return True
    build_from_sources(store)
    return True
