"""Reads behind the HTML report: the scope (judges, studies, runs) and provenance of a dataset. SQL lives here."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from judgebias_core.store.connection import scalar
from judgebias_core.store.handle import StoreReader

# Filters shared by every query: an empty list means "all". Lists are typed so an empty one binds.
SCOPE_FILTER = """
j.dataset_id = $dataset_id
AND (len($judges::VARCHAR[]) = 0 OR list_contains($judges::VARCHAR[], j.judge))
AND (len($runs::VARCHAR[]) = 0 OR list_contains($runs::VARCHAR[], j.run_id))
"""

SCOPE_SQL = f"""
SELECT j.judge, j.study, j.run_id, j.kind, count(*) AS calls,
       count(*) FILTER (WHERE j.parse_status = 'failed') AS parse_failures,
       count(*) FILTER (WHERE j.parse_status = 'no_reply') AS no_reply,
       coalesce(bool_or(r.simulated), false) OR coalesce(bool_or(d.simulated), false) AS simulated
FROM judge_calls j LEFT JOIN runs r ON r.run_id = j.run_id LEFT JOIN judges d ON d.judge = j.judge
WHERE {SCOPE_FILTER}
GROUP BY ALL
ORDER BY j.study, j.judge
"""

JUDGES_SQL = f"""
SELECT j.judge, any_value(d.provider) AS provider, any_value(d.family) AS family,
       coalesce(bool_or(d.simulated), false) AS simulated, count(*) AS calls,
       count(*) FILTER (WHERE j.parse_status = 'failed') AS parse_failures,
       min(j.created_at) AS first_call, max(j.created_at) AS last_call
FROM judge_calls j LEFT JOIN judges d ON d.judge = j.judge
WHERE {SCOPE_FILTER}
GROUP BY j.judge
ORDER BY j.judge
"""

RUNS_SQL = f"""
SELECT r.run_id, r.study, r.origin, r.protocol, r.provider, r.model, r.simulated, r.template_id, r.rubric_id,
       r.status, r.created_at, r.finished_at, count(*) AS calls,
       count(DISTINCT j.judge) AS judges
FROM judge_calls j JOIN runs r ON r.run_id = j.run_id
WHERE {SCOPE_FILTER}
GROUP BY ALL
ORDER BY r.created_at, r.run_id
"""

TEMPLATES_SQL = f"""
SELECT coalesce(j.template_id, r.template_id) AS template_id, any_value(t.name) AS name, any_value(t.kind) AS kind,
       count(*) AS calls, string_agg(DISTINCT j.run_id, ', ' ORDER BY j.run_id) AS runs
FROM judge_calls j LEFT JOIN runs r ON r.run_id = j.run_id
     LEFT JOIN prompt_templates t ON t.template_id = coalesce(j.template_id, r.template_id)
WHERE {SCOPE_FILTER}
GROUP BY 1
ORDER BY calls DESC
"""

DATASET_RUNS_SQL = """
SELECT r.run_id, r.study, r.origin, r.protocol, r.status, r.created_at,
       (SELECT count(*) FROM judge_calls j WHERE j.run_id = r.run_id) AS calls
FROM runs r WHERE r.dataset_id = ? ORDER BY r.created_at, r.run_id
"""

DATASET_JUDGES_SQL = """
SELECT judge, count(*) AS calls FROM judge_calls WHERE dataset_id = ? GROUP BY judge ORDER BY judge
"""


def _scope_params(dataset_id: str, judges: Sequence[str], runs: Sequence[str]) -> dict[str, object]:
    return {"dataset_id": dataset_id, "judges": list(judges), "runs": list(runs)}



def report_scope(reader: StoreReader, dataset_id: str, judges: Sequence[str] = (),
                 runs: Sequence[str] = ()) -> pd.DataFrame:
    """Per (judge, study, run, call kind): calls, parse failures, calls without reply, whether simulated."""
    return reader.frame(SCOPE_SQL, _scope_params(dataset_id, judges, runs))


def provenance_judges(reader: StoreReader, dataset_id: str, judges: Sequence[str] = (),
                      runs: Sequence[str] = ()) -> pd.DataFrame:
    """Each judge in scope with provider, family, whether simulated, call counts and first/last call time."""
    return reader.frame(JUDGES_SQL, _scope_params(dataset_id, judges, runs))


def provenance_runs(reader: StoreReader, dataset_id: str, judges: Sequence[str] = (),
                    runs: Sequence[str] = ()) -> pd.DataFrame:
    """Each run in scope with its protocol, template, dates, call count and number of judges."""
    return reader.frame(RUNS_SQL, _scope_params(dataset_id, judges, runs))


def provenance_templates(reader: StoreReader, dataset_id: str, judges: Sequence[str] = (),
                         runs: Sequence[str] = ()) -> pd.DataFrame:
    """Prompt templates (sha256 of the text) used by the calls in scope; a null id means not stored."""
    return reader.frame(TEMPLATES_SQL, _scope_params(dataset_id, judges, runs))


def dataset_runs(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """Every run of a dataset with its call count, oldest first (for choosing runs)."""
    return reader.frame(DATASET_RUNS_SQL, [dataset_id])


def dataset_judges(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """Every judge with calls on a dataset, with its call count (for choosing judges)."""
    return reader.frame(DATASET_JUDGES_SQL, [dataset_id])


def dataset_has_labels(reader: StoreReader, dataset_id: str) -> bool:
    """Whether any human or reference-judge label is stored for the dataset."""
    con = reader.con
    return bool(scalar(con, "SELECT count(*) > 0 FROM human_labels WHERE dataset_id = ?", [dataset_id]))
