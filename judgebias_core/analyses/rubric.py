"""Rubric position bias of one run (METHODS.md section 4), all read from one store snapshot."""

from __future__ import annotations

from dataclasses import dataclass, replace

from judgebias_core.metrics.rubric_correlation import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

# ``X as X``: offered to ui/geval.py, which reaches metrics only through analyses/ (docs/ARCHITECTURE.md, "Layers")
from judgebias_core.metrics.rubric_correlation import CorrelationEstimate as CorrelationEstimate
from judgebias_core.metrics.rubric_geval import GEvalSummary, geval_summary
from judgebias_core.metrics.rubric_report import (
    ProbeRecommendation,
    RubricReport,
    RunScorePosition,
    check_resamples,
    preferred_labels,
    probe_recommendation_from,
    probe_table,
    rubric_report_from_trials,
    run_score_position_from_trials,
    trial_scores,
)
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.rubric_queries import rubric_labels, rubric_run_info, rubric_trials
from judgebias_core.wording.geval_words import GEvalWords, geval_words


def run_score_position(reader: StoreReader, run_id: str) -> RunScorePosition:
    """P(position | score) of one run (a probe run, or one judge's run for side-by-side heatmaps)."""
    return run_score_position_from_trials(rubric_run_info(reader, run_id), rubric_trials(reader, run_id))


def rubric_report(reader: StoreReader, run_id: str, repeat_run_id: str | None = None,
                  probe_run_id: str | None = None, resamples: int = BOOTSTRAP_RESAMPLES,
                  seed: int = BOOTSTRAP_SEED) -> RubricReport:
    """Analyse a rubric run; Bias Cost uses the probe run's P(position | score) (this run's by default)."""
    check_resamples(resamples)
    info = rubric_run_info(reader, run_id)
    trials = rubric_trials(reader, run_id)
    probe = None
    if probe_run_id not in (None, run_id):
        probe = run_score_position(reader, probe_run_id)
        probe_table(probe, trial_scores(trials))  # a probe on other scores is refused before anything else is read
    labels = rubric_labels(reader, run_id)
    repeat = (rubric_run_info(reader, repeat_run_id), rubric_trials(reader, repeat_run_id)) if repeat_run_id else None
    return rubric_report_from_trials(info, trials, labels, probe, repeat, resamples, seed)


def probe_recommendation(reader: StoreReader, probe_run_id: str, design: str = "all", run_id: str | None = None,
                         resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> ProbeRecommendation:
    """Rank candidate orderings by Bias Cost under the probe's P(position | score) ('run': ``run_id``'s
    orderings; else a design of protocols.orderings)."""
    probe = run_score_position(reader, probe_run_id)
    run_trials = rubric_trials(reader, run_id) if design == "run" and run_id is not None else None
    return probe_recommendation_from(probe, design, run_trials, resamples, seed)


def run_geval(reader: StoreReader, run_id: str, resamples: int = BOOTSTRAP_RESAMPLES,
              seed: int = BOOTSTRAP_SEED) -> GEvalSummary:
    """The G-Eval expected score of one rubric run next to its parsed score (``available`` False without it)."""
    check_resamples(resamples)
    trials = rubric_trials(reader, run_id)
    labels, source = preferred_labels(rubric_labels(reader, run_id))
    simulated = rubric_run_info(reader, run_id).simulated
    return replace(geval_summary(trials, labels, source, resamples, seed), simulated=simulated)


@dataclass(frozen=True)
class GEvalView:
    """One run's G-Eval summary and the words the G-Eval block shows (the Calibration page's ``geval_block``)."""

    summary: GEvalSummary
    words: GEvalWords


def run_geval_view(reader: StoreReader, run_id: str, resamples: int = BOOTSTRAP_RESAMPLES,
                   seed: int = BOOTSTRAP_SEED) -> GEvalView:
    """``run_geval`` with its words, as the Rubric bias page's view holds them."""
    summary = run_geval(reader, run_id, resamples, seed)
    return GEvalView(summary, geval_words(summary, run_id))
