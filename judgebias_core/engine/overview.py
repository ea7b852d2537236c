"""The runs list with live status: stored counts, and for engine runs the progress their process reports."""

from __future__ import annotations

import json

import pandas as pd

from judgebias_core.engine.progress import read_progress
from judgebias_core.models import RunStatus, status_summary
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.queries import list_runs


def runs_overview(reader: StoreReader) -> pd.DataFrame:
    """Every run with status, counts and cost; an engine run marked running whose process died is 'interrupted'.

    ``summary`` says the status with what it leaves out ("complete, 2 failed"; "incomplete, 54 of 2,400 not stored"
    for a run marked complete whose stored calls fall short of its plan), and ``resumable`` whether a resume has
    something to do: an engine run that is not running and not complete with every planned call replied to."""
    frame = list_runs(reader)
    statuses, summaries, resumable = [], [], []
    for run in frame.itertuples(index=False):
        status = str(run.status)
        if run.origin == "engine" and status == RunStatus.RUNNING:
            live = read_progress(reader.store, run.run_id)
            status = live.status.value if live else status
        planned = None if pd.isna(run.planned) else int(run.planned)  # NULL arrives as None, NaN or pd.NA
        summary = status_summary(status, planned, int(run.completed), int(run.failed))
        statuses.append(status)
        summaries.append(summary)
        resumable.append(run.origin == "engine" and status != RunStatus.RUNNING and summary != RunStatus.COMPLETE)
    return frame.assign(status=statuses, summary=summaries, resumable=resumable)


def run_parameters(params_json: str | None) -> dict[str, object]:
    """A run's stored parameters as a dict (empty when none were stored)."""
    try:
        value = json.loads(params_json or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
