"""The pairwise topic's view: everything the Pairwise bias page, the report's swap section and ``metrics pairwise
--json`` show, computed once (METHODS.md sections 2 and 3).

The page, the report and the CLI read this one object, so their figures, correction families and verdicts cannot
drift. The page corrects the rows it shows; the report corrects every study and repetition of the dataset. Both
families travel in the view (``family`` and ``report_family``) so each place can say which family it used and how
many tests it holds, beside the other's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import pandas as pd

from judgebias_core.analyses.pairwise import (
    candidate_win_intervals,
    listwise_metrics,
    pairwise_metrics,
    study_item_notes,
    unit_metrics,
)
from judgebias_core.metrics.listwise import ListwiseJudgeMetrics
from judgebias_core.metrics.pairwise import (
    PairwiseJudgeMetrics,
    RankingSafety,
    candidate_win_rates,
    metrics_frame,
    ranking_safety,
    task_breakdown,
)
from judgebias_core.metrics.pairwise_family import (
    CORRECTIONS,
    corrected_column,
    correction_words,
    dataset_families,
    page_family_scope,
    pairwise_family,
)
from judgebias_core.simulated import simulated_notice
from judgebias_core.stats.multiple import CorrectedTests, Correction
from judgebias_core.store.handle import StoreReader
from judgebias_core.store.pairwise_queries import pair_details, pairwise_scope
from judgebias_core.store.queries import dataset_summaries
from judgebias_core.wording.verdict import Verdict, pairwise_verdicts
from judgebias_core.wording.verdict_studies import verdicts_across_studies

__all__ = ["CORRECTIONS", "REPORT_FAMILY", "PairwiseChoices", "PairwiseView", "inconsistent_pairs",
           "pairwise_choices", "pairwise_view"]

# Which tests the report's family holds: pages correct a smaller family (the rows they show) and say so.
REPORT_FAMILY = ("every study and repetition in this report: the position test of every row and the excess over "
                 "the repetition floor where measured")


@dataclass(frozen=True)
class PairwiseChoices:
    """What the page's selectors offer for a dataset and study, in the order offered (the first is the default)."""

    datasets: tuple[str, ...]  # the store's order (the bundled MTBench first), not alphabetical
    studies: tuple[str, ...]
    repetitions: tuple[int, ...]
    judges: tuple[str, ...]
    tasks: tuple[str, ...]
    candidates: tuple[str, ...]
    has_listwise: bool


def pairwise_choices(reader: StoreReader, dataset_id: str | None = None,
                     study: str | None = None) -> PairwiseChoices:
    """The page's options: datasets with pairs or list-wise calls; then, within ``dataset_id`` (default: the first)
    and ``study`` (None: every study), its studies, repetitions, judges, tasks and candidates."""
    scope = pairwise_scope(reader)
    with_pairs = set(scope["dataset_id"])
    listed = [s.id for s in dataset_summaries(reader) if s.id in with_pairs]
    datasets = (*listed, *sorted(with_pairs - set(listed)))
    dataset = dataset_id if dataset_id is not None else (datasets[0] if datasets else None)
    in_dataset = scope[scope["dataset_id"] == dataset]
    in_study = in_dataset if study is None else in_dataset[in_dataset["study"] == study]
    return PairwiseChoices(
        datasets=datasets, studies=tuple(sorted(in_dataset["study"].unique())),
        repetitions=tuple(sorted(int(r) for r in in_study["repetition"].unique())),
        judges=tuple(sorted(in_study["judge"].unique())), tasks=tuple(sorted(in_study["task"].unique())),
        candidates=tuple(sorted(in_study["candidate"].dropna().unique())),
        has_listwise=bool((in_study["kind"] == "listwise").any()))


