"""Plain-language verdicts on a judge: what it does, how sure we are, what to do, each with the rule behind it.

The report's summary and the dashboard pages (through ``ui/verdict.py``) print these same objects. Sentences give
percentages for people; ``Verdict.as_dict`` keeps the fractions for JSON and exports. A line's ``text`` is for a
reader who does not code: no term of ``judgebias_core.plain_words.TERMS``; the test, correction and interval method
go into its ``rule``, which pages and the report fold under "How this was decided".

The thresholds are conventions stated next to every word they produce (docs/SHARING.md lists them); they describe
the measured interval, they do not change any metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from judgebias_core.metrics.agreement import AgreementResult
from judgebias_core.metrics.calibration import PairwiseCalibration, RubricCalibration
from judgebias_core.metrics.label_words import LabelWords
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics
from judgebias_core.metrics.pairwise_family import (
    corrected_p,
    correction_words,
    leans,
    pairwise_family,
    position_label,
)
from judgebias_core.metrics.rubric_report import RubricReport
from judgebias_core.simulated import SIMULATED_WHO
from judgebias_core.stats.multiple import CorrectedTests
from judgebias_core.text import counted
from judgebias_core.wording.phrasing import (
    SURENESS_RULE,
    chance_words,
    count_of,
    how_sure,
    in_words,
    p_value,
    percent,
)

# Upper end of the flip-rate interval: below the first, the order hardly matters; below the second, averaging
# both orders removes the lean but close calls stay uncertain; above it, too many verdicts follow the order.
FLIP_USABLE_AS_IS = 0.10
FLIP_USABLE_WITH_AVERAGING = 0.25
# Cohen's kappa bands of Landis and Koch (1977), applied to the lower end of the interval.
KAPPA_BANDS = ((0.8, "almost perfect"), (0.6, "substantial"), (0.4, "moderate"), (0.2, "fair"), (0.0, "slight"))
KAPPA_SUBSTITUTE = 0.6
KAPPA_FIRST_PASS = 0.4
AGREEMENT_INTERCHANGEABLE = 0.8
AGREEMENT_SECOND_OPINION = 0.6


DECIDED = "How this was decided"  # the fold that holds each line's rule, on pages and in the report


@dataclass(frozen=True)
class VerdictLine:
    """One statement and the rule that produced its words."""

    heading: str  # "What it does", "How sure we are", "What to do"
    text: str
    rule: str


@dataclass(frozen=True)
class Verdict:
    """The verdict on one judge (or a set of judges) for one analysis, with the fractions behind it."""

    analysis: str  # pairwise | rubric | agreement | calibration
    subject: str
    lines: tuple[VerdictLine, ...]
    figures: dict[str, float | int | str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: the sentences, their rules, and the figures as fractions and counts."""
        return asdict(self)


def _first_met(rules: Sequence[tuple[bool, str]], otherwise: str) -> str:
    """The text of the first rule whose condition holds (rules are checked in order)."""
    return next((text for met, text in rules if met), otherwise)


def _kappa_band(value: float) -> str:
    return next((name for floor, name in KAPPA_BANDS if value >= floor), "no agreement beyond chance")


def _kappa_words(value: float) -> str:
    """'moderate agreement beyond chance', from the band of ``value``."""
    band = _kappa_band(value)
    return band if band.endswith("chance") else f"{band} agreement beyond chance"


def _lean(r: PairwiseJudgeMetrics, family: CorrectedTests) -> str:
    if r.primacy + r.recency == 0:
        return "shows no lean to either slot"
    side = leans(r, family)
    return f"leans to the {side} slot" if side else "shows no clear lean to either slot"


def _lean_rule(r: PairwiseJudgeMetrics, family: CorrectedTests, scope: str) -> str:
    corrected = corrected_p(family, position_label(r))
    return ("A flip is a pair whose verdict changes with the order. It leans to a slot when the position test "
            f"(symmetric in the two answers, {r.position_tie_rule}, cluster-robust over {r.items:,} items) has a "
            f"corrected p below {family.alpha} after the {correction_words(family, scope)} ({r.primacy:,} flips to the "
            f"first slot, {r.recency:,} to the second; {p_value(r.position_p)} before correction, corrected "
            f"{p_value(corrected)}).")


