"""Build a report: resolve the request against the store, run each section builder, gather provenance."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from judgebias_core import __version__
from judgebias_core.analyses.datasets import dataset_summary
from judgebias_core.analyses.provenance import provenance_judges, provenance_runs, provenance_templates, report_scope
from judgebias_core.analyses.runs import dataset_judges, dataset_runs
from judgebias_core.errors import JudgebiasError, NotFoundError
from judgebias_core.report.model import Provenance, Report, ReportRequest, ReportScope, ReportSection
from judgebias_core.store.handle import StoreReader
from judgebias_core.topics import TOPICS


def resolve_scope(reader: StoreReader, request: ReportRequest) -> ReportScope:
    """The request checked against the store (NotFoundError for an unknown dataset, judge or run)."""
    dataset = dataset_summary(reader, request.dataset_id)
    known_judges = set(dataset_judges(reader, dataset.id)["judge"])
    if unknown := [j for j in request.judges if j not in known_judges]:
        raise NotFoundError(f"no judge call of {', '.join(map(repr, unknown))} on dataset {dataset.id!r}; "
                            f"judges there: {', '.join(sorted(known_judges)) or 'none'}")
    known_runs = set(dataset_runs(reader, dataset.id)["run_id"])
    if unknown := [r for r in request.runs if r not in known_runs]:
        raise NotFoundError(f"no run {', '.join(map(repr, unknown))} on dataset {dataset.id!r}")
    scope = report_scope(reader, dataset.id, request.judges, request.runs)
    return ReportScope(
        path=str(reader.path), dataset=dataset, judges=tuple(sorted(scope["judge"].unique())),
        runs=tuple(dict.fromkeys(scope["run_id"].dropna())), studies=tuple(dict.fromkeys(scope["study"])),
        call_kinds=frozenset(scope["kind"]), judge_filter=tuple(request.judges),
        study_judges=tuple(dict.fromkeys(zip(scope["study"], scope["judge"], strict=True))),
        simulated=frozenset(scope.loc[scope["simulated"].astype(bool), "judge"]),
    )


def build_report(reader: StoreReader, request: ReportRequest,
                 on_section: Callable[[str, float], None] | None = None) -> Report:
    """Every section that has something to show for the request, plus provenance, all from one snapshot;
    ``on_section`` is told each section's title and build time in seconds (bench/bench_report.py)."""
    scope = resolve_scope(reader, request)
    sections: list[ReportSection] = []
    skipped: list[str] = []
    for topic in TOPICS.records():  # the registered topics, in their order (judgebias_core/topics)
        title = topic.title
        started = time.perf_counter()
        try:
            section = topic.report_section(reader, scope)
        except JudgebiasError as error:  # a metric that cannot be computed on this data says why; the rest stands
            skipped.append(f"{title}: could not be computed ({error}).")
            continue
        finally:
            if on_section is not None:
                on_section(title, time.perf_counter() - started)
        if section is not None:
            sections.append(section)
    provenance = Provenance(
        dataset=scope.dataset,
        judges=provenance_judges(reader, scope.dataset.id, request.judges, request.runs),
        runs=provenance_runs(reader, scope.dataset.id, request.judges, request.runs),
        templates=provenance_templates(reader, scope.dataset.id, request.judges, request.runs),
        version=__version__, generated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )
    return Report(request=request, title=f"How far can these judges be trusted? {scope.dataset.name}",
                  sections=tuple(sections), provenance=provenance, skipped=tuple(skipped),
                  simulated_judges=tuple(sorted(scope.simulated)))