@dataclass(frozen=True)
class PairwiseView:
    """One dataset's swap test as a reader sees it. ``results``: the rows shown (every filter applied); ``family``:
    their position and excess tests corrected together (``family_scope`` says which tests that is);
    ``report_family``: every study and repetition of the dataset (judge filter only) corrected together, as the
    report does; ``detail_study``: the one study the per-task, win-rate and drill-down parts look at."""

    dataset: str
    study: str | None  # None: every study of the dataset
    results: tuple[PairwiseJudgeMetrics, ...]
    family: CorrectedTests
    family_scope: str
    report_family: CorrectedTests
    item_notes: Mapping[tuple[str, str], str]
    verdicts: tuple[Verdict, ...]
    simulated_notice: str | None
    detail_study: str
    detail_results: tuple[PairwiseJudgeMetrics, ...]  # the rows of detail_study
    units: pd.DataFrame  # per (judge, candidate, task) of detail_study
    breakdown: pd.DataFrame  # per (judge, task) of detail_study
    wins: pd.DataFrame  # per (judge, candidate) with its interval
    safety: tuple[tuple[str, RankingSafety], ...]  # (judge, whether its top two could be an artefact of position)
    listwise: tuple[ListwiseJudgeMetrics, ...]
    everywhere: tuple[PairwiseJudgeMetrics, ...]  # every dataset and study (filled on request)

    @property
    def correction_words(self) -> str:
        """'Holm correction over 3 tests shown together (the rows shown ...)' for the page's family."""
        return correction_words(self.family, self.family_scope)

    @property
    def report_correction_words(self) -> str:
        return correction_words(self.report_family, REPORT_FAMILY)

    @property
    def families_side_by_side(self) -> str:
        """Both families in one sentence, so the page and the report each say what the other corrects."""
        page, report = self.family, self.report_family
        if page.family_size == report.family_size and page.method == report.method and self.study is None:
            return (f"Corrected p-values: {page.method_name} over {page.family_size} tests, the same family on this "
                    "page and in the report (every study and repetition of the dataset).")
        return (f"Corrected p-values: {page.method_name} over the {page.family_size} tests of the rows shown on this "
                f"page; the report corrects {report.family_size} tests ({report.method_name}, every study and "
                "repetition of the dataset), so its corrected p-values can be larger. Both are in the table.")

    def table(self) -> pd.DataFrame:
        """The rows shown with both corrected p-values and the item-set note (column names as stored)."""
        rows = list(self.results)
        return metrics_frame(rows).assign(
            position_p_corrected=corrected_column(rows, self.family),
            flip_rate_excess_p_corrected=corrected_column(rows, self.family, "excess"),
            position_p_corrected_report=corrected_column(rows, self.report_family),
            item_set_note=[self.item_notes.get((r.judge, r.study), "") for r in rows])

    def headline(self) -> list[PairwiseJudgeMetrics]:
        """The detail study's first repetitions, steadiest first (what the report's sentences speak of)."""
        return sorted((r for r in self.detail_results if r.repetition == 1), key=lambda r: r.flip_rate)

    def report_verdicts(self, who: Mapping[str, str]) -> list[Verdict]:
        """The report's verdicts: the detail study's first repetitions against the report's family."""
        headline = self.headline()
        return pairwise_verdicts(headline, {r.judge: who.get(r.judge, r.judge) for r in headline},
                                 self.report_family, REPORT_FAMILY)

    def json_rows(self) -> list[dict]:
        """``metrics pairwise --json``: every row with its corrected p-values over the rows printed and over its
        dataset's rows printed (what the page corrects in its default view)."""
        rows = list(self.results)
        position, excess = corrected_column(rows, self.family), corrected_column(rows, self.family, "excess")
        own = dataset_families(rows, self.family.method)
        return [asdict(r) | {"position_p_corrected": p, "flip_rate_excess_p_corrected": e,
                             "correction": self.family.method, "family_size": self.family.family_size,
                             "dataset_family_size": own[r.dataset].family_size,
                             "position_p_corrected_in_dataset": corrected_column([r], own[r.dataset])[0],
                             "flip_rate_excess_p_corrected_in_dataset":
                                 corrected_column([r], own[r.dataset], "excess")[0],
                             "flip_rate_estimate": asdict(r.flip_rate_estimate)}
                for r, p, e in zip(rows, position, excess, strict=True)]


def _scoped(reader: StoreReader, dataset_id: str | None, judges: Sequence[str] | None,
            studies: Sequence[str] | None, tasks: Sequence[str] | None,
            candidates: Sequence[str] | None) -> list[PairwiseJudgeMetrics]:
    if studies is None:
        return pairwise_metrics(reader, dataset_id, judges, None, tasks=tasks, candidates=candidates)
    return [r for study in studies
            for r in pairwise_metrics(reader, dataset_id, judges, study, tasks=tasks, candidates=candidates)]