def pairwise_verdict(r: PairwiseJudgeMetrics, who: str | None = None, family: CorrectedTests | None = None,
                     scope: str = "") -> Verdict:
    """A swap-run verdict from one judge's pairwise metrics (study and repetition as given). ``family`` is the
    corrected family of tests shown with it (``metrics.pairwise_family``), by default this judge's tests alone;
    ``scope`` says which tests that family holds (the rows of a page, every study of a report)."""
    name = who or r.judge
    family = family if family is not None else pairwise_family([r])
    low, high = r.flip_rate_decision_low, r.flip_rate_decision_high
    method = r.flip_rate_decision_method
    bootstrap = method == "studentized-item-bootstrap"
    kind = (f"95% studentized item-bootstrap interval ({r.bootstrap_resamples:,} resamples of the {r.items:,} items, "
            "each with all its pairs)") if bootstrap else f"95% item-clustered interval ({method}, {r.items:,} items)"
    if r.flip_rate_degenerate and r.flip_rate_degenerate_reason:
        kind += f"; {r.flip_rate_degenerate_reason}"
    if r.flip_rate_decision_warning:
        kind += f"; {r.flip_rate_decision_warning}"
    caveat = ""
    if r.flip_rate_degenerate:
        caveat = " Only a one-sided bound can be given here (see how this was decided)."
    elif r.flip_rate_decision_warning:
        caveat = " With this few questions or flips the range itself is rough."
    advice = _first_met(
        ((high < FLIP_USABLE_AS_IS, "Usable as is, even for close comparisons."),
         (high < FLIP_USABLE_WITH_AVERAGING, "Usable with swap-averaging: judge every pair in both orders and count "
                                             "a changed verdict as a tie. Not for rankings whose gaps are smaller "
                                             "than the flip rate.")),
        # The estimate alone would pass but the interval's upper end does not: say so, or a judge that flips less
        # than another can read as worse with no reason given (few questions widen the interval).
        f"Not for close rankings until more questions are judged: its flip rate could be as high as {percent(high)}. "
        "Until then, only with swap-averaging and for large differences." if r.flip_rate < FLIP_USABLE_WITH_AVERAGING
        else "Not for close rankings: too many verdicts follow the order. If used at all, only with swap-averaging "
             "and for large differences.")
    failed = (f"; {counted(r.failed_pairs, 'pair')} whose verdict could not be read left out" if r.failed_pairs
              else "")
    return Verdict(
        analysis="pairwise", subject=name,
        lines=(
            VerdictLine("What it does", f"{name} flips {in_words(r.flip_rate, 'pair')} when the two answers swap "
                                        f"places ({percent(r.flip_rate)}) and {_lean(r, family)}.",
                        _lean_rule(r, family, scope)),
            VerdictLine("How sure we are", f"{how_sure(low, high)}: the flip rate lies between {percent(low)} "
                                           f"and {percent(high)} (95% interval), from "
                                           f"{count_of(r.classified_pairs, r.pairs, 'pair')} on {r.items:,} "
                                           f"questions{failed}.{caveat}",
                        f"Interval: {kind}. {SURENESS_RULE} It is computed over questions because pairs on the same "
                        "question are not "
                        f"independent (design effect {r.design_effect:.2f}); the Wilson interval "
                        f"({percent(r.flip_rate_ci_low)} to {percent(r.flip_rate_ci_high)}) treats them as if they "
                        "were."),
            VerdictLine("What to do", advice,
                        f"From the upper end of the interval: below {percent(FLIP_USABLE_AS_IS, 0)} usable as is, "
                        f"below {percent(FLIP_USABLE_WITH_AVERAGING, 0)} usable with swap-averaging, otherwise not "
                        "for close rankings."),
        ),
        figures={"flip_rate": r.flip_rate, "interval_low": low, "interval_high": high,
                 "interval_kind": "studentized item bootstrap" if bootstrap else method, "classified_pairs": r.classified_pairs,
                 "pairs": r.pairs, "items": r.items, "primacy": r.primacy, "recency": r.recency,
                 "position_p": r.position_p, "position_p_corrected": corrected_p(family, position_label(r)),
                 "correction": family.method, "family_size": family.family_size, "study": r.study},
    )


def pairwise_verdicts(results: Sequence[PairwiseJudgeMetrics], who: dict[str, str] | None = None,
                      family: CorrectedTests | None = None, scope: str = "") -> list[Verdict]:
    """One verdict per judge on its first repetition, steadiest judge first. The lean is read from ``family``,
    by default every test of ``results`` corrected together (Holm); ``scope`` names the tests it holds."""
    family = family if family is not None else pairwise_family(results)
    rows = sorted((r for r in results if r.repetition == 1 and r.classified_pairs), key=lambda r: r.flip_rate)
    return [pairwise_verdict(r, (who or {}).get(r.judge), family, scope) for r in rows]


