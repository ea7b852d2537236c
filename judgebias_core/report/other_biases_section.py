"""Report section for other biases (METHODS.md section 6): verbosity and self-preference, from metrics/ and charts/."""

from __future__ import annotations

import pandas as pd

from judgebias_core.analyses.judges import self_preference, verbosity
from judgebias_core.charts.judges import self_preference_heatmap, verbosity_curve
from judgebias_core.metrics.self_preference import SelfPreference
from judgebias_core.metrics.verbosity import VerbosityResult
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.report.phrasing import SIGNIFICANCE, count_of, p_value, percent
from judgebias_core.store.handle import StoreReader


def verbosity_sentence(result: VerbosityResult, who: str) -> str:
    unequal = result.decisive_pairs - result.equal_length_pairs
    text = (f"When one answer is longer, {who} picks the longer one in "
            f"{percent(result.longer_win_share)} of {unequal:,} decisive pairs of unequal length "
            f"({p_value(result.binomial_p)} treating the pairs as independent")
    # The binomial test ignores that pairs of one item share a question: it is no test "beyond chance".
    return text + ("; pairs that share an item are not independent, so read the length bins before calling this "
                   "a preference for length)." if result.binomial_p < SIGNIFICANCE
                   else "; no clear preference for length even then).")


def self_preference_sentences(result: SelfPreference) -> list[str]:
    return [f"Judges of the {gap.family} family give {gap.family} candidates a win rate of "
            f"{percent(gap.own_win_rate)} over {gap.own_pairs:,} pairs, against {percent(gap.other_win_rate)} over "
            f"{gap.other_pairs:,} pairs from judges of other families."
            for gap in sorted(result.gaps, key=lambda g: -g.difference) if gap.own_pairs and gap.other_pairs]


def verbosity_table(results: list[VerbosityResult]) -> pd.DataFrame:
    return pd.DataFrame([{
        "judge": r.judge, "decisive pairs": f"{r.decisive_pairs:,}", "equal length": f"{r.equal_length_pairs:,}",
        "longer answer won": count_of(r.longer_wins, r.decisive_pairs - r.equal_length_pairs, "pair"),
        "share (95% Wilson)": f"{percent(r.longer_win_share)} ({percent(r.longer_win_share_ci_low)}–"
                              f"{percent(r.longer_win_share_ci_high)})",
        "binomial test": p_value(r.binomial_p),
        "log-odds per 1,000 characters": f"{r.slope_per_1000_chars:+.2f} ({p_value(r.slope_p)})",
    } for r in results])


def other_biases_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Verbosity of each judge and self-preference by family, on the main study's consistent pairs."""
    if "pairwise" not in scope.kinds or not scope.studies:
        return None
    study = "full" if "full" in scope.studies else scope.studies[0]
    judges = scope.judges_in(study)
    # A length preference needs decisive pairs whose answers differ in length.
    results = [r for r in verbosity(reader, scope.dataset.id, [study], judges)
               if r.decisive_pairs > r.equal_length_pairs]
    if not results:
        return None
    preference = self_preference(reader, scope.dataset.id, [study], judges)
    by_lean = sorted(results, key=lambda r: -abs(r.longer_win_share - 0.5))
    sentences = [verbosity_sentence(r, scope.who(r.judge)) for r in by_lean]
    family_sentences = self_preference_sentences(preference)
    figures = [verbosity_curve(results).update_layout(title="Win rate against the length difference")]
    if preference.cells:
        figures.append(self_preference_heatmap(preference).update_layout(
            title="Win rate by judge family (rows) and candidate family (columns)"))
    return ReportSection(
        key="other-biases", title=f"Longer answers and own family (study {study})",
        headline=tuple(sentences[:1] + family_sentences[:1]), sentences=tuple(sentences + family_sentences),
        figures=tuple(figures),
        tables=(ReportTable("Verbosity per judge", verbosity_table(results),
                            "Decisive pairs: the same winner in both orders, not a tie; pairs of equal length are "
                            "left out of the share. Lengths in characters."),),
        metric_keys=("verbosity", "self_preference"),
    )