def _empty_family(method: Correction) -> CorrectedTests:
    return pairwise_family([], method)


def pairwise_view(reader: StoreReader, dataset_id: str | None, studies: Sequence[str] | None = None,
                  judges: Sequence[str] | None = None, repetition: int | None = None,
                  tasks: Sequence[str] | None = None, candidates: Sequence[str] | None = None,
                  correction: Correction = "holm", details: bool = True, everywhere: bool = False,
                  report_studies: Sequence[str] | None = None) -> PairwiseView:
    """The view of ``dataset_id`` (None: every dataset, for the CLI) over ``studies`` (None: every study), one
    ``repetition`` or all, within ``tasks`` and ``candidates``. ``details`` adds the per-task, win-rate and list-wise
    parts of the detail study; ``everywhere`` every dataset's rows (the page's wide forest). ``report_studies``: the
    studies the report's family spans (None: every study of the dataset)."""
    judges = tuple(judges) if judges else None
    tasks, candidates = (tuple(tasks) if tasks else None), (tuple(candidates) if candidates else None)
    results = [r for r in _scoped(reader, dataset_id, judges, studies, tasks, candidates)
               if repetition is None or r.repetition == repetition]
    family = pairwise_family(results, correction)
    one_study = studies[0] if studies is not None and len(studies) == 1 else None
    family_scope = page_family_scope(one_study)
    if dataset_id is None:
        report_family = _empty_family(correction)
    elif (studies is None and report_studies is None or studies is not None and report_studies is not None
          and tuple(studies) == tuple(report_studies)) and repetition is None and not tasks and not candidates:
        report_family = family
    else:
        report_family = pairwise_family(_scoped(reader, dataset_id, judges, report_studies, None, None), correction)
    notes = study_item_notes(reader, dataset_id) if dataset_id is not None else {}
    measured = list(dict.fromkeys(r.study for r in results)) or list(
        studies or (pairwise_choices(reader, dataset_id).studies if dataset_id is not None else ()))
    detail_study = "full" if "full" in measured else (measured[0] if measured else "")
    detail_results = tuple(r for r in results if r.study == detail_study)
    units = breakdown = wins = pd.DataFrame()
    safety: list[tuple[str, RankingSafety]] = []
    listwise: list[ListwiseJudgeMetrics] = []
    if details and dataset_id is not None and detail_study:
        units = unit_metrics(reader, dataset_id, detail_study, judges, repetition)
        if tasks:
            units = units[units["task"].isin(tasks)]
        if candidates:
            units = units[units["candidate"].isin(candidates)]
        listwise = listwise_metrics(reader, dataset_id, judges, detail_study)
        if not units.empty:
            breakdown = task_breakdown(units)
            wins = candidate_win_rates(units).merge(
                candidate_win_intervals(reader, dataset_id, detail_study, judges, repetition, tasks, candidates),
                on=["judge", "candidate"], how="left")
            first_rep = min((r.repetition for r in detail_results), default=1)
            for r in detail_results:
                if repetition is None and r.repetition != first_rep:
                    continue
                judge_wins = wins[wins["judge"] == r.judge].set_index("candidate")
                if (found := ranking_safety(judge_wins["overall_win_rate"], r.flip_rate_decision_high)) is not None:
                    safety.append((r.judge, found))
    return PairwiseView(
        dataset=dataset_id or "", study=one_study, results=tuple(results), family=family, family_scope=family_scope,
        report_family=report_family, item_notes=notes,
        verdicts=tuple(verdicts_across_studies(results, notes, family, family_scope)),
        simulated_notice=simulated_notice([r.judge for r in results]), detail_study=detail_study,
        detail_results=detail_results, units=units, breakdown=breakdown, wins=wins, safety=tuple(safety),
        listwise=tuple(listwise),
        everywhere=tuple(pairwise_metrics(reader, None, judges, None)) if everywhere else ())


def inconsistent_pairs(reader: StoreReader, dataset_id: str, study: str, judge: str,
                       classifications: Sequence[str], repetition: int | None = None, task: str | None = None,
                       candidate: str | None = None, limit: int = 500) -> pd.DataFrame:
    """The pairs of one judge in the given classes, both raw replies beside the question, for the drill-down."""
    return pair_details(reader, dataset_id, study, (judge,), tuple(classifications), repetition, task, candidate,
                        limit)
