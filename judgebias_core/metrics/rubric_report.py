"""Everything the rubric analysis reports on one run (and its repeat baseline), from its trial frames."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.bias_cost import OrderingCost, bias_costs
from judgebias_core.metrics.bias_cost_bootstrap import BiasCostRanking, bias_cost_ranking
from judgebias_core.metrics.rubric import (
    PositionShare,
    ScorePositionTable,
    WithinItemSpread,
    item_mean_scores,
    item_score_position_counts,
    ordering_item_scores,
    parse_ordering_key,
    parsed_trials,
    position_share,
    rubric_scores,
    run_orderings,
    score_position_table,
    within_item_spread,
)
from judgebias_core.metrics.rubric_balance import ExposureBalance, PositionTests, exposure_balance, position_tests
from judgebias_core.metrics.rubric_correlation import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    HumanCorrelation,
    human_correlation,
    ordering_correlations,
)
from judgebias_core.metrics.rubric_geval import GEvalSummary, geval_summary
from judgebias_core.models import RubricRunInfo
from judgebias_core.protocols.orderings import Ordering, canonical, orderings_for

PREFERRED_LABEL_SOURCES = ("human", "reference-judge")


@dataclass(frozen=True)
class OrderingResult:
    """One ordering of the run: its trials, correlation with the labels (rank 1 = highest Pearson), Bias Cost."""

    ordering: Ordering
    trials: int
    parsed: int
    pearson: float
    spearman: float
    n: int
    rank: int | None
    bias_cost: float
    canonical: bool


@dataclass(frozen=True)
class RubricReport:
    """The rubric position-bias analysis of one run, traceable to its run, judge and counts."""

    run: RubricRunInfo
    k: int
    scores: tuple[int, ...]
    trials: int
    parsed: int
    parse_failures: int
    no_reply: int
    exposure: ExposureBalance
    position: PositionShare
    position_tests: PositionTests
    score_position: ScorePositionTable
    orderings: tuple[OrderingResult, ...]
    probe_run_id: str
    bias_cost: BiasCostRanking
    spread_permutation: WithinItemSpread
    repeat_run: RubricRunInfo | None
    spread_repeat: WithinItemSpread | None
    human: HumanCorrelation | None
    labelled_items: int
    geval: GEvalSummary

    @property
    def balanced(self) -> bool:
        """Balanced on the parsed exposures (every score shown equally often at every position among parsed
        trials), not merely on the orderings the run planned."""
        return self.exposure.balanced

    @property
    def recommended(self) -> OrderingCost | None:
        """The lowest-cost ordering; None when Bias Cost cannot separate the orderings (k = 2, or a tie)."""
        return self.bias_cost.recommended

    def correlation_rank(self, ordering: Sequence[int]) -> int | None:
        """Where an ordering ranks by correlation among this run's orderings (None when not among them)."""
        wanted = tuple(ordering)
        return next((o.rank for o in self.orderings if o.ordering == wanted), None)


@dataclass(frozen=True)
class RunScorePosition:
    """P(position | score) of one run, with what the run is."""

    run: RubricRunInfo
    table: ScorePositionTable
    parsed: int
    item_counts: np.ndarray  # items x k x k parsed choices of score s at position p: the Bias Cost bootstrap's unit


@dataclass(frozen=True)
class ProbeRecommendation:
    """Candidate orderings ranked by Bias Cost under the probe run's P(position | score)."""

    probe: RunScorePosition
    design: str
    costs: BiasCostRanking

    @property
    def ranking(self) -> tuple[OrderingCost, ...]:
        return self.costs.ranking

    @property
    def recommended(self) -> OrderingCost | None:
        return self.costs.recommended


def preferred_labels(labels: pd.DataFrame) -> tuple[pd.Series, str | None]:
    """Per-item labels (``rubric_labels`` rows): human where any exist, else a reference judge's."""
    for source in PREFERRED_LABEL_SOURCES:
        chosen = labels[labels["label_source"] == source]
        if not chosen.empty:
            return chosen.set_index("item_id")["label"].astype(float), source
    return pd.Series(dtype=float), None


def trial_scores(trials: pd.DataFrame) -> tuple[int, ...]:
    """The scores a run's orderings show (all its trials, parsed or not)."""
    return rubric_scores([parse_ordering_key(k) for k in run_orderings(trials)["ordering_key"]])


def run_score_position_from_trials(info: RubricRunInfo, trials: pd.DataFrame) -> RunScorePosition:
    """P(position | score) of one run (a probe run, or one judge's run for side-by-side heatmaps)."""
    scores = trial_scores(trials)
    return RunScorePosition(info, score_position_table(trials, scores), int(len(parsed_trials(trials))),
                            item_score_position_counts(trials, scores))


def probe_table(probe: RunScorePosition, scores: tuple[int, ...]) -> ScorePositionTable:
    """The probe run's P(position | score); InvalidArgument when it shows other scores than the analysed run."""
    if probe.table.scores != scores:
        raise InvalidArgument(
            f"the probe run {probe.run.run_id!r} shows scores {list(probe.table.scores)}, this run {list(scores)}"
        )
    return probe.table


