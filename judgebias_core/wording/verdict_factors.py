"""Plain-language verdicts of the Factors and Other biases pages (and their report sections): what drives the bias,
whether a judge prefers longer answers, whether judges prefer their own family; each word with its rule.

The pages draw these objects with ``ui.verdict.verdict_block``; the report prints the same sentences.
"""

from __future__ import annotations

import math

import numpy as np

from judgebias_core.metrics.self_preference import SelfPreference
from judgebias_core.metrics.stepwise import POST_SELECTION_NOTE, StepwiseResult
from judgebias_core.metrics.stepwise_baseline import BoundBaseline
from judgebias_core.metrics.verbosity import VerbosityReport, VerbosityResult
from judgebias_core.wording.phrasing import SURENESS_RULE, chance_words, count_of, how_sure, percent
from judgebias_core.wording.verdict import Verdict, VerdictLine

ALPHA = 0.05
# Below this many (judge, candidate, task) units a stepwise fit names no factor: with a handful of units a
# selection among several factors says more about the selection than about the judges.
MIN_FACTOR_UNITS = 30
TARGET_WORDS = {"position_consistency": "position consistency", "preference_fairness": "preference fairness"}


def _words(name: str) -> str:
    return name.replace("_", " ")


def factors_verdict(result: StepwiseResult, baseline: BoundBaseline | None) -> Verdict:
    """What the stepwise fit says drives the bias, how much of the quality gap's part its bound alone produces.
    A fit on fewer than ``MIN_FACTOR_UNITS`` units names no factor: it says there is too little to tell."""
    label = TARGET_WORDS.get(result.target, _words(result.target))
    ranked = [name for name, _ in sorted(result.aic_rise_when_removed.items(), key=lambda pair: -pair[1])]
    few = result.units < MIN_FACTOR_UNITS
    if few:
        does = (f"Only {result.units:,} (judge, candidate, task) units: too few to say what drives {label} "
                f"(at least {MIN_FACTOR_UNITS} are needed before a factor is named).")
    elif ranked:
        does = (f"Across {result.units:,} (judge, candidate, task) units, {label} varies most with "
                f"{_words(ranked[0])}" + (f", then {', '.join(_words(n) for n in ranked[1:])}" if ranked[1:] else "")
                + f"; the kept factors explain {percent(result.r_squared, 0)} of its variation.")
    else:
        does = f"No factor explains {label} better than its average over the {result.units:,} units."
    gap_kept = "quality_gap" in result.final_variables
    bound_rule = ""
    if baseline is not None and gap_kept:
        beyond = baseline.permutation_p < ALPHA
        sure = ("Part of the quality gap's effect is built into how consistency is measured. With the quality gaps "
                f"shuffled at random across units ({baseline.permutations} times), "
                + ("the real gap still explains clearly more than the shuffled ones." if beyond else
                   "the shuffled gaps explain about as much as the real one."))
        bound_rule = (f" Observed: the gap lowers AIC by {baseline.observed_aic_gain:.1f}; shuffled, by "
                      f"{baseline.null_aic_gain_mean:.1f} on average (permutation p = {baseline.permutation_p:.3f}); "
                      "the gap is at most PC / 2 by construction.")
        advice = ("The quality gap matters beyond what is built in: expect judges to flip more on close pairs of "
                  "similar quality, and check a judge on such pairs before trusting close comparisons." if beyond else
                  "Do not read 'the quality gap drives the bias' from this fit: what is built in alone produces as "
                  "much.")
    else:
        sure = ("The quality gap was not among the factors kept, so the part of it built into the measure plays no "
                "role here." if baseline is not None else
                "The quality gap could not be offered here, so the part of it built into the measure plays no role.")
        advice = ("Compare judges by their own flip rates (Pairwise bias page): the factors kept say where the bias "
                  "varies, not which judge to trust." if ranked else
                  "Nothing here explains the bias: read each judge's flip rate on the Pairwise bias page.")
    if few:
        advice = ("Read each judge's flip rate on the Pairwise bias page; add judges, candidates or tasks before "
                  "asking what drives the bias.")
    return Verdict(
        analysis="factors", subject=f"What drives {label}",
        lines=(
            VerdictLine("What it shows", does,
                        "Bidirectional stepwise selection on AIC; the factor whose removal alone raises AIC most is "
                        f"named first; R² = {result.r_squared:.2f}. A fit on fewer than {MIN_FACTOR_UNITS} units "
                        "names no factor. " + POST_SELECTION_NOTE),
            VerdictLine("How sure we are", sure,
                        "The gap is PC / 2 times the quality margin |wins - losses| / consistent pairs; the margins "
                        "are shuffled across units, each keeping its PC, and the shuffled gap refitted in the selected "
                        "model. The AIC gain is that of the model without the gap minus with it." + bound_rule),
            VerdictLine("What to do", advice,
                        f"'Beyond what is built in' when fewer than {percent(ALPHA, 0)} of the shuffled gaps lower "
                        "AIC as much as the real one (permutation p < 0.05)."),
        ),
        figures={"target": result.target, "units": result.units, "r_squared": result.r_squared,
                 "leading_factor": ranked[0] if ranked else "",
                 "observed_aic_gain": baseline.observed_aic_gain if baseline else float("nan"),
                 "bound_aic_gain_mean": baseline.null_aic_gain_mean if baseline else float("nan"),
                 "permutation_p": baseline.permutation_p if baseline else float("nan")},
    )


