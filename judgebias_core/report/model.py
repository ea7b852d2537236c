"""What a report is made of: the request, its sections (sentences, figures, tables, metrics) and provenance."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go

from judgebias_core.models import DatasetSummary
from judgebias_core.wording.verdict import Verdict


@dataclass(frozen=True)
class ReportRequest:
    """Which data a report covers. Empty ``judges`` or ``runs`` means every judge or run of the dataset."""

    dataset_id: str
    judges: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportTable:
    """A table as shown (values already formatted), with a note saying what the counts count."""

    title: str
    frame: pd.DataFrame
    note: str = ""


@dataclass(frozen=True)
class ReportSection:
    """One analysis: short findings for the top, detailed sentences, figures, tables and the metrics it uses."""

    key: str
    title: str
    headline: tuple[str, ...] = ()
    sentences: tuple[str, ...] = ()
    figures: tuple[go.Figure, ...] = ()
    tables: tuple[ReportTable, ...] = ()
    metric_keys: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    verdicts: tuple[Verdict, ...] = ()  # the same blocks the dashboard pages open with


@dataclass(frozen=True)
class Provenance:
    """Where every number came from: dataset, judges, runs, prompt templates, software version, build time."""

    dataset: DatasetSummary
    judges: pd.DataFrame
    runs: pd.DataFrame
    templates: pd.DataFrame
    version: str
    generated_at: str


@dataclass(frozen=True)
class Report:
    """A built report, ready to render. ``skipped`` says which analyses had nothing to show, and why."""

    request: ReportRequest
    title: str
    sections: tuple[ReportSection, ...]
    provenance: Provenance
    skipped: tuple[str, ...] = field(default=())
    simulated_judges: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportScope:
    """A request resolved against the store: the dataset, judges, runs and studies in scope, and call kinds."""

    path: str
    dataset: DatasetSummary
    judges: tuple[str, ...]
    runs: tuple[str, ...]
    studies: tuple[str, ...]
    call_kinds: frozenset[str]
    judge_filter: tuple[str, ...] = ()  # as requested: empty means all
    study_judges: tuple[tuple[str, str], ...] = ()  # (study, judge) pairs with calls in scope
    simulated: frozenset[str] = frozenset()  # judges whose calls come from a simulated judge, not a real model

    def who(self, judge: str) -> str:
        """A judge's name as sentences give it: simulated judges are always said to be simulated."""
        return f"{judge} (a simulated judge)" if judge in self.simulated else judge

    def judges_in(self, study: str) -> list[str]:
        """The judges in scope with calls in ``study``."""
        return [judge for s, judge in self.study_judges if s == study]
