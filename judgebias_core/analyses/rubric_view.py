"""The rubric topic's view of one run: the analysis, its verdict and the plain note on a simulated judge, read by
the Rubric bias page, the report's rubric section and ``metrics rubric --json`` (METHODS.md section 4)."""

from __future__ import annotations

from dataclasses import dataclass

from judgebias_core.analyses.rubric import rubric_report
from judgebias_core.metrics.rubric_correlation import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from judgebias_core.metrics.rubric_report import RubricReport
from judgebias_core.simulated import simulated_notice
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.verdict import Verdict, rubric_verdict


@dataclass(frozen=True)
class RubricView:
    """One rubric run as a reader sees it: ``report`` (place shares, P(position | score), Permutation vs Repeat,
    orderings, Bias Cost, G-Eval), its ``verdict`` and the simulated-judge notice (None for a real model)."""

    report: RubricReport
    verdict: Verdict
    simulated_notice: str | None


def rubric_view(reader: StoreReader, run_id: str, repeat_run_id: str | None = None, probe_run_id: str | None = None,
                resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                who: str | None = None) -> RubricView:
    """The view of ``run_id`` (a repeat run as its baseline, a probe run's P(position | score) for Bias Cost);
    ``who`` names the judge in the verdict (the report says "(a simulated judge)")."""
    report = rubric_report(reader, run_id, repeat_run_id, probe_run_id, resamples, seed)
    return RubricView(report=report, verdict=rubric_verdict(report, who),
                      simulated_notice=simulated_notice([report.run.judge]) if report.run.simulated else None)