def _bin_trend(result: VerbosityResult) -> str:
    bins = result.longer_answer_bins
    if len(bins) < 2:
        return ""
    first, last = bins[0], bins[-1]
    return (f"; the longer answer's share is {percent(first.share.rate)} when the answers differ by up to "
            f"{first.high:,.0f} characters and {percent(last.share.rate)} when they differ by {last.low:,.0f} or more")


def verbosity_verdict(report: VerbosityReport, result: VerbosityResult, who: str | None = None) -> Verdict | None:
    """Whether a judge prefers the longer answer, from the item-clustered figures and the Holm-corrected test."""
    name = who or result.judge
    unequal = result.decisive_pairs - result.equal_length_pairs
    share, slope = result.longer_share_clustered, result.slope
    if not unequal or share is None or slope is None:
        return None
    controlled = result.control == "candidate"
    reading = report.reading(result.judge)
    if slope.degenerate:
        sure_slope = f"the length slope could not be estimated ({slope.degenerate_reason})"
        plain_slope = "how the pull grows with length could not be measured"
    else:
        sure_slope = (f"the change in log-odds of winning per 1,000 more characters is {slope.estimate:+.2f} "
                      f"(95% {slope.method}: {slope.ci_low:+.2f} to {slope.ci_high:+.2f}), {reading}")
        plain_slope = (f"the pull toward {'longer' if slope.estimate > 0 else 'shorter'} answers as the length gap "
                       f"grows {chance_words(report.tests, result.judge)}")
    interval = (f"{share.method} {percent(share.low)} to {percent(share.high)}" if not share.degenerate
                else f"no proper interval ({share.degenerate_reason})")
    if share.degenerate:
        plain_share = "No proper range can be given for that share"
    else:
        plain_share = (f"{how_sure(share.low, share.high)}: that share lies between {percent(share.low)} and "
                       f"{percent(share.high)} (95% interval)")
    rejected = report.tests.reject[report.tests.labels.index(result.judge)]
    if rejected and slope.estimate > 0:
        advice = ("Length sways this judge: compare answers of similar length, or adjust for length, before reading "
                  "small differences.")
    elif rejected:
        advice = "This judge favours shorter answers: compare answers of similar length before reading small gaps."
    else:
        advice = ("No length preference is clear once chance is allowed for: on data like this, length need not be "
                  "adjusted for.")
    if not controlled:
        advice += (" The slope does not hold candidate quality fixed (better candidates may also write more): "
                   "choose the candidate control to separate the two.")
    return Verdict(
        analysis="verbosity", subject=name,
        lines=(
            VerdictLine("What it does", f"{name} picks the longer answer in {percent(result.longer_win_share)} of "
                                        f"{unequal:,} decisive pairs of unequal length{_bin_trend(result)}.",
                        "Decisive pairs: the same winner in both orders, not a tie (position effects removed); bins "
                        "are quantiles of the length difference; 50% means no length preference."),
            VerdictLine("How sure we are", f"{plain_share}, from {unequal:,} pairs on {result.items:,} questions; "
                                           f"{plain_slope}.",
                        f"Item-clustered 95% interval for that share: {interval}; {sure_slope}. {SURENESS_RULE} "
                        "Pairs of one item share its question, so the share resamples whole items and the slope's "
                        "standard errors are cluster-robust"
                        + (" with candidate fixed effects (quality held fixed; "
                           f"{count_of(result.pairs_without_information, result.decisive_pairs, 'pair')} of "
                           "candidates that always won or lost carry no information)" if controlled else "")
                        + "; the test is corrected over the judges shown."),
            VerdictLine("What to do", advice,
                        f"A preference is called only when the corrected test rejects at {ALPHA} "
                        f"({report.tests.method_name} over {report.tests.family_size} judges)."),
        ),
        figures={"longer_win_share": result.longer_win_share, "interval_low": share.low, "interval_high": share.high,
                 "interval_kind": share.method, "unequal_pairs": unequal, "items": result.items,
                 "slope": slope.estimate, "slope_low": slope.ci_low, "slope_high": slope.ci_high,
                 "slope_cluster": slope.cluster, "control": result.control,
                 "corrected_p": report.tests.corrected[report.tests.labels.index(result.judge)]},
    )


