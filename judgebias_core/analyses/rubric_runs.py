"""What the Rubric bias page reads about the store's rubric runs: the list of runs, which can be analysed, which
repeat or compare with a run, and a run's calls for export, with the constants and result types the page names.

The store's descriptive reads (``store/rubric_queries.py``) and the rubric metrics' names offered where the
interfaces may reach them: pages read the store and the metrics through ``analyses/`` only (docs/ARCHITECTURE.md,
"Layers"). Nothing is computed here.
"""

from __future__ import annotations

from judgebias_core.metrics.rubric_correlation import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CorrelationEstimate
from judgebias_core.metrics.rubric_report import CANDIDATE_DESIGNS, RubricReport
from judgebias_core.store.rubric_queries import (
    analysable_run_ids,
    comparable_run_ids,
    list_rubric_runs,
    repeat_run_choices,
    run_calls_for_export,
)

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "CANDIDATE_DESIGNS",
    "CorrelationEstimate",
    "RubricReport",
    "analysable_run_ids",
    "comparable_run_ids",
    "list_rubric_runs",
    "repeat_run_choices",
    "run_calls_for_export",
]
