"""First-launch steps are records of the one registry: the demo runs are the built-in step, and a step registered
elsewhere runs after it on the store."""

from __future__ import annotations

from pathlib import Path

from judgebias_core.bootstrap import FIRST_LAUNCH_STEPS, FirstLaunchStep, run_first_launch_steps
from judgebias_core.store.handle import Store


def test_a_registered_step_runs_after_the_built_in_demo_runs(bundled_db: Path) -> None:
    seen: list[str] = []

    def note(store: Store) -> None:
        seen.append(str(store.path))

    with FIRST_LAUNCH_STEPS.registered(FirstLaunchStep("note the store", note)):
        assert FIRST_LAUNCH_STEPS.names() == ("demo runs", "note the store")
        run_first_launch_steps(Store.open(bundled_db))  # the demo runs are complete in this store: that step finds its work done
    assert seen == [str(bundled_db)]
    assert FIRST_LAUNCH_STEPS.names() == ("demo runs",)
