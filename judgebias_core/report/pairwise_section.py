"""Report section for swap runs (METHODS.md section 2): sentences, figures and tables from metrics.pairwise."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from judgebias_core.analyses.pairwise_view import REPORT_FAMILY, PairwiseView, pairwise_view
from judgebias_core.charts.pairwise import flip_rate_forest, judge_task_heatmap, quality_gap_scatter
from judgebias_core.charts.pairwise_summary import direction_figure
from judgebias_core.charts.style import retitled
from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics
from judgebias_core.metrics.pairwise_family import (
    corrected_p,
    correction_words,
    excess_label,
    position_label,
)
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.stats.multiple import CorrectedTests
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.pairwise_phrasing import (
    HEADLINE_JUDGES,
    direction_sentence,
    excess_sentence,
    grouped_headline,
    headline_sentence,
)
from judgebias_core.wording.phrasing import flip_sentence, p_value, percent, ranking_sentence

METRIC_KEYS = ("flip_rate", "position_consistency", "first_slot_share", "position_test", "preference_fairness",
               "repetition_stability", "repetition_floor", "quality_gap", "parse_failures")


def _interval(low: float, high: float) -> str:
    return f"{percent(low)}–{percent(high)}"


def _judges(rows: Sequence[PairwiseJudgeMetrics]) -> str:
    count = len({r.judge for r in rows})
    return f"{count} judge{'' if count == 1 else 's'}"


def _decision(low: float, high: float, method: str, reason: str | None) -> str:
    """The decision interval with its method, or the degenerate case named instead of drawn."""
    if reason:
        return f"{_interval(low, high)} ({method}; {reason})" if low == low else f"none ({reason})"
    return f"{_interval(low, high)} ({method})"


def judge_table(results: Sequence[PairwiseJudgeMetrics]) -> pd.DataFrame:
    """Flip rate per (study, judge, repetition) next to the pair counts it comes from, with both intervals."""
    return pd.DataFrame([{
        "study": r.study, "judge": r.judge, "repetition": r.repetition, "pairs": f"{r.pairs:,}",
        "with a parse failure": f"{r.failed_pairs:,}", "classified (n)": f"{r.classified_pairs:,}",
        "consistent": f"{r.consistent:,}", "flip rate": percent(r.flip_rate),
        "95% item-clustered (decides)": _decision(r.flip_rate_decision_low, r.flip_rate_decision_high,
                                                  r.flip_rate_decision_method, r.flip_rate_degenerate_reason)
        + f" over {r.items:,} items",
        "design effect": f"{r.design_effect:.2f}" if r.design_effect == r.design_effect else "n/a",
        "95% Wilson (pairs assumed independent)": _interval(r.flip_rate_ci_low, r.flip_rate_ci_high),
    } for r in results])


def _fairness(value: float | None, units: int, left_out: int) -> str:
    text = "none (no classified pair)" if value is None else f"{value:+.3f} over {units:,} units"
    return text + (f", {left_out:,} left out (every pair failed)" if left_out else "")


def direction_table(results: Sequence[PairwiseJudgeMetrics], family: CorrectedTests) -> pd.DataFrame:
    """Which slot the flips favoured, the one position test (raw and corrected p) and both PF forms."""
    return pd.DataFrame([{
        "study": r.study, "judge": r.judge, "repetition": r.repetition,
        "flips favouring first / second": f"{r.primacy:,} / {r.recency:,}",
        "first-slot share of flips (95% item-clustered)": f"{percent(r.first_slot_share)} "
        + _decision(r.first_slot_share_decision_low, r.first_slot_share_decision_high,
                    r.first_slot_share_decision_method, r.first_slot_share_degenerate_reason),
        "position test (items clustered)": p_value(r.position_p),
        f"corrected ({family.method_name})": p_value(corrected_p(family, position_label(r))),
        "PF raw: (recency - primacy) / N": _fairness(r.preference_fairness, r.units, r.units_without_classified_pair),
        "PF scaled (Shi et al.)": _fairness(r.preference_fairness_scaled, r.units, r.units_without_classified_pair),
    } for r in results])


def stability_table(results: Sequence[PairwiseJudgeMetrics], family: CorrectedTests) -> pd.DataFrame:
    """Repetition stability and floor per judge (first repetition's flip rate for the excess, with its interval)."""
    return pd.DataFrame([{
        "study": r.study, "judge": r.judge, "prompts": f"{r.repetition_prompts:,}",
        "repetition stability": percent(r.repetition_stability), "repetition floor": percent(r.repetition_floor),
        "flip rate (repetition 1)": percent(r.flip_rate), "flip rate above the floor": percent(r.flip_rate_excess),
        "95% paired item-clustered": _decision(r.flip_rate_excess_low if r.flip_rate_excess_low is not None
                                               else float("nan"),
                                               r.flip_rate_excess_high if r.flip_rate_excess_high is not None
                                               else float("nan"),
                                               r.flip_rate_excess_method or "n/a", r.flip_rate_excess_degenerate_reason),
        f"corrected p ({family.method_name})": p_value(corrected_p(family, excess_label(r))),
    } for r in results if r.repetition == 1 and r.repetition_stability is not None])


def task_table(breakdown: pd.DataFrame) -> pd.DataFrame:
    """Consistency per (judge, task) as 'consistent of classified', PF with its unit count."""
    fairness = breakdown["preference_fairness"].map(lambda v: "none" if v != v else f"{v:+.3f}")
    return pd.DataFrame({
        "judge": breakdown["judge"], "task": breakdown["task"],
        "consistent / classified pairs": breakdown["consistent"].map("{:,}".format) + " / "
        + breakdown["classified"].map("{:,}".format),
        "position consistency": breakdown["position_consistency"].map(percent),
        "preference fairness (raw)": fairness + " (" + breakdown["units"].map(str) + " units)",
    })


def _headline(headline: list[PairwiseJudgeMetrics], who: Callable[[str], str], study: str,
              family: CorrectedTests) -> list[str]:
    rated = [r for r in headline if r.classified_pairs]
    # A line per judge reads well for a few; past HEADLINE_JUDGES the judges are grouped by what to do with them.
    grouped = grouped_headline([(who(r.judge), r) for r in rated], family) if rated else []
    sentences = ([headline_sentence(who(r.judge), r, family) for r in headline] + grouped[:1]
                 if len(rated) <= HEADLINE_JUDGES else grouped)
    if len(rated) > 1:
        best, worst = rated[0], rated[-1]
        sentences.insert(0, ranking_sentence(who(best.judge), best.flip_rate, who(worst.judge), worst.flip_rate,
                                             len(rated), study, best.classified_pairs, worst.classified_pairs))
    return sentences


def _sentences(headline: list[PairwiseJudgeMetrics], floors: dict[str, PairwiseJudgeMetrics],
               who: Callable[[str], str], family: CorrectedTests) -> list[str]:
    sentences = []
    for r in headline:
        text = flip_sentence(who(r.judge), r.primacy + r.recency, r.classified_pairs, r.flip_rate,
                             r.flip_rate_decision_low, r.flip_rate_decision_high)
        if r.classified_pairs:
            text += (f" (The interval is item-clustered, {r.flip_rate_decision_method}; design effect "
                     f"{r.design_effect:.2f}.) " + direction_sentence(r, family))
        repeated = floors.get(r.judge)
        excess = excess_sentence(who(r.judge), repeated, family) if repeated is not None else None
        if excess:
            text += " " + excess
        sentences.append(text)
    return sentences


def pairwise_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """The swap-consistency section, or None when the scope holds no pair judged in both orders."""
    if "pairwise" not in scope.call_kinds:
        return None
    view = pairwise_view(reader, scope.dataset.id, scope.studies, scope.judge_filter or None,
                         report_studies=scope.studies)
    return pairwise_section_from_view(view, scope)


def pairwise_section_from_view(view: PairwiseView, scope: ReportScope) -> ReportSection | None:
    """The section drawn from the topic's view (``analyses.pairwise_view``): the same rows, family and verdicts as
    the page and ``metrics pairwise --json``."""
    results = list(view.results)
    if not results:
        return None
    studies = list(dict.fromkeys(r.study for r in results))
    main = view.detail_study
    first_reps = sorted((r for r in results if r.repetition == 1), key=lambda r: (r.study, r.flip_rate))
    headline = view.headline()
    floors = {r.judge: r for r in first_reps if r.repetition_floor is not None}
    # One forest per study, the study the sentences speak of first: a chart never mixes the rows of several studies.
    figures = [retitled(flip_rate_forest(rows), f"Flip rate per judge, study {study} ({_judges(rows)}, first "
                                                "repetition)")
               for study in [main, *[s for s in studies if s != main]]
               if (rows := [r for r in first_reps if r.study == study])]
    figures.insert(1, retitled(direction_figure(headline), f"Direction of the changed verdicts, study {main}"))
    units, breakdown = view.units, view.breakdown
    ordered = sorted(results, key=lambda r: (r.study, r.judge, r.repetition))
    family = view.report_family
    tables = [ReportTable("Swap consistency per judge", judge_table(ordered),
                          "Counts are pairs (one pair = the same two answers judged in both orders), not judge "
                          "calls. Pairs with a parse failure on either side are left out of the rates (n)."),
              ReportTable("Direction and fairness per judge", direction_table(ordered, family),
                          "Flips are the classified pairs whose verdict changed. The position test is symmetric in "
                          f"the two answers, counts a tie as half a pick for each slot and treats items as clusters; "
                          f"its p-values are corrected with every test of this section ({correction_words(family)}). "
                          "A unit is a (candidate, task); units whose every pair failed are left out of PF. Raw PF "
                          "divides by the unit's pairs (judgebias); the scaled PF is Shi et al.'s min-max scaling "
                          "per judge and task (METHODS.md section 2).")]
    if not breakdown.empty:
        figures += [retitled(judge_task_heatmap(breakdown, "position_consistency"),
                            f"Position consistency by judge and task (study {main})"),
                    retitled(judge_task_heatmap(breakdown, "preference_fairness"),
                            f"Preference fairness by judge and task (study {main}; below 0 leans to the first slot)"),
                    retitled(quality_gap_scatter(units, "position_consistency"),
                            "Consistency against the answer quality gap: one point per (judge, candidate, task)")]
        tables.append(ReportTable(f"Consistency by task (study {main})", task_table(breakdown),
                                  "Position consistency pools the pairs of each task; preference fairness is the "
                                  "mean over (candidate, task) units."))
    stability = stability_table(results, family)
    if not stability.empty:
        tables.append(ReportTable("Repetition stability", stability,
                                  "Prompts are one order of one pair, asked several times with nothing changed."))
    return ReportSection(
        key="pairwise", title="Swapping the two answers (pairwise position bias)",
        headline=tuple(_headline(headline, scope.who, main, family)),
        sentences=tuple(_sentences(headline, floors, scope.who, family)),
        figures=tuple(figures), tables=tuple(tables), metric_keys=METRIC_KEYS,
        verdicts=tuple(view.report_verdicts({r.judge: scope.who(r.judge) for r in headline})),
        notes=(f"Sentences speak about the study '{main}', first repetition; the tables list every study and "
               "repetition in the report.",
               f"Tests are corrected together: {correction_words(family, REPORT_FAMILY)}; a lean or an excess is "
               "called only when its corrected p is below 0.05. The Pairwise bias page corrects only the rows it "
               "shows (one study), a smaller family, so its corrected p-values can be smaller than these."),
    )