def check_repeat_run(info: RubricRunInfo, repeat_info: RubricRunInfo, k: int) -> None:
    """InvalidArgument unless the repeat run has the same k, dataset and rubric as the analysed run."""
    if repeat_info.k != k:
        raise InvalidArgument(f"the repeat run {repeat_info.run_id!r} has k = {repeat_info.k}, this run k = {k}")
    # Both runs are compared against the same labels, so they must score the same items on the same rubric.
    if (repeat_info.dataset_id, repeat_info.rubric_id) != (info.dataset_id, info.rubric_id):
        raise InvalidArgument(
            f"the repeat run {repeat_info.run_id!r} scores {repeat_info.dataset_id}/{repeat_info.rubric_id}, "
            f"this run {info.dataset_id}/{info.rubric_id}")


def _number(value: object) -> float:
    return float("nan") if value is None or pd.isna(value) else float(value)  # type: ignore[arg-type]  # a stored number


def _ordering_results(counts: pd.DataFrame, parsed: pd.DataFrame, labels: pd.Series, probe: ScorePositionTable,
                      scores: tuple[int, ...]) -> tuple[OrderingResult, ...]:
    correlations = ordering_correlations(ordering_item_scores(parsed), labels)
    frame = counts.merge(correlations, on="ordering_key", how="left")
    orderings = [parse_ordering_key(key) for key in frame["ordering_key"]]
    costs = bias_costs(probe, orderings)
    base = canonical(scores)
    results = [
        OrderingResult(
            ordering=ordering, trials=int(row.trials), parsed=int(row.parsed), pearson=_number(row.pearson),
            spearman=_number(row.spearman), n=0 if pd.isna(row.n) else int(row.n),
            rank=None if pd.isna(row.rank) else int(row.rank), bias_cost=float(cost), canonical=ordering == base,
        )
        for ordering, row, cost in zip(orderings, frame.itertuples(), costs, strict=True)
    ]
    return tuple(sorted(results, key=lambda r: (r.ordering != base, r.ordering)))


def check_resamples(resamples: int) -> None:
    if resamples < 1:
        raise InvalidArgument("the bootstrap needs at least one resample")


def rubric_report_from_trials(info: RubricRunInfo, all_trials: pd.DataFrame, labels: pd.DataFrame,
                              probe: RunScorePosition | None = None,
                              repeat: tuple[RubricRunInfo, pd.DataFrame] | None = None,
                              resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> RubricReport:
    """Analyse a rubric run from its trials (``rubric_trials``) and labels (``rubric_labels``); Bias Cost uses the
    probe run's P(position | score) (this run's when ``probe`` is None); ``repeat`` is the baseline run and its
    trials."""
    check_resamples(resamples)
    trials = parsed_trials(all_trials)  # filtered once: every metric below reads parsed trials only
    counts = run_orderings(all_trials)
    orderings = [parse_ordering_key(key) for key in counts["ordering_key"]]
    scores = rubric_scores(orderings)
    k = len(scores)
    table = score_position_table(trials, scores)
    probe_scores = table if probe is None else probe_table(probe, scores)
    probe_counts = item_score_position_counts(trials, scores) if probe is None else probe.item_counts
    exposure = exposure_balance(all_trials, scores)
    label_means, label_source = preferred_labels(labels)
    repeat_info, repeat_trials = repeat if repeat is not None else (None, None)
    if repeat_info is not None:
        check_repeat_run(info, repeat_info, k)

    human = None
    if label_source is not None:
        human = human_correlation(item_mean_scores(trials),
                                  item_mean_scores(repeat_trials) if repeat_trials is not None else None,
                                  label_means, label_source, resamples, seed)
    parsed = int(len(trials))
    no_reply = int((all_trials["parse_status"] == "no_reply").sum())
    return RubricReport(
        run=info, k=k, scores=scores, trials=int(len(all_trials)), parsed=parsed,
        parse_failures=int(len(all_trials)) - parsed - no_reply, no_reply=no_reply, exposure=exposure,
        position=position_share(trials, k),
        position_tests=position_tests(trials, k, exposure.weighting, resamples, seed), score_position=table,
        orderings=_ordering_results(counts, trials, label_means, probe_scores, scores),
        probe_run_id=probe.run.run_id if probe is not None else info.run_id,
        bias_cost=bias_cost_ranking(probe_scores, probe_counts, orderings, resamples, seed),
        spread_permutation=within_item_spread(trials), repeat_run=repeat_info,
        spread_repeat=within_item_spread(repeat_trials) if repeat_trials is not None else None,
        human=human, labelled_items=int(len(label_means)),
        geval=replace(geval_summary(all_trials, label_means, label_source, resamples, seed),
                      simulated=info.simulated),
    )


CANDIDATE_DESIGNS = ("run", "balanced", "all", "latin", "reverse")


def probe_recommendation_from(probe: RunScorePosition, design: str = "all", run_trials: pd.DataFrame | None = None,
                               resamples: int = BOOTSTRAP_RESAMPLES,
                               seed: int = BOOTSTRAP_SEED) -> ProbeRecommendation:
    """Rank candidate orderings by Bias Cost under the probe's P(position | score).

    ``design`` names the candidates: 'run' (the orderings of ``run_trials``), or a design of protocols.orderings.
    """
    if design == "run":
        if run_trials is None:
            raise InvalidArgument("candidates 'run' need the run whose orderings to rank")
        candidates = [parse_ordering_key(key) for key in run_orderings(run_trials)["ordering_key"]]
    else:
        candidates = orderings_for(design, probe.table.scores)
    return ProbeRecommendation(probe, design,
                               bias_cost_ranking(probe.table, probe.item_counts, candidates, resamples, seed))
