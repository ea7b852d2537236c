"""The G-Eval expected score in words (issue 24): the block the Rubric bias and Calibration pages draw
(``ui/geval.py``) and the report's sentence, from one ``GEvalSummary``."""

from __future__ import annotations

import math
from dataclasses import dataclass

from judgebias_core.metrics.rubric_correlation import CorrelationEstimate
from judgebias_core.metrics.rubric_geval import GEvalSummary

NO_SCORE = "n/a"
SIMULATED_NOTE = ("Simulated judge: its log-probabilities are simulated from its stated behaviour (the human label "
                  "plus noise, and the position weights), so the expected score follows the human label closely by "
                  "construction.")
PULL_INTRO = ("**Position pull**: per position, how many points the score moves per point of the option shown there, "
              "within an item (0 for a judge blind to the order). The expected score's profile next to the parsed "
              "score's.")
NO_LABELS = "No human or reference-judge scores exist for these items, so there is nothing to correlate with."
DEGENERATE = "none (every item gives the same slope)"


def code(text: object) -> str:
    """An identifier (a run id) as a markdown code span, shown as written; ``rubric_words.unmarked`` drops the
    backticks for the report and the CLI."""
    literal = str(text).replace("`", "'").replace("\n", " ")
    return f"`{literal}`" if literal.strip() else "` `"


def _value(value: float, signed: bool = False) -> str:
    return NO_SCORE if math.isnan(value) else (f"{value:+.3f}" if signed else f"{value:.3f}")


def _interval(estimate: CorrelationEstimate) -> str:
    low, high = estimate.pearson_ci
    return f"95% item-bootstrap CI {_value(low)} to {_value(high)} · n = {estimate.n} items"


@dataclass(frozen=True)
class ShownMetric:
    """One figure as the page shows it in a metric: label, value, the help text and the caption under it (empty for
    none)."""

    label: str
    value: str
    help: str
    caption: str


@dataclass(frozen=True)
class GEvalPullRow:
    position: int
    expected: float
    expected_interval: str
    parsed: float
    parsed_interval: str


@dataclass(frozen=True)
class GEvalWords:
    """Everything the G-Eval block says about one run. ``unavailable`` is set (and nothing else) without an
    expected score; ``correlations`` is empty and ``against`` None without labels; ``pull_missing`` says why there
    is no position pull. ``sentence`` is the plain summary, ``decided`` its rule (the report prints both)."""

    run_id: str
    unavailable: str | None
    simulated_note: str | None
    counts: str | None
    against: str | None
    correlations: tuple[ShownMetric, ...]
    pull_missing: str | None
    pulls: tuple[GEvalPullRow, ...]
    sentence: str | None
    decided: str | None


def _sentence(geval: GEvalSummary) -> tuple[str, str | None]:
    """The plain summary (how the expected score compares with the parsed one against the labels) and its rule."""
    text = (f"The expected score (from the judge's{' simulated' if geval.simulated else ''} score probabilities) "
            f"averages {geval.mean_expected:.2f} against a parsed {geval.mean_parsed:.2f} over {geval.compared:,} "
            "calls")
    expected, parsed, difference = geval.expected_vs_labels, geval.parsed_vs_labels, geval.difference
    decided = None
    if expected is not None and parsed is not None and difference is not None and not math.isnan(expected.pearson):
        source = "people's scores" if geval.label_source == "human" else "a reference judge's scores"
        low, high = difference.pearson_ci
        closer = ("more closely than" if low > 0 else "less closely than" if high < 0
                  else "about as closely as")
        text += (f"; it follows {source} {closer} the parsed score does (correlation {expected.pearson:.2f} "
                 f"against {parsed.pearson:.2f})")
        items = f"{difference.n:,} item{'' if difference.n == 1 else 's'}"
        decided = (f"Against {source}, Pearson r = {expected.pearson:.2f} for the expected score and "
                   f"{parsed.pearson:.2f} for the parsed score (difference {difference.pearson:+.2f}, 95% "
                   f"item-bootstrap interval {low:+.2f} to {high:+.2f}, {items}); 'more' or 'less' closely only when "
                   "that interval excludes 0.")
    if geval.simulated:
        text += "; the simulated judge's probabilities follow the human label by construction"
    return text + ".", decided


def geval_words(geval: GEvalSummary, run_id: str) -> GEvalWords:
    """The G-Eval block of run ``run_id`` in words."""
    if not geval.available:
        return GEvalWords(run_id, f"No G-Eval expected score for run {code(run_id)}: {geval.reason}.", None, None, None,
                          (), None, (), None, None)
    counts = (f"Run {code(run_id)}: {geval.with_expected:,} of {geval.calls:,} calls carry an expected score; "
              f"{geval.compared:,} of them also parsed, on {geval.items:,} items"
              + (f"; {geval.expected_unparsed:,} calls have an expected score but no parsed one"
                 if geval.expected_unparsed else "")
              + f". Mean expected score {_value(geval.mean_expected)}, mean parsed score "
              f"{_value(geval.mean_parsed)}; per call Pearson r {_value(geval.call_pearson)} between them. "
              f"Intervals: {geval.interval_kind}, {geval.resamples:,} resamples, seed {geval.seed}.")
    against: str | None = None
    correlations: tuple[ShownMetric, ...] = ()
    if geval.expected_vs_labels is not None and geval.parsed_vs_labels is not None and geval.difference is not None:
        source = "human scores" if geval.label_source == "human" else "a reference judge (not human labels)"
        against = f"Per-item mean of each score, over the same {geval.compared:,} calls, against {source}:"
        correlations = tuple(
            ShownMetric(name, _value(estimate.pearson, signed), _interval(estimate),
                        f"{_interval(estimate)}; Spearman rho {_value(estimate.spearman, signed)}")
            for name, estimate, signed in (("Expected score Pearson r", geval.expected_vs_labels, False),
                                           ("Parsed score Pearson r", geval.parsed_vs_labels, False),
                                           ("Expected minus parsed", geval.difference, True)))
    pulls = tuple(GEvalPullRow(
        p.position, p.expected,
        DEGENERATE if p.expected_degenerate else f"{p.expected_ci[0]:.3f} to {p.expected_ci[1]:.3f}",
        p.parsed, DEGENERATE if p.parsed_degenerate else f"{p.parsed_ci[0]:.3f} to {p.parsed_ci[1]:.3f}")
        for p in geval.pulls)
    sentence, decided = _sentence(geval)
    return GEvalWords(run_id, None, SIMULATED_NOTE if geval.simulated else None, counts, against, correlations,
                      None if geval.pulls else f"No position pull: {geval.pull_reason}.", pulls, sentence, decided)
