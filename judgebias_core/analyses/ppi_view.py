"""The view of a judge-assisted estimate (prediction-powered inference, METHODS.md section 8): what the Calibration
page's two estimate blocks, the report's calibration section and ``metrics ppi --json`` show, built once (issue 24:
one view per topic).

The reader sees plain words first: what the estimate says with its 95% range and counts, how much the judge
narrows that range, and whether labelling more items is worth it. The method (PPI++, the tuning, the sampling, the
interval's construction) goes into the fold "How this was decided". A simulated judge is named so in the first
sentence itself, since the estimate is of what people would say.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from judgebias_core.analyses.calibration import judge_is_simulated, prediction_powered_any
from judgebias_core.metrics.ppi import (
    FEW_LABELS,
    PredictionPoweredMeanScore,
    PredictionPoweredWinRate,
    labels_worth_sentence,
)
from judgebias_core.simulated import SIMULATED_WHO
from judgebias_core.stats.ppi import PPIMethod
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.verdict import Verdict, VerdictLine

__all__ = ["PPIView", "ppi_view", "ppi_view_of", "too_few_items_sentence"]

SIMULATED_NOTE = ("A simulated judge: these figures show how the estimate reads, not what a real model's verdicts "
                  "or scores are worth.")
WIN_RATE_INTRO = (
    "Suppose only a random share of the items had a human label. Prediction-powered inference (Angelopoulos et al. "
    "2023, PPI++) combines the judge's verdicts on every item with those labels into an estimate of the human win "
    "rate whose interval stays valid however wrong the judge is; it is shown next to the human-only estimate (the "
    "labels alone) and the judge's own win rate (not an estimate of the human one). This dataset is labelled "
    "throughout, so the dotted line shows what every human label gives.")
MEAN_SCORE_INTRO = (
    "Suppose only a random share of the items had a human score. Prediction-powered inference (Angelopoulos et al. "
    "2023, power-tuned as PPI++) combines the judge's scores on every item with those labels into an estimate of the "
    "human mean score whose interval stays valid however biased the judge is; it is shown next to the labels alone "
    "(human-only) and the judge's own mean (not an estimate of the human one). This dataset is labelled throughout, "
    "so the dotted line shows what every label gives.")
ADVICE_RULE = ("An interval's width shrinks as one over the square root of the labelled items, so n labels with the "
               "judge beside them give the width of n / r^2 labels alone, r being the ratio of the two widths; below "
               f"{FEW_LABELS} labelled items the interval itself is less reliable, whatever the judge adds.")


@dataclass(frozen=True)
class PPIView:
    """A judge-assisted estimate of what people would say (a candidate's win rate, or the mean score on a rubric)
    from the judge on every item and people's labels on ``labelled`` of them, with the plain sentences and the
    method behind them. ``width_ratio`` is the judge-assisted interval's width over the labels-alone one and
    ``labels_equivalent`` the number of labels alone that would give the judge-assisted width (None when either
    interval has no width)."""

    dataset_id: str
    judge: str
    simulated: bool
    who: str  # the judge as sentences name it ("... (a simulated judge, not a model)" when simulated)
    result: PredictionPoweredWinRate | PredictionPoweredMeanScore
    quantity: str  # what is estimated, in words
    labelled: int
    unlabelled: int
    width_ratio: float | None
    labels_equivalent: float | None
    verdict: Verdict  # What it shows / How sure we are / What to do, each with its rule for the fold
    method: tuple[str, ...]  # the fold "How this was decided": intro, counts and sampling, reading, interval
    report_sentence: str  # the report's sentence with the figures (engineer's words allowed: it follows the verdict)
    simulated_note: str | None

    @property
    def win_rate(self) -> bool:
        return isinstance(self.result, PredictionPoweredWinRate)

    @property
    def sentence(self) -> str:
        """The plain lines in order: what it shows, how sure, what to do."""
        return " ".join(line.text for line in self.verdict.lines)

    def json_keys(self) -> dict[str, Any]:
        """The keys ``metrics ppi --json`` adds to the result's own (docs/JSON_CHANGELOG.md, issue 24)."""
        return {"simulated": self.simulated, "simulated_note": self.simulated_note, "unlabelled": self.unlabelled,
                "width_ratio": self.width_ratio, "labels_equivalent": self.labels_equivalent,
                "plain_sentence": self.sentence, "verdict": self.verdict.as_dict(), "method_notes": list(self.method)}


def _shown(value: float, win_rate: bool) -> str:
    return f"{value:.1%}" if win_rate else f"{value:.2f}"


def _range(value: float, low: float, high: float, win_rate: bool) -> str:
    return f"{_shown(value, win_rate)} (95% range {_shown(low, win_rate)} to {_shown(high, win_rate)})"


def _what_it_says(result: PredictionPoweredWinRate | PredictionPoweredMeanScore, who: str) -> str:
    e = result.estimate.ppi
    stored = isinstance(result, PredictionPoweredMeanScore) and result.labels == "stored"
    labels = (f"people's labels on the {result.labelled:,} items that have one" if stored
              else f"people's labels kept on {result.labelled:,} of them")
    if isinstance(result, PredictionPoweredWinRate):
        return (f"From the verdicts of {who} on all {result.items:,} items and {labels}, people would prefer "
                f"{result.candidate} in about {_range(e.estimate, e.low, e.high, True)} of its pairs, a tie "
                "counting half.")
    return (f"From the scores of {who} on all {result.items:,} items and {labels}, people's mean score on "
            f"{result.rubric_id} is about {_range(e.estimate, e.low, e.high, False)}.")


def _widths(result: PredictionPoweredWinRate | PredictionPoweredMeanScore) -> tuple[float | None, float | None]:
    e = result.estimate
    judged, alone = e.ppi.high - e.ppi.low, e.human_only.high - e.human_only.low
    if not (judged > 0 and alone > 0) or math.isnan(judged + alone):
        return None, None
    ratio = judged / alone
    return ratio, e.labelled / ratio**2


def _how_sure(result: PredictionPoweredWinRate | PredictionPoweredMeanScore, ratio: float | None,
              equivalent: float | None) -> str:
    e, n = result.estimate, result.labelled
    values = "verdicts" if isinstance(result, PredictionPoweredWinRate) else "scores"
    if ratio is None or equivalent is None:
        text = (f"How much the judge helps cannot be read: the {n:,} labelled items all carry the same value, so "
                "neither range has a width.")
    elif e.tuning == 0 or ratio >= 1:
        text = (f"The judge's {values} do not narrow the range here: it is as wide as from the {n:,} human labels "
                "alone.")
    else:
        text = (f"With the judge's {values}, the range is {ratio:.0%} as wide as from the {n:,} human labels alone: "
                f"the judge is worth about {max(equivalent - n, 0):,.0f} extra labels.")
    if n < FEW_LABELS:
        text += f" With fewer than {FEW_LABELS} labelled items the range itself is less trustworthy than it looks."
    return text


def _what_to_do(result: PredictionPoweredWinRate | PredictionPoweredMeanScore, ratio: float | None) -> str:
    n = result.labelled
    if n < FEW_LABELS:
        return f"Label at least {FEW_LABELS} items before relying on this figure; {n:,} is too few."
    if ratio is None:
        return "Label more items (or draw another sample) before reading this figure."
    if result.estimate.tuning == 0 or ratio >= 1:
        return ("Labelling more items is the only way to be surer here: this judge saves no labelling on this "
                "question.")
    return (f"Labelling more items is worth it only if you need a narrower range: with the judge beside them, each "
            f"labelled item counts for about {1 / ratio**2:.1f} labelled alone.")


def _counts(result: PredictionPoweredWinRate | PredictionPoweredMeanScore, ratio: float | None) -> str:
    """The counts and the sampling, with the tuning and what every label gives (the pages' former caption)."""
    e = result.estimate
    if isinstance(result, PredictionPoweredWinRate):
        width = f"{ratio:.0%}" if ratio is not None else "not comparable"
        return (f"{result.labelled:,} of {result.items:,} items keep their human label ({result.sampling}). The "
                f"prediction-powered interval is {width} as wide as the human-only one (PPI++ tuning {e.tuning:.2f}: "
                "0 means the judge adds nothing, 1 full trust in its rectified verdicts); all human labels give "
                f"{result.all_labels_human_win_rate:.3f}. Units are items (both orders of a pair together).")
    raters = str(result.raters_min) if result.raters_min == result.raters_max \
        else f"{result.raters_min} to {result.raters_max}"
    unparsed = f" ({result.unparsed_calls:,} unparsed left out)" if result.unparsed_calls else ""
    every = (f" All labels give {result.all_labels_human_mean:.3f}." if result.all_labels_human_mean is not None
             else "")
    return (f"Rubric {result.rubric_id} · runs {', '.join(result.runs)}. {result.labelled:,} of {result.items:,} items "
            f"keep their {result.label_source} score ({result.sampling}). Units are items: the judge's "
            f"{result.calls:,} parsed calls are averaged per item{unparsed}, and the {raters} raters' scores of an item "
            f"are averaged into its label. PPI++ tuning {e.tuning:.2f} (0: the judge adds nothing, 1: full trust in "
            f"its rectified scores); interval: {e.interval}.{every}")


def _interval(value: float, low: float, high: float) -> str:
    return f"{value:.2f} ({low:.2f} to {high:.2f})"


def _three_figures(result: PredictionPoweredWinRate | PredictionPoweredMeanScore) -> str:
    e = result.estimate
    return (f"{_interval(e.ppi.estimate, e.ppi.low, e.ppi.high)}, against "
            f"{_interval(e.human_only.estimate, e.human_only.low, e.human_only.high)} from those labels alone and "
            f"{e.judge_only.estimate:.2f} from the judge alone (not an estimate of the human figure)")


def _report_sentence(result: PredictionPoweredWinRate | PredictionPoweredMeanScore, who: str) -> str:
    """The report's sentence with the three figures (it follows the plain verdict there)."""
    caution = f" Caution: {result.caveat}." if result.caveat else ""
    labelled = (f"{result.labelled:,} random items of {result.items:,}" if result.seed is not None
                else f"the {result.labelled:,} labelled items of {result.items:,}")
    if isinstance(result, PredictionPoweredWinRate):
        return (f"What the verdicts of {who} are worth: keeping the human labels of {labelled}, the "
                f"prediction-powered estimate (PPI++, Angelopoulos et al. 2023) of {result.candidate}'s human win "
                f"rate is {_three_figures(result)}; every human label gives "
                f"{result.all_labels_human_win_rate:.2f}.{caution}")
    every = (f"; every label gives {result.all_labels_human_mean:.2f}" if result.all_labels_human_mean is not None
             else "")
    return (f"What the scores of {who} are worth: keeping the human scores of {labelled} (the raters of an item "
            f"averaged, the judge's calls of an item averaged), the prediction-powered estimate (PPI++, Angelopoulos "
            f"et al. 2023) of the human mean score on {result.rubric_id} is {_three_figures(result)}{every}. "
            f"{labels_worth_sentence(result.estimate)}{caution}")


def too_few_items_sentence(share_control: str) -> str:
    """What a page says when its share of labelled items leaves fewer than two items with a label or without one
    (the estimate needs both), naming the control that changes it."""
    return ("No estimate at this share: it needs at least two items whose label is kept and two whose label is "
            f"not. Move the slider '{share_control}' (or choose a run with more items).")


def ppi_view_of(result: PredictionPoweredWinRate | PredictionPoweredMeanScore, simulated: bool) -> PPIView:
    """The view of a computed estimate (``simulated``: whether its judge is a simulated one)."""
    who = result.judge + SIMULATED_WHO if simulated else result.judge
    win_rate = isinstance(result, PredictionPoweredWinRate)
    e = result.estimate
    ratio, equivalent = _widths(result)
    intro = WIN_RATE_INTRO if win_rate else MEAN_SCORE_INTRO
    counts = _counts(result, ratio)
    reading = labels_worth_sentence(e) + (f" Caution: {result.caveat}." if result.caveat else "")
    quantity = (f"{result.candidate}'s win rate with people" if isinstance(result, PredictionPoweredWinRate)
                else f"people's mean score on {result.rubric_id}")
    verdict = Verdict(
        analysis="ppi", subject=f"What the judge's {'verdicts' if win_rate else 'scores'} are worth: {quantity}",
        lines=(VerdictLine("What it shows", _what_it_says(result, who), f"{intro} {counts}"),
               VerdictLine("How sure we are", _how_sure(result, ratio, equivalent), f"{reading} {e.interval}."),
               VerdictLine("What to do", _what_to_do(result, ratio), ADVICE_RULE)),
        figures={"estimate": e.ppi.estimate, "low": e.ppi.low, "high": e.ppi.high, "labelled": result.labelled,
                 "items": result.items})
    return PPIView(
        dataset_id=result.dataset_id, judge=result.judge, simulated=simulated, who=who, result=result,
        quantity=quantity, labelled=result.labelled, unlabelled=e.unlabelled, width_ratio=ratio,
        labels_equivalent=equivalent, verdict=verdict, method=(intro, counts, reading, f"Interval: {e.interval}."),
        report_sentence=_report_sentence(result, who), simulated_note=SIMULATED_NOTE if simulated else None)


def ppi_view(reader: StoreReader, dataset_id: str, judge: str, candidate: str | None = None,
             rubric: str | None = None, study: str | None = None, label_fraction: float | None = None,
             seed: int = 0, method: PPIMethod = "ppi++", stored_labels: bool = False) -> PPIView:
    """The judge-assisted estimate of ``judge`` on ``dataset_id`` (``analyses.calibration.prediction_powered_any``:
    a candidate's human win rate where the judge made pairwise calls on labelled items, else the human mean score
    on a rubric), with its sentences."""
    result = prediction_powered_any(reader, dataset_id, judge, candidate, rubric, study, label_fraction, seed,
                                    method, stored_labels)
    return ppi_view_of(result, judge_is_simulated(reader, judge))