def rubric_verdict(report: RubricReport, who: str | None = None) -> Verdict:
    """A rubric-run verdict: the place furthest from 1/k, its item-clustered interval, the Holm-corrected
    clustered test over the k places, and the score spread; a run unbalanced after parse failures says so."""
    share = report.position
    name = who or report.run.judge + (" (a simulated judge)" if report.run.simulated else "")
    if share.n == 0:
        line = VerdictLine("What it does", f"{name} gave no readable score in run {report.run.run_id}.",
                           "Only readable scores are counted.")
        return Verdict("rubric", name, (line,), {"readable_scores": 0})
    tests = report.position_tests
    place = max(range(share.k), key=lambda p: abs(tests.shares[p].rate - share.uniform))
    chosen = tests.shares[place]
    label = f"position {place + 1}"
    biased = tests.corrected.reject[place]
    spread = report.spread_permutation
    exposure = report.exposure
    weighted = tests.weighting == "orderings-equal"
    advice = ("Usable with permutation-averaging: score every item under several orderings of the options (rotated "
              "through every place) and average." if biased else
              "No clear place preference: usable as is; the spread below says how much one ordering can move a "
              "score.")
    if tests.weighting == "not-possible":
        advice += (f" Score and place are confounded in this run (parsed exposures up to "
                   f"{percent(exposure.max_deviation)} off balance): re-run the orderings that failed before relying "
                   "on the place shares.")
    interval = (f"95% item-clustered interval for that share ({chosen.method}, {tests.items:,} items): "
                f"{percent(chosen.low)} to {percent(chosen.high)}")
    if chosen.degenerate and chosen.degenerate_reason:
        interval += f" ({chosen.degenerate_reason})"
    sure = (f"{how_sure(chosen.low, chosen.high)}: that share lies between {percent(chosen.low)} and "
            f"{percent(chosen.high)} (95% interval), from {share.n:,} readable scores of {report.trials:,} trials "
            f"on {tests.items:,} items; the lean to that place {chance_words(tests.corrected, label)}."
            + (" No proper range exists here (see how this was decided)." if chosen.degenerate else ""))
    share_kind = "exposure-weighted share (every ordering counted equally)" if weighted else "share"
    return Verdict(
        analysis="rubric", subject=name,
        lines=(
            VerdictLine("What it does", f"{name} chose the option at place {place + 1} in {percent(chosen.rate)}"
                                        f" of {share.n:,} readable scores, where a judge blind to the order would choose each "
                                        f"place {percent(share.uniform)} of the time. Changing only the order moves "
                                        f"one item's score by {spread.mean_sd:.2f} points on average.",
                        f"The place furthest from 1/k is named ({share_kind}). The score movement is the "
                        f"{spread.description()}."),
            VerdictLine("How sure we are", sure,
                        f"{interval}; the lean to that place {tests.corrected.sentence(label)}. {SURENESS_RULE} "
                        f"Test: {tests.test_method} of each place's share against 1/{share.k}, calls of one item "
                        f"kept together; {tests.corrected.method_name} over the {tests.corrected.family_size} places. "
                        f"The Wilson interval treating calls as independent is {percent(share.ci_low[place])} to "
                        f"{percent(share.ci_high[place])}."),
            VerdictLine("What to do", advice,
                        "A place preference is called when the Holm-corrected clustered test of the most favoured "
                        f"place gives p < {tests.corrected.alpha}."),
        ),
        figures={"place": place + 1, "share": chosen.rate, "interval_low": chosen.low, "interval_high": chosen.high,
                 "interval_kind": chosen.method, "corrected_p": tests.corrected.corrected[place],
                 "correction": tests.corrected.method, "tests": tests.corrected.family_size,
                 "uniform": share.uniform, "readable_scores": share.n, "trials": report.trials,
                 "mean_within_item_sd": spread.mean_sd, "items": spread.items,
                 "parsed_balanced": str(exposure.balanced), "weighting": tests.weighting},
    )


def agreement_verdict(result: AgreementResult, study: str) -> Verdict | None:
    """How far the judges of a study agree with each other, from the least agreeing pair."""
    pairs = sorted((p for p in result.pairs if p.n), key=lambda p: p.agreement)
    if not pairs:
        return None
    low, high = pairs[0], pairs[-1]
    advice = _first_met(
        ((low.agreement >= AGREEMENT_INTERCHANGEABLE, "The judges can stand in for one another on most calls."),
         (low.agreement >= AGREEMENT_SECOND_OPINION, "Ask a second judge on close calls: they differ often enough to "
                                                     "change a close comparison.")),
        "Do not swap one judge for another: results from different judges are not comparable.")
    judges = len(result.judges)
    return Verdict(
        analysis="agreement", subject=f"{judges} judges, study {study}",
        lines=(
            VerdictLine("What they do", f"{low.a} and {low.b} give the same verdict on {percent(low.agreement)} of "
                                        f"the calls both answered; {high.a} and {high.b} on {percent(high.agreement)}.",
                        "Agreement is the share of shared calls (same item, slots and repetition) with the same "
                        "verdict; the least and the most agreeing pairs are named."),
            VerdictLine("How sure we are", f"Over {low.n:,} and {high.n:,} shared calls.",
                        "Counts of calls both judges answered with a readable verdict."),
            VerdictLine("What to do", advice,
                        f"From the least agreeing pair: {percent(AGREEMENT_INTERCHANGEABLE, 0)} or more "
                        f"interchangeable, {percent(AGREEMENT_SECOND_OPINION, 0)} or more a second opinion on close "
                        "calls, less not comparable."),
        ),
        figures={"lowest_agreement": low.agreement, "lowest_pair_calls": low.n, "highest_agreement": high.agreement,
                 "highest_pair_calls": high.n, "judges": judges, "study": study},
    )