def self_preference_verdict(result: SelfPreference) -> Verdict | None:
    """Whether judges prefer candidates of their own family, over judge leniency and candidate quality."""
    terms = [t for t in result.in_family if not t.term.degenerate]
    if not terms or result.tests is None:
        return None
    tests = result.tests
    does = "; ".join(f"{t.family} judges give {t.family} candidates {t.odds_ratio:.2f} times the odds of winning a "
                     "pair that the judges' leniency and the candidates' quality predict" for t in terms) + "."
    sure = "; ".join(f"{t.family}: between {_ratio(t.term.ci_low)} and {_ratio(t.term.ci_high)} times (95% "
                     f"interval), from {t.pairs:,} pairs with a family match; this {chance_words(tests, t.family)}"
                     for t in terms) + "."
    sure_rule = "; ".join(f"{t.family}: {tests.sentence(t.family)}" for t in terms) + "."
    preferring = [t.family for t in terms if tests.reject[tests.labels.index(t.family)] and t.term.estimate > 0]
    if preferring:
        families = ", ".join(preferring)
        advice = (f"Do not let {families} judges alone rank {families} candidates: use a judge from another family, or "
                  "a panel across families.")
    else:
        advice = ("No in-family preference is clear once chance is allowed for: the judges' families need no "
                  "balancing here.")
    return Verdict(
        analysis="self_preference", subject=f"Own family, {len(result.model_judges)} judges",
        lines=(
            VerdictLine("What they do", does,
                        f"A fractional logit of each pair's score over {result.controls}; a family's term is +1 when "
                        "the judge shares the candidate's family, -1 when it shares the opponent's. An odds ratio of 1 "
                        "is no in-family preference."),
            VerdictLine("How sure we are", sure,
                        f"95% item-clustered intervals of the odds ratios; {sure_rule} "
                        f"Cluster-robust standard errors over {result.model_items:,} items (all judges' pairs on an "
                        f"item together), {tests.method_name} over {tests.family_size} families; the majority-vote "
                        "ensemble is left out of the model (it is the judges' own majority)."),
            VerdictLine("What to do", advice,
                        f"A family prefers its own when its corrected test rejects at {ALPHA} and the odds ratio is "
                        "above 1."),
        ),
        figures={"families": ", ".join(t.family for t in terms), "pairs": result.model_pairs,
                 "items": result.model_items,
                 **{f"odds_ratio_{t.family}": t.odds_ratio for t in terms},
                 **{f"corrected_p_{t.family}": tests.corrected[tests.labels.index(t.family)] for t in terms}},
    )


def _ratio(log_odds: float) -> str:
    return f"{math.exp(log_odds):.2f}"


def other_biases_verdicts(report: VerbosityReport, preference: SelfPreference | None,
                          who: dict[str, str] | None = None) -> list[Verdict]:
    """Verbosity verdicts of every judge (clearest lean first) and the self-preference verdict."""
    ordered = sorted(report.judges, key=lambda r: -abs(np.nan_to_num(r.longer_win_share - 0.5)))
    verdicts = [verbosity_verdict(report, r, (who or {}).get(r.judge)) for r in ordered]
    if preference is not None:
        verdicts.append(self_preference_verdict(preference))
    return [v for v in verdicts if v is not None]
