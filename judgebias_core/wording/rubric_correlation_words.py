"""Permutation vs Repeat and the within-item spread in words (issue 24): how a rubric run's scores follow the labels
when the options are rotated and when the canonical order is asked again, and how far one item's score moves with
the order. Read by ``analyses/rubric_view.py`` for the Rubric bias page and the report's rubric section."""

from __future__ import annotations

import math
from dataclasses import dataclass

from judgebias_core.metrics.rubric_correlation import CorrelationEstimate
from judgebias_core.metrics.rubric_report import RubricReport
from judgebias_core.wording.geval_words import ShownMetric

NO_LABELS = ("No human or reference-judge scores exist for these items under this rubric, so there is nothing to "
             "correlate with.")
NO_REPEAT = "Choose a repeat run (the canonical ordering asked again and again) to compare against."
SIMULATED_NOTE = ("The simulated judge scores from the human label plus noise where one exists, so its correlation "
                  "with humans is high by construction.")
SPREAD_INTRO = ("**Within-item spread**: how many points one item's score moves when only the order of the options "
                "changes: the {description}.")


@dataclass(frozen=True)
class CorrelationWords:
    """Permutation vs Repeat: ``intro`` (markdown; None without labels, then ``no_labels`` says so), the three
    metrics (Permutation, Repeat, Difference; "n/a" without a repeat run), ``no_repeat`` when none is chosen, the
    simulated-judge note, and ``sentence``, the report's summary (None without labels)."""

    intro: str | None
    no_labels: str | None
    simulated_note: str | None
    metrics: tuple[ShownMetric, ...]
    no_repeat: str | None
    sentence: str | None


@dataclass(frozen=True)
class SpreadWords:
    """The within-item spread: ``intro`` (markdown), one metric per run (permutation, then repeat when chosen) and
    ``sentence``, the report's summary."""

    intro: str
    metrics: tuple[ShownMetric, ...]
    sentence: str


def _ci_text(estimate: CorrelationEstimate, which: str) -> str:
    low, high = estimate.pearson_ci if which == "pearson" else estimate.spearman_ci
    return f"95% CI {low:.3f} to {high:.3f} · n = {estimate.n} items"


def _items(count: int) -> str:
    return f"{count:,} item{'' if count == 1 else 's'}"


def _summary(report: RubricReport) -> str | None:
    human = report.human
    if human is None or math.isnan(human.permutation.pearson):
        return None
    source = "people's scores" if human.label_source == "human" else "a reference judge's scores (not people's)"
    text = (f"Against {source}, the scores averaged over all orderings correlate at Pearson r = "
            f"{human.permutation.pearson:.2f} over {_items(human.permutation.n)}")
    if human.repeat is not None and not math.isnan(human.repeat.pearson):
        text += f"; asking the canonical order again and again gives r = {human.repeat.pearson:.2f}"
    return text + "."


def correlation_words(report: RubricReport) -> CorrelationWords:
    """Permutation vs Repeat of ``report`` in words."""
    human = report.human
    if human is None:
        return CorrelationWords(None, NO_LABELS, None, (), None, None)
    against = ("human scores (mean of the raters)" if human.label_source == "human"
               else "a **reference judge** (GPT-4's scores, not human labels)")
    intro = (f"Per-item mean score of each run against {against}, on {report.labelled_items} labelled items. "
             f"Intervals: percentile bootstrap over items, {human.resamples:,} resamples, seed {human.seed}.")
    metrics = []
    for name, estimate in (("Permutation", human.permutation), ("Repeat", human.repeat),
                           ("Difference", human.difference)):
        label = f"{name} Pearson r"
        if estimate is None:
            metrics.append(ShownMetric(label, "n/a", "Choose a repeat run above.", ""))
            continue
        value = f"{estimate.pearson:+.3f}" if name == "Difference" else f"{estimate.pearson:.3f}"
        metrics.append(ShownMetric(label, value, _ci_text(estimate, "pearson"),
                                   f"Pearson {_ci_text(estimate, 'pearson')}; Spearman rho {estimate.spearman:.3f}, "
                                   f"{_ci_text(estimate, 'spearman')}"))
    return CorrelationWords(intro, None, SIMULATED_NOTE if report.run.simulated else None, tuple(metrics),
                            NO_REPEAT if human.repeat is None else None, _summary(report))


def spread_words(report: RubricReport) -> SpreadWords:
    """The within-item spread of the permutation run (and of the repeat run when chosen) in words."""
    perm = report.spread_permutation
    metrics = [ShownMetric("Permutation run", f"{perm.mean_sd:.3f}", perm.description(),
                           f"{perm.items:,} items · {perm.calls_text()}")]
    if report.spread_repeat is not None:
        rep = report.spread_repeat
        metrics.append(ShownMetric("Repeat run", f"{rep.mean_sd:.3f}", rep.description(),
                                   f"{rep.items:,} items · {rep.calls_text()}"))
    sentence = (f"Changing only the order of the options moves one item's score by {perm.mean_sd:.2f} points on "
                f"average: the {perm.description()}.")
    return SpreadWords(SPREAD_INTRO.format(description=perm.description()), tuple(metrics), sentence)
