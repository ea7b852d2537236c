"""What a fresh install needs before the dashboard opens: the schema, the bundled data, the demo runs.

A first launch loads the pre-built snapshot of all of it (store/prebuilt.py, a few Parquet files) when it
matches the bundled sources; otherwise it builds the same store from the sources, which takes much longer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from judgebias_core.registry import Registry
from judgebias_core.store.handle import Store
from judgebias_core.store.prebuilt import load_prebuilt, prebuilt_status
from judgebias_core.store.queries import store_is_empty


@dataclass(frozen=True)
class FirstLaunchStep:
    """A step run after the bundled import on first launch (the simulated demo runs). ``run`` takes the opened store
    and must be idempotent: after the snapshot is loaded the steps run too, and find their work done."""

    name: str
    run: Callable[[Store], object]


# The built-in steps' modules (each defining ``FIRST_LAUNCH_STEP``) load only when the steps run, so importing this
# module does not import the engine; they run in registration order.
FIRST_LAUNCH_STEPS: Registry[FirstLaunchStep] = Registry(
    "first-launch step", ("judgebias_core.demo",), "FIRST_LAUNCH_STEP")


def run_first_launch_steps(store: Store) -> None:
    for step in FIRST_LAUNCH_STEPS.records():
        step.run(store)


def build_from_sources(store: Store) -> None:
    """The first-launch store the slow way: parse the bundled gz sources, then run the first-launch steps.
    The reference the snapshot is built from and compared with."""
    from judgebias_core.sources.bundled import import_bundled  # noqa: PLC0415 - pandas parsing, slow path only

    import_bundled(store)
    run_first_launch_steps(store)


def ensure_store_ready(store: Store) -> bool:
    """On an empty (opened, so migrated) store, load the bundled data and run the first-launch steps.

    Returns True when it had to populate the store.
    """
    with store.reader() as reader:
        if not store_is_empty(reader):
            return False
    if prebuilt_status().usable and load_prebuilt(store):
        run_first_launch_steps(store)
        return True
    build_from_sources(store)
    return True
