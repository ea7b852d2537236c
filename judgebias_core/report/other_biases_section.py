"""Report section for other biases (METHODS.md section 6): verbosity and self-preference, from metrics/ and charts/.

Its verdicts come from ``report.verdict_factors``, the code the Other biases page opens with.
"""

from __future__ import annotations

import math

import pandas as pd

from judgebias_core.analyses.other_biases_view import OtherBiasesView, other_biases_view
from judgebias_core.charts.judges import self_preference_heatmap
from judgebias_core.charts.other_biases import in_family_chart, longer_answer_chart
from judgebias_core.charts.style import retitled
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import count_of, percent


def verbosity_table(view: OtherBiasesView) -> pd.DataFrame:
    """One row per judge, with its slope test's corrected p in the report's family and in the page's default one."""
    report = view.report
    rows = []
    for r, own, page in zip(report.judges, view.corrected(view.report_tests), view.corrected(view.page_tests),
                            strict=True):
        share, slope = r.longer_share_clustered, r.slope
        rows.append({
            "judge": r.judge, "decisive pairs": f"{r.decisive_pairs:,}", "equal length": f"{r.equal_length_pairs:,}",
            "longer answer won": count_of(r.longer_wins, r.decisive_pairs - r.equal_length_pairs, "pair"),
            "share (95% item bootstrap)": (f"{percent(r.longer_win_share)} ({percent(share.low)}–{percent(share.high)})"
                                           if share is not None else "n/a"),
            f"log-odds per 1,000 characters (95%, clustered by {report.cluster})":
                f"{slope.estimate:+.2f} ({slope.ci_low:+.2f} to {slope.ci_high:+.2f})" if slope is not None else "n/a",
            "reading (Holm over the judges)": report.reading(r.judge),
            "corrected p": _p(own), "corrected p (page's family)": _p(page),
        })
    return pd.DataFrame(rows)


def _p(value: float) -> str:
    """A corrected p as the readings give it (three significant digits), 'n/a' when the family does not hold it."""
    return "n/a" if math.isnan(value) else f"{value:.3g}"


def other_biases_section_from_view(view: OtherBiasesView) -> ReportSection | None:
    """Verbosity of each judge and self-preference by family, from the topic's view."""
    shown = view.shown_judges()
    if not shown:  # a length preference needs decisive pairs whose answers differ in length
        return None
    preference, judges = view.preference, view.real_judges
    figures = [retitled(longer_answer_chart(shown), "How often the longer answer wins, by how much longer it is")]
    if preference is not None and preference.in_family:
        figures.append(retitled(in_family_chart(preference, judges=judges),
                                "In-family preference over judge leniency and candidate quality (odds ratio)"))
    if preference is not None and preference.cells:
        figures.append(retitled(self_preference_heatmap(preference, judges=judges),
                                "Raw win rate by judge family (rows) and candidate family (columns), no control"))
    # "In short": the plain first line of the clearest length verdict and of the own-family verdict.
    headline = [v.lines[0].text for v in view.verdicts if v.analysis == "verbosity"][:1] + [
        v.lines[0].text for v in view.verdicts if v.analysis == "self_preference"]
    families = [view.verbosity_family] + ([view.self_preference_family] if view.self_preference_family else [])
    return ReportSection(
        key="other-biases", title=f"Longer answers and own family (study {view.study})",
        headline=tuple(headline), sentences=view.verbosity_sentences + view.self_preference_sentences,
        figures=tuple(figures),
        tables=(ReportTable("Verbosity per judge", verbosity_table(view),
                            "Decisive pairs: the same winner in both orders, not a tie; pairs of equal length are "
                            "left out of the share. Lengths in characters. Intervals are item-clustered (pairs of one "
                            "item resampled together; the slope's standard errors cluster-robust). "
                            + " ".join([*families, view.report_families_sentence])),),
        metric_keys=("verbosity", "self_preference"),
        notes=(f"Self-preference controls for {preference.controls}; the raw family matrix does not.",)
        if preference is not None else (),
        verdicts=view.verdicts,
    )


def other_biases_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Verbosity of each judge and self-preference by family, on the main study's consistent pairs (the judges in
    scope; the page adds their majority vote by default: each shows both families' corrected p-values, side by
    side, and names both families with their sizes)."""
    if "pairwise" not in scope.call_kinds or not scope.studies:
        return None
    study = "full" if "full" in scope.studies else scope.studies[0]
    return other_biases_section_from_view(other_biases_view(reader, scope.dataset.id, [study], scope.judges_in(study)))
