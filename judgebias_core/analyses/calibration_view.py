"""The "Agreement with people" topic's view: what the Calibration page, the report's calibration section and
`metrics calibration --json` show of one judge on one run (or its runs pooled), built once from one store snapshot
(issue 24: one view per topic)."""

from __future__ import annotations

from dataclasses import dataclass

from judgebias_core.analyses.calibration import calibration, dataset_label_words, judge_is_simulated
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.calibration import ORIGINAL_FIRST, AgreementTable, PairwiseCalibration, RubricCalibration
from judgebias_core.metrics.label_words import LabelWords
from judgebias_core.simulated import SIMULATED_WHO
from judgebias_core.stats.agreement import AgreementEstimate
from judgebias_core.store.calibration_queries import item_texts
from judgebias_core.store.handle import StoreReader
from judgebias_core.text import counted
from judgebias_core.wording.verdict import Verdict, calibration_verdict

__all__ = ["ENSEMBLE_JUDGE", "AgreementEstimate", "AgreementTable", "CalibrationView", "PairwiseCalibration",
           "RubricCalibration", "calibration_view", "disagreement_caption", "human_ceiling_sentences", "item_texts"]



@dataclass(frozen=True)
class CalibrationView:
    """A judge against the dataset's labels: the result (kappa and its interval, counts, the human ceiling), how the
    labels are named (people's, gold, or a reference judge's), whether the judge is simulated (then ``who`` says so,
    and so does every sentence comparing it with people), the verdict and the notes on the labels. Kappa is
    descriptive: no test, so no correction family."""

    dataset_id: str
    judge: str
    study: str | None  # None: every run of the judge pooled
    result: PairwiseCalibration | RubricCalibration
    words: LabelWords
    simulated: bool
    who: str
    verdict: Verdict
    ceiling_sentences: tuple[str, ...]
    gold_note: str | None  # markdown: the labels are gold labels set by the dataset's authors
    reference_note: str | None  # markdown: the labels are another model's

    @property
    def pairwise(self) -> bool:
        return isinstance(self.result, PairwiseCalibration)

    @property
    def offers_win_rate(self) -> bool:
        """Whether a prediction-powered human win rate applies: people's labels naming the candidates (Auto-J)."""
        return (isinstance(self.result, PairwiseCalibration) and self.result.label_source == "human"
                and ORIGINAL_FIRST not in self.result.swap_aggregated.labels)


def human_ceiling_sentences(result: RubricCalibration, who: str | None = None) -> list[str]:
    """The judge's agreement with the experts read against the experts' agreement with each other; ``who`` names
    the judge in the sentence itself (a simulated judge is called one where it is compared with people)."""
    readings = (result.human_agreement_reading, result.human_pairwise_kappa_reading)
    named = [reading.replace("this judge", who, 1) if who else reading for reading in readings if reading]
    return [f"Human ceiling: {text if who and text.startswith(who) else text[0].upper() + text[1:]}."
            for text in named]


def disagreement_caption(rows: int, pairwise: bool, label: str = "human label") -> str:
    """The sentence above the Calibration page's listing of the calls where the judge and the labels disagree
    (``disagreeing_pairs`` rows when ``pairwise``, else ``disagreeing_trials`` rows)."""
    if pairwise:
        return (f"{counted(rows, 'pair')} whose verdict taken over both orders differs from the {label} (pairs with "
                "a failed order are listed too).")
    return f"{counted(rows, 'call')}, largest gaps first."


GOLD_NOTE = ("These are **gold labels**: each pair's correct answer as the dataset's authors set it (LLMBar's own "
             "subsets), not ratings collected from human raters. Read every number below as agreement with those "
             "gold labels.")
REFERENCE_NOTE = ("These labels come from a **reference judge** (another model), not from people: read every number "
                  "below as agreement with that judge.")


def calibration_view(reader: StoreReader, dataset_id: str, judge: str, study: str | None = None,
                     all_runs: bool = False) -> CalibrationView:
    """Calibration of ``judge`` on ``study`` (None: its first run, or every run when ``all_runs``)."""
    result = calibration(reader, dataset_id, judge, study, all_runs)
    words = dataset_label_words(reader, dataset_id, result.label_source)
    simulated = judge_is_simulated(reader, judge)
    who = judge + SIMULATED_WHO if simulated else judge
    return CalibrationView(
        dataset_id=dataset_id, judge=judge, study=None if all_runs else (study or result.study), result=result,
        words=words, simulated=simulated, who=who, verdict=calibration_verdict(result, who, simulated, words=words),
        ceiling_sentences=tuple(human_ceiling_sentences(result, who)) if isinstance(result, RubricCalibration)
        else (), gold_note=GOLD_NOTE if words.gold else None,
        reference_note=REFERENCE_NOTE if result.label_source != "human" else None)