def _ceiling_lines(result: PairwiseCalibration | RubricCalibration, name: str) -> tuple[VerdictLine, ...]:
    """The human ceiling, where items have several raters: the judge against the experts' own agreement. ``name``
    says whether the judge is simulated, in the same sentence as the comparison."""
    if not isinstance(result, RubricCalibration) or result.human_pairwise_kappa_reading is None:
        return ()
    reading, _, figures = result.human_pairwise_kappa_reading.partition(" (")
    plain = reading.replace("this judge", name, 1) if reading.startswith("this judge") else reading
    return (VerdictLine("Against the experts", f"{plain}." if plain.startswith(name) else
                        f"{plain[0].upper()}{plain[1:]}.",
                        f"Mean Cohen's kappa of the judge with each rater against the mean kappa of every pair of "
                        f"raters, both with item-bootstrap intervals: overlapping intervals read 'about as well' "
                        f"({figures}"),)


def calibration_verdict(result: PairwiseCalibration | RubricCalibration, who: str | None = None,
                        simulated: bool = False, words: LabelWords | None = None) -> Verdict:
    """How far a judge agrees with the labels beyond chance (Cohen's kappa and its interval). A ``simulated``
    judge is called one in every sentence that compares it with people; ``words`` name the labels (gold labels
    are not people's ratings), by default from the result's label source alone."""
    name = who or result.judge
    if simulated and "simulated judge" not in name:
        name += SIMULATED_WHO
    pairwise = isinstance(result, PairwiseCalibration)
    table = result.swap_aggregated if isinstance(result, PairwiseCalibration) else result
    kappa, low, high = table.kappa, table.kappa_ci_low, table.kappa_ci_high
    n = table.n
    interval = table.kappa_interval.split(" (")[0]  # "item-bootstrap"; the parenthesis is the rule's text
    unit = "pair" if pairwise else "scored call"
    labels = (words or LabelWords(result.label_source)).phrase
    substitute = "This simulated judge is not" if simulated else "Not"
    advice = _first_met(((low >= KAPPA_SUBSTITUTE and not simulated,
                          f"Usable in place of {labels} for data like this."),
                         (low >= KAPPA_FIRST_PASS and not simulated,
                          "Usable as a first pass; check a sample by hand.")),
                        f"{substitute} a substitute for {labels}"
                        + (": it only shows how this analysis reads a judge." if simulated else "."))
    # The count goes into the first sentence (every rate next to its count); how the two orders are combined is
    # said in two words there and in full in the rule.
    taken = ", over both orders," if pairwise else ""
    combined = (" The judge's verdict on a pair is taken over both orders: a verdict that changes with the order "
                "counts as a tie.") if pairwise else ""
    on_items = f" on {result.items:,} items" if isinstance(result, RubricCalibration) else ""
    return Verdict(
        analysis="calibration", subject=name,
        lines=(
            VerdictLine("What it does", f"{name}{taken} agrees with {labels}: {_kappa_words(kappa)} (a score of "
                                        f"{kappa:.2f} on {n:,} {unit}s, where 0 is chance and 1 is perfect "
                                        "agreement).",
                        f"Cohen's kappa = {kappa:.2f}. Kappa is 0 for chance agreement and 1 for perfect; bands of "
                        "Landis and Koch (1977): 0.2 fair, 0.4 moderate, 0.6 substantial, 0.8 almost perfect."
                        + combined),
            VerdictLine("How sure we are", f"{how_sure(low, high)}: the score lies between {low:.2f} and {high:.2f} "
                                           f"(95% interval), from {n:,} {unit}s{on_items}.",
                        f"95% {interval} interval: percentile interval over resamples of whole items (all calls of "
                        "an item drawn together), so calls that share an item are not counted as independent "
                        f"evidence. {SURENESS_RULE}"),
            *_ceiling_lines(result, name),
            VerdictLine("What to do", advice,
                        f"From the lower end of the interval: {KAPPA_SUBSTITUTE} or more a substitute for the "
                        f"labels, {KAPPA_FIRST_PASS} or more a first pass, less not a substitute. A simulated judge "
                        "is never advised as a substitute: its agreement was set by its author."),
        ),
        figures={"kappa": kappa, "interval_low": low, "interval_high": high, "interval_kind": interval,
                 "instances": n, "label_source": result.label_source},
    )
