"""Report section for other biases (METHODS.md section 6): verbosity and self-preference, from metrics/ and charts/.

Its verdicts come from ``report.verdict_factors``, the code the Other biases page opens with.
"""

from __future__ import annotations

import pandas as pd

from judgebias_core.analyses.other_biases import self_preference, verbosity
from judgebias_core.charts.judges import self_preference_heatmap
from judgebias_core.charts.other_biases import in_family_chart, longer_answer_chart
from judgebias_core.charts.style import retitled
from judgebias_core.metrics.self_preference import SelfPreference
from judgebias_core.metrics.verbosity import VerbosityReport, VerbosityResult
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import count_of, percent
from judgebias_core.wording.verdict_factors import other_biases_verdicts


def verbosity_sentence(report: VerbosityReport, result: VerbosityResult, who: str) -> str:
    """The longer answer's share with its item-clustered interval, and what the corrected slope test allows."""
    unequal = result.decisive_pairs - result.equal_length_pairs
    share = result.longer_share_clustered
    interval = (f"95% {share.method} interval {percent(share.low)} to {percent(share.high)} over {result.items:,} items"
                if share is not None and not share.degenerate else "no proper interval")
    return (f"When one answer is longer, {who} picks the longer one in {percent(result.longer_win_share)} of "
            f"{unequal:,} decisive pairs of unequal length ({interval}); its length slope, clustered by "
            f"{report.cluster}, is {report.reading(result.judge)}"
            + ("." if result.control == "candidate" else ", without holding candidate quality fixed."))


def self_preference_sentences(result: SelfPreference) -> list[str]:
    """One sentence per family's in-family term over leniency and quality, with what the correction allows."""
    return [f"Judges of the {t.family} family give {t.family} candidates {t.odds_ratio:.2f} times the odds of winning "
            f"that their leniency and the candidates' quality predict ({t.pairs:,} pairs with a family match; "
            f"{result.tests.sentence(t.family) if result.tests else 'not tested'})."
            for t in result.in_family if not t.term.degenerate]


def verbosity_table(report: VerbosityReport) -> pd.DataFrame:
    rows = []
    for r in report.judges:
        share, slope = r.longer_share_clustered, r.slope
        rows.append({
            "judge": r.judge, "decisive pairs": f"{r.decisive_pairs:,}", "equal length": f"{r.equal_length_pairs:,}",
            "longer answer won": count_of(r.longer_wins, r.decisive_pairs - r.equal_length_pairs, "pair"),
            "share (95% item bootstrap)": (f"{percent(r.longer_win_share)} ({percent(share.low)}–{percent(share.high)})"
                                           if share is not None else "n/a"),
            f"log-odds per 1,000 characters (95%, clustered by {report.cluster})":
                f"{slope.estimate:+.2f} ({slope.ci_low:+.2f} to {slope.ci_high:+.2f})" if slope is not None else "n/a",
            "reading (Holm over the judges)": report.reading(r.judge),
        })
    return pd.DataFrame(rows)


def other_biases_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Verbosity of each judge and self-preference by family, on the main study's consistent pairs."""
    if "pairwise" not in scope.kinds or not scope.studies:
        return None
    study = "full" if "full" in scope.studies else scope.studies[0]
    judges = scope.judges_in(study)
    # A length preference needs decisive pairs whose answers differ in length.
    report = verbosity(reader, scope.dataset.id, [study], judges)
    shown = [r for r in report.judges if r.decisive_pairs > r.equal_length_pairs]
    if not shown:
        return None
    preference = self_preference(reader, scope.dataset.id, [study], judges)
    by_lean = sorted(shown, key=lambda r: -abs(r.longer_win_share - 0.5))
    sentences = [verbosity_sentence(report, r, scope.who(r.judge)) for r in by_lean]
    family_sentences = self_preference_sentences(preference)
    figures = [retitled(longer_answer_chart(shown), "How often the longer answer wins, by how much longer it is")]
    if preference.in_family:
        figures.append(retitled(in_family_chart(preference, judges=judges),
                                "In-family preference over judge leniency and candidate quality (odds ratio)"))
    if preference.cells:
        figures.append(retitled(self_preference_heatmap(preference, judges=judges),
                                "Raw win rate by judge family (rows) and candidate family (columns), no control"))
    verdicts = other_biases_verdicts(report, preference, {j: scope.who(j) for j in judges})
    # "In short": the plain first line of the clearest length verdict and of the own-family verdict.
    headline = [v.lines[0].text for v in verdicts if v.analysis == "verbosity"][:1] + [
        v.lines[0].text for v in verdicts if v.analysis == "self_preference"]
    return ReportSection(
        key="other-biases", title=f"Longer answers and own family (study {study})",
        headline=tuple(headline), sentences=tuple(sentences + family_sentences),
        figures=tuple(figures),
        tables=(ReportTable("Verbosity per judge", verbosity_table(report),
                            "Decisive pairs: the same winner in both orders, not a tie; pairs of equal length are "
                            "left out of the share. Lengths in characters. Intervals are item-clustered (pairs of one "
                            "item resampled together; the slope's standard errors cluster-robust)."),),
        metric_keys=("verbosity", "self_preference"),
        notes=(f"Self-preference controls for {preference.controls}; the raw family matrix does not.",),
        verdicts=tuple(verdicts),
    )
