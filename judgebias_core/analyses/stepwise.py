"""What drives pairwise position bias: stepwise OLS over (judge, candidate, task) units of one study."""

from __future__ import annotations

import pandas as pd

from judgebias_core.metrics.pairwise import unit_metrics_from_counts
from judgebias_core.metrics.stepwise import Start, StepwiseResult, check_target, stepwise_select, stepwise_unit_table
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.pairwise_queries import unit_counts_frame, unit_lengths


def stepwise_units(reader: StoreReader, dataset_id: str, study: str) -> tuple[pd.DataFrame, int]:
    """The unit table (one row per judge, candidate, task; repetitions pooled) and how many units were left out."""
    units = unit_metrics_from_counts(unit_counts_frame(reader, dataset_id, study))
    lengths = unit_lengths(reader, dataset_id, study) if not units.empty else pd.DataFrame()
    return stepwise_unit_table(units, lengths, dataset_id, study)


def stepwise_analysis(reader: StoreReader, dataset_id: str, study: str, target: str,
                      start: Start = "empty") -> StepwiseResult:
    """Stepwise regression of ``target`` over the units of one (dataset, study)."""
    check_target(target)
    units, left_out = stepwise_units(reader, dataset_id, study)
    return stepwise_select(units, target, start=start, units_left_out=left_out)
