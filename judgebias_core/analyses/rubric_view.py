"""The rubric topic's view of one run (issue 24): the analysis, its verdict, the plain note on a simulated judge,
and every sentence and table the reader sees (position shares, balance, ordering ranks, the run's own Bias Cost,
"probe, then choose", G-Eval), read alike by the Rubric bias page, the report's rubric section and ``metrics rubric
--json`` (METHODS.md section 4), so they cannot drift."""

from __future__ import annotations

from dataclasses import dataclass

from judgebias_core.analyses.rubric import probe_recommendation, rubric_report
from judgebias_core.errors import JudgebiasError
from judgebias_core.metrics.rubric_correlation import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from judgebias_core.metrics.rubric_report import ProbeRecommendation, RubricReport
from judgebias_core.simulated import simulated_notice
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.geval_words import GEvalWords, geval_words
from judgebias_core.wording.rubric_correlation_words import (
    CorrelationWords,
    SpreadWords,
    correlation_words,
    spread_words,
)
from judgebias_core.wording.rubric_probe_words import DESIGN_NAMES, ProbeChoice, probe_choice
from judgebias_core.wording.rubric_words import (
    OrderingRankWords,
    OwnCostWords,
    PositionShareWords,
    never_chosen_words,
    ordering_rank_words,
    own_cost_words,
    position_share_words,
    unmarked,
)
from judgebias_core.wording.verdict import Verdict, rubric_verdict

# Offered to the interfaces, which reach wording/ through analyses/ (docs/ARCHITECTURE.md, "Layers"): ``unmarked``
# gives the CLI the page's sentences without their bold marks.
__all__ = ["DESIGN_NAMES", "ProbeChoice", "ProbeRecommendation", "RubricView", "probe_choice", "rubric_view",
           "unmarked"]


@dataclass(frozen=True)
class RubricView:
    """One rubric run as a reader sees it: ``report`` (place shares, P(position | score), Permutation vs Repeat,
    orderings, Bias Cost, G-Eval), its ``verdict``, the simulated-judge notice (None for a real model); in words, the
    position shares, the scores never chosen, Permutation vs Repeat, the within-item spread, the orderings' ranks,
    the run's own Bias Cost and the G-Eval block; and ``probe`` ("probe, then choose" under a probe run and a
    candidate set; None unless asked for, or when it failed: ``probe_error``)."""

    report: RubricReport
    verdict: Verdict
    simulated_notice: str | None
    position: PositionShareWords
    never_chosen: str | None
    correlation: CorrelationWords
    spread: SpreadWords
    ordering_rank: OrderingRankWords
    own_cost: OwnCostWords
    geval: GEvalWords
    probe: ProbeChoice | None = None
    probe_error: JudgebiasError | None = None


def rubric_view(reader: StoreReader, run_id: str, repeat_run_id: str | None = None, probe_run_id: str | None = None,
                resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED, who: str | None = None,
                design: str | None = None, choice_probe_run_id: str | None = None) -> RubricView:
    """The view of ``run_id`` (a repeat run as its baseline; ``probe_run_id``'s P(position | score) for the Bias
    Cost of the run's own orderings, the run's own by default); ``who`` names the judge in the verdict (the report
    says "(a simulated judge)"). With ``design`` (one of ``CANDIDATE_DESIGNS``) the view also holds the choice among
    those candidates under ``choice_probe_run_id`` (default: ``probe_run_id``, else the run itself), as the page's
    "probe, then choose" block shows it."""
    report = rubric_report(reader, run_id, repeat_run_id, probe_run_id, resamples, seed)
    probe, probe_error = None, None
    if design is not None:
        chosen = choice_probe_run_id or probe_run_id or run_id
        try:
            result = probe_recommendation(reader, chosen, design, run_id, resamples, seed)
            probe = probe_choice(report, result, chosen)
        except JudgebiasError as error:  # the page shows it in the block and draws the rest
            probe_error = error
    return RubricView(report=report, verdict=rubric_verdict(report, who),
                      simulated_notice=simulated_notice([report.run.judge]) if report.run.simulated else None,
                      position=position_share_words(report), never_chosen=never_chosen_words(report),
                      correlation=correlation_words(report),
                      spread=spread_words(report), ordering_rank=ordering_rank_words(report),
                      own_cost=own_cost_words(report), geval=geval_words(report.geval, run_id), probe=probe,
                      probe_error=probe_error)
