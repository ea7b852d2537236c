"""What the dashboard and the report read about runs: a run's record and calls, the runs and judges a dataset has,
and the operators' log of who launched, resumed or cancelled what.

The store's reads of runs (``store/run_queries.py``, ``store/report_queries.py``, ``store/access_queries.py``)
offered where the interfaces and the report may reach them (docs/ARCHITECTURE.md, "Layers"); ``record_actions`` is
the one write, the dashboard's entry in the operators' log.
"""

from __future__ import annotations

from judgebias_core.store.access_queries import OperatorAction, actions_on, record_actions, running_runs_of
from judgebias_core.store.report_queries import dataset_judges, dataset_runs
from judgebias_core.store.rubric_queries import list_rubric_runs
from judgebias_core.store.run_queries import replay_judges, run_calls_sample, run_record

__all__ = [
    "OperatorAction",
    "actions_on",
    "dataset_judges",
    "dataset_runs",
    "list_rubric_runs",
    "record_actions",
    "replay_judges",
    "run_calls_sample",
    "run_record",
    "running_runs_of",
]
