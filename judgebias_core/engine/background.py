"""Launch a run in its own process, so it goes on when the browser tab (or the dashboard) closes.

The spec is written next to the run's journal and the child process runs ``start_run`` on it (``start_batch_run``
when batch settings are given); its log (no keys, ever) goes to ``<run>.log``. Keys reach the child through its
environment only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from judgebias_core.engine.batch import BatchSettings
from judgebias_core.engine.journal import run_file, run_folder
from judgebias_core.errors import JudgebiasError
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.store.connection import PROJECT_ROOT


def launch_background(db_path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings, run_id: str,
                      keys: Mapping[str, str] | None = None, batch: BatchSettings | None = None) -> int:
    """Start the run in a detached child process (through the provider's batch API with ``batch``); returns its
    pid."""
    run_folder(db_path).mkdir(parents=True, exist_ok=True)
    launch = run_file(db_path, run_id, ".launch.json")
    launch.write_text(json.dumps({"db": str(db_path), "run_id": run_id, "spec": spec.model_dump(mode="json"),
                                  "settings": settings.model_dump(mode="json"),
                                  "batch": batch.model_dump(mode="json") if batch else None}), encoding="utf-8")
    env = dict(os.environ) | {k: v for k, v in (keys or {}).items() if v}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    log = run_file(db_path, run_id, ".log").open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "judgebias_core.engine.background", str(launch)],
        stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env, cwd=str(PROJECT_ROOT), start_new_session=True,
    )
    log.close()
    return process.pid


def _main(launch_file: str) -> int:
    from judgebias_core.engine.batch import start_batch_run  # noqa: PLC0415
    from judgebias_core.engine.launch import start_run  # noqa: PLC0415

    values = json.loads(Path(launch_file).read_text(encoding="utf-8"))
    db, run_id = values["db"], values["run_id"]
    spec, settings = RunSpec.model_validate(values["spec"]), RunSettings.model_validate(values["settings"])
    try:
        if values.get("batch"):
            outcome = start_batch_run(db, spec, settings, BatchSettings.model_validate(values["batch"]),
                                      run_id=run_id)
        else:
            outcome = start_run(db, spec, settings, run_id=run_id)
    except JudgebiasError as error:  # named (a store that refused the replies, a foreign run folder): one line
        print(f"run {run_id}: {type(error).__name__}: {error}", flush=True)
        return 2
    print(f"run {outcome.run_id}: {outcome.summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
