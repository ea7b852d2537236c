"""The "Agreement between judges" topic's view: everything the Judges page, the report's agreement section and
`metrics agreement --json` show, built once from one store snapshot (issue 24: one view per topic)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from judgebias_core.analyses.judges import agreement_report
from judgebias_core.analyses.pairwise import study_item_notes
from judgebias_core.metrics.agreement import (
    ENSEMBLE_JUDGE,
    AgreementResult,
    agreement_pairs_frame,
    family_agreement_sentence,
)
from judgebias_core.metrics.item_sets import default_studies, studies_sentence
from judgebias_core.simulated import simulated_among
from judgebias_core.stats.clustered import CONFIDENCE
from judgebias_core.store.agreement_queries import pairwise_studies
from judgebias_core.store.calibration_queries import item_texts
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import count_of, percent
from judgebias_core.wording.verdict import Verdict, agreement_verdict

__all__ = ["DISPUTED_LEGEND", "ENSEMBLE_JUDGE", "FAMILY_RULE", "item_texts", "JudgesView", "judges_default_studies",
           "judges_view"]

# How the "By family" part pools, and how the disputed calls are read: the same words wherever they are shown.
FAMILY_RULE = ("Judges are ordered by family in the heatmap; here the agreement of every pair of judges is pooled by "
               "the two families (ratio of sums). A diagonal cell needs two judges of that family.")
DISPUTED_LEGEND = ("Verdicts: A = first slot better, B = second slot better, C = tie; empty = not answered or not "
                   f"parsed; {ENSEMBLE_JUDGE} is the majority vote.")


@dataclass(frozen=True)
class JudgesView:
    """What a reader sees of the agreement between the judges of ``studies``: the result (pairs, kappas with their
    intervals, the disagreement distribution, the majority vote), the verdict, the sentences, the pair table with its
    counts and the notes. Agreement is descriptive: no test and so no correction family. ``judge_filter``: the
    judges kept (a report on chosen judges); the majority vote and the disagreement counts still use every judge.
    Every sentence the page shows is here, so the page, the report and `metrics agreement --json` say the same."""

    dataset_id: str
    studies: tuple[str, ...]
    repetition: int | None
    result: AgreementResult
    verdict: Verdict | None
    sentences: tuple[str, ...]
    pairs: pd.DataFrame  # one row per judge pair, then the majority-vote rows: agreement, kappa and its interval
    kappa_note: str
    alpha_note: str | None
    family_sentence: str | None  # the pooled family agreement in words (a heatmap of a few cells says less)
    studies_note: str
    notes: tuple[str, ...]
    simulated: tuple[str, ...]
    scope_sentence: str  # the dataset, studies and repetition shown, and the majority vote's rule
    disagreement_sentence: str | None  # how many judges differ from the majority, on average
    too_few_judges: str | None  # why there is no agreement to show (one judge in the studies)
    judge_filter: tuple[str, ...] = ()
    filter_note: str | None = None

    @property
    def study_label(self) -> str:
        return ", ".join(self.studies)


def agreement_sentences(result: AgreementResult, study: str, with_disagreement: bool = True) -> list[str]:
    """The most and the least agreeing pairs with their counts, then how often every judge agrees."""
    pairs = sorted((p for p in result.pairs if p.n), key=lambda p: p.agreement)
    if not pairs:
        return []
    low, high = pairs[0], pairs[-1]
    if len(pairs) == 1:
        text = (f"In study '{study}', {high.a} and {high.b} give the same verdict on "
                f"{percent(high.agreement)} of {high.n:,} shared calls.")
    else:
        text = (f"In study '{study}', {high.a} and {high.b} give the same verdict most often "
                f"({percent(high.agreement)} of {high.n:,} shared calls); {low.a} and {low.b} least often "
                f"({percent(low.agreement)} of {low.n:,}).")
    spread = result.disagreement
    if with_disagreement and spread.instances:
        text += (f" All {spread.judges} judges agree on {count_of(spread.counts.get(0, 0), spread.instances, 'call')}"
                 f" that every one of them answered.")
    return [text]


def _kept(result: AgreementResult, keep: Sequence[str]) -> AgreementResult:
    chosen = set(keep)
    return replace(result, judges=[j for j in result.judges if j in chosen],
                   pairs=[p for p in result.pairs if p.a in chosen and p.b in chosen],
                   ensemble_pairs=[p for p in result.ensemble_pairs if p.a in chosen])


def _too_few_judges(judges: Sequence[str], studies: Sequence[str], judge_filter: Sequence[str]) -> str | None:
    """Why no agreement can be shown: one judge (or none) in the studies, or among the judges chosen."""
    if len(judges) >= 2:
        return None
    where = ("among the judges chosen" if judge_filter else
             "in the chosen study" if len(studies) == 1 else "in the chosen studies")
    return f"Agreement needs two judges; {f'only {judges[0]} is' if judges else 'no judge is'} {where}."


def judges_default_studies(reader: StoreReader, dataset_id: str) -> list[str]:
    """The studies the Judges page opens on: every study, or the fewest that hold every judge when there are many."""
    frame = pairwise_studies(reader, dataset_id)
    return default_studies(dict(zip(frame["study"], frame["judges"], strict=True)))


def judges_view(reader: StoreReader, dataset_id: str, studies: Sequence[str], repetition: int | None = None,
                judge_filter: Sequence[str] = ()) -> JudgesView:
    """The agreement of every pair of judges in ``studies`` (one repetition, or all), with what each reader sees."""
    result = agreement_report(reader, dataset_id, list(studies), repetition)
    if judge_filter:
        result = _kept(result, judge_filter)
    label = ", ".join(studies)
    interval = next((p.kappa.method for p in result.pairs if p.kappa is not None), "none")
    kappa_note = (f"Kappa intervals: {int(100 * CONFIDENCE)}% {interval} (whole items resampled, all calls of an item "
                  f"together). {result.kappa_scope}. Ensemble rows: {result.ensemble_comparison}; 'no majority among "
                  "the others' is the share of the judge's parsed calls on which the other judges have no majority "
                  "(those calls are not scored).")
    alpha = result.krippendorff_alpha
    alpha_note = (f"Krippendorff's alpha {alpha.estimate:.3f} [{alpha.low:.3f}, {alpha.high:.3f}] ({alpha.method}). "
                  f"Effective judges: {result.effective_judges_basis}."
                  if alpha is not None and result.effective_judges is not None else None)
    frame = pairwise_studies(reader, dataset_id)
    study_judges = dict(zip(frame["study"], frame["judges"], strict=True))
    spread = result.disagreement
    studies_note = studies_sentence({s: study_judges[s] for s in studies if s in study_judges},
                                    study_item_notes(reader, dataset_id))
    return JudgesView(
        dataset_id=dataset_id, studies=tuple(studies), repetition=repetition, result=result,
        verdict=agreement_verdict(result, label),
        sentences=tuple(agreement_sentences(result, label, with_disagreement=not judge_filter)),
        pairs=agreement_pairs_frame(result), kappa_note=kappa_note, alpha_note=alpha_note,
        family_sentence=family_agreement_sentence(result.family_agreement) if result.family_agreement else None,
        studies_note=studies_note, notes=tuple(result.notes),
        scope_sentence=(f"Dataset {dataset_id} · studies {label} · repetition "
                        f"{'all' if repetition is None else repetition}. Majority vote: {result.ensemble_rule}."),
        disagreement_sentence=(f"Mean judges differing from the majority: {spread.mean:.2f} of {spread.judges}, over "
                               f"{spread.instances:,} calls every judge answered.") if spread.instances else None,
        too_few_judges=_too_few_judges(result.judges, studies, judge_filter),
        filter_note="The majority vote and the disagreement counts use every judge of the study." if judge_filter else None,
        simulated=simulated_among(result.judges), judge_filter=tuple(judge_filter))
