"""The runs list with live status: stored counts, and for engine runs the progress their process reports."""

from __future__ import annotations

import json
import os

import pandas as pd

from judgebias_core.engine.progress import read_progress
from judgebias_core.models import RunStatus
from judgebias_core.store.queries import list_runs


def runs_overview(db_path: str | os.PathLike[str]) -> pd.DataFrame:
    """Every run with status, counts and cost; an engine run marked running whose process died is 'interrupted'."""
    frame = list_runs(db_path)
    statuses = []
    for run_id, origin, status in frame[["run_id", "origin", "status"]].itertuples(index=False):
        live = read_progress(db_path, run_id) if origin == "engine" and status == RunStatus.RUNNING else None
        statuses.append(live.status.value if live else status)
    return frame.assign(status=statuses)


def run_parameters(params_json: str | None) -> dict[str, object]:
    """A run's stored parameters as a dict (empty when none were stored)."""
    try:
        value = json.loads(params_json or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
