"""The judge scorecard as a table in words and numbers, and its report section (the Compare judges page draws the
same table, chart and recommendation)."""

from __future__ import annotations

import pandas as pd

from judgebias_core.analyses.scorecard import Scorecard, judge_scorecard
from judgebias_core.charts.scorecard import chart_axis, point_numbers, scorecard_chart
from judgebias_core.metrics.label_words import label_kind_cell
from judgebias_core.metrics.scorecard import RateFigure
from judgebias_core.report.model import ReportScope, ReportSection, ReportTable
from judgebias_core.stats.settings import RESAMPLES, SEED
from judgebias_core.store.handle import StoreReader
from judgebias_core.wording.phrasing import percent


def accuracy_note(card: Scorecard) -> str:
    """How accuracy and 'vs best' are computed, with the resamples and seed they used."""
    return ("Accuracy is swap-averaged: the verdict when both orders agree, else a tie, which earns half credit "
            "against a decisive label; 95% intervals resample whole items. 'vs best' is the paired difference from "
            "the most accurate row on the labelled pairs both judged (paired item bootstrap, "
            f"{card.resamples:,} resamples, seed {card.seed}, its standard error with Student's t; Holm over the "
            "comparisons shown decides 'clearly worse', the interval is at the Bonferroni level over them).")


def _rate(figure: RateFigure | None, with_interval: bool = True) -> str:
    if figure is None:
        return "no labels"
    if not figure.pairs:
        return "n/a (no pairs)"
    text = f"{percent(figure.estimate)} ({int(round(figure.events)):,}/{figure.pairs:,})"
    if with_interval and figure.low == figure.low:
        text += f" [{percent(figure.low)}–{percent(figure.high)}]"
    return text


def _cost(card: Scorecard, row_index: int) -> str:
    cost = card.rows[row_index].cost_per_1000
    if cost.value is None:
        return "not recorded"
    return f"${cost.value:,.2f}" + (" (estimated)" if cost.basis == "estimated" else "")


def scorecard_table(card: Scorecard) -> pd.DataFrame:
    """One row per configuration, most accurate first (else lowest flip rate), values formatted with counts."""
    numbers = point_numbers(card.rows)
    records = []
    for index, row in enumerate(card.rows):
        diff = card.difference(row)
        if row.label == card.best:
            versus = "best"
        elif diff is None or diff.difference != diff.difference:
            versus = "n/a"
        else:
            versus = (f"{100 * diff.difference:+.1f} pts [{100 * diff.low:+.1f}, {100 * diff.high:+.1f}]"
                      + (" clearly worse" if diff.clearly_worse else ""))
        records.append({
            "#": numbers[row.label], "judge": row.judge + (" (simulated)" if row.simulated else ""),
            "study": row.study, "items": row.items,
            "accuracy (swap-averaged)": _rate(row.accuracy),
            "first order": _rate(row.accuracy_first_order, False),
            "swapped order": _rate(row.accuracy_swapped_order, False),
            "right in both orders": _rate(row.accuracy_both_orders, False),
            "kappa with labels": (f"{row.kappa.estimate:.2f}" if row.kappa is not None
                                  and row.kappa.estimate == row.kappa.estimate else "n/a"),
            "vs best": versus,
            "flip rate": _rate(row.flip_rate),
            "first-slot share of flips": _rate(row.first_slot_share, False),
            "longer answer won": _rate(row.longer_answer_share, False),
            "parse failures": f"{row.parse_failures:,} of {row.judgments:,}",
            "cost per 1,000": _cost(card, index),
            "labels": label_kind_cell(row.label_kind),
            "note": row.item_set_note or "",
        })
    return pd.DataFrame(records).sort_values("#").reset_index(drop=True)


def cost_notes(card: Scorecard) -> list[str]:
    """Why a cost is missing or estimated, once per distinct reason."""
    return list(dict.fromkeys(f"{r.judge}: {r.cost_per_1000.note}" for r in card.rows
                              if r.cost_per_1000.basis != "recorded"))


def chart_caption(card: Scorecard) -> str:
    if not card.has_labels:
        return "No labels on these pairs: the chart shows each configuration's flip rate instead of its accuracy."
    axis = ("cost per 1,000 judgments" if chart_axis([r for r in card.rows if r.accuracy]) == "cost"
            else "flip rate (cost is not recorded for every configuration)")
    many = sum(r.accuracy is not None for r in card.rows) > 12
    return (f"Accuracy against {axis}. Red: the best and the recommended configuration. "
            + ("Each point carries its row number from the table (#)." if many else "Each point carries its name."))


def scorecard_section(reader: StoreReader, scope: ReportScope) -> ReportSection | None:
    """Every judge configuration of the dataset side by side (pairwise datasets with judge calls)."""
    if "pairwise" not in scope.kinds or scope.dataset.dataset_kind != "pairwise":
        return None
    card = judge_scorecard(reader, scope.dataset.id, resamples=RESAMPLES, seed=SEED)  # the report's settings
    if not card.rows:
        return None
    best = next((r for r in card.rows if r.label == card.best), None)
    headline = [card.recommendation.sentence.split(". ")[0] + "."] if best else [
        "No labels on these pairs, so no judge's accuracy can be measured here."]
    return ReportSection(
        key="scorecard", title="Which judge to use: the judge scorecard",
        headline=tuple(headline),
        sentences=(card.recommendation.sentence, accuracy_note(card)),
        figures=(scorecard_chart(card.rows, card.best, card.recommendation.label),),
        tables=(ReportTable(f"Judge configurations on {card.name} ({len(card.rows)})", scorecard_table(card),
                            "Counts are pairs (one item's two answers judged in both orders); parse failures and "
                            "cost count judgments (calls). " + chart_caption(card)),),
        metric_keys=("scorecard_accuracy", "flip_rate", "first_slot_share", "kappa"),
        notes=tuple(cost_notes(card)),
    )
