"""Launch a run in its own process, so it goes on when the browser tab (or the dashboard) closes.

The spec is written next to the run's journal and the child process runs ``start_run`` on it (``start_batch_run``
when batch settings are given); its log (no keys, ever) goes to ``<run>.log``. Keys reach the child through its
environment only, and only those that may go to the run's endpoint (``providers/endpoints.py``): the provider's
stored key when the base URL is official or listed, a key typed for the base URL in ``JUDGEBIAS_TYPED_KEY``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from judgebias_core.engine.batch import BatchSettings
from judgebias_core.engine.journal import run_file
from judgebias_core.errors import JudgebiasError
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider, key_variables
from judgebias_core.providers.endpoints import (
    KEY_ENDPOINTS_VARIABLE,
    TYPED_KEY_VARIABLE,
    listed_endpoints,
    stored_key_allowed,
)
from judgebias_core.store.connection import PROJECT_ROOT
from judgebias_core.store.handle import Store


def child_environment(spec: RunSpec, keys: Mapping[str, str] | None = None, typed_key: str | None = None,
                      key_endpoints: Sequence[str] = ()) -> dict[str, str]:
    """The run process's environment: this one without any provider key, then the spec's provider's stored key
    (``keys``, else the environment's) only where it may be sent, and ``typed_key`` for the spec's base URL."""
    listed = sorted(listed_endpoints(key_endpoints))
    env = {k: v for k, v in os.environ.items() if k not in key_variables().values() and k != TYPED_KEY_VARIABLE}
    env[KEY_ENDPOINTS_VARIABLE] = " ".join(listed)
    variable = get_provider(spec.provider).key_variable
    if variable and stored_key_allowed(spec.provider, spec.base_url, listed):
        stored = (keys or {}).get(variable) or os.environ.get(variable)
        if stored:
            env[variable] = stored
    if typed_key:
        env[TYPED_KEY_VARIABLE] = typed_key
    return env


def launch_background(store: Store, spec: RunSpec, settings: RunSettings, run_id: str,
                      keys: Mapping[str, str] | None = None, batch: BatchSettings | None = None,
                      typed_key: str | None = None, key_endpoints: Sequence[str] = ()) -> int:
    """Start the run in a detached child process (through the provider's batch API with ``batch``); returns its
    pid. ``keys``: stored keys (Streamlit secrets); ``typed_key``: a key given for the spec's base URL only;
    ``key_endpoints``: base URLs the operator listed for stored keys."""
    store.run_folder.mkdir(parents=True, exist_ok=True)
    launch = run_file(store, run_id, ".launch.json")
    launch.write_text(json.dumps({"db": str(store.path), "run_id": run_id, "spec": spec.model_dump(mode="json"),
                                  "settings": settings.model_dump(mode="json"),
                                  "batch": batch.model_dump(mode="json") if batch else None}), encoding="utf-8")
    env = child_environment(spec, keys, typed_key, key_endpoints)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    log = run_file(store, run_id, ".log").open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "judgebias_core.engine.background", str(launch)],
        stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env, cwd=str(PROJECT_ROOT), start_new_session=True,
    )
    log.close()
    return process.pid


def _main(launch_file: str) -> int:
    from judgebias_core.engine.batch import start_batch_run  # noqa: PLC0415
    from judgebias_core.engine.launch import start_run  # noqa: PLC0415

    typed_key = os.environ.pop(TYPED_KEY_VARIABLE, None)  # given for this run's base URL, nowhere else
    values = json.loads(Path(launch_file).read_text(encoding="utf-8"))
    store, run_id = Store.open(values["db"]), values["run_id"]
    spec, settings = RunSpec.model_validate(values["spec"]), RunSettings.model_validate(values["settings"])
    try:
        if values.get("batch"):
            outcome = start_batch_run(store, spec, settings, BatchSettings.model_validate(values["batch"]),
                                      run_id=run_id, key=typed_key)
        else:
            outcome = start_run(store, spec, settings, run_id=run_id, key=typed_key)
    except JudgebiasError as error:  # named (a store that refused the replies, a foreign run folder): one line
        print(f"run {run_id}: {type(error).__name__}: {error}", flush=True)
        return 2
    print(f"run {outcome.run_id}: {outcome.summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
