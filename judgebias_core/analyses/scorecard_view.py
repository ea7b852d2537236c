"""The scorecard topic's view: everything the Compare judges page, the report's "Which judge to use" section and
``scorecard --json`` show, computed once (METHODS.md, "Judge scorecard")."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judgebias_core.analyses.scorecard import Scorecard, judge_scorecard, scorecard_choices, scorecard_json
from judgebias_core.metrics.label_words import label_kind_cell
from judgebias_core.metrics.scorecard import RateFigure, chart_axis, point_numbers
from judgebias_core.simulated import simulated_notice
from judgebias_core.stats.clustered import RESAMPLES, SEED
from judgebias_core.store.handle import StoreReader
from judgebias_core.text import counted
from judgebias_core.wording.phrasing import percent

# The page opens on this dataset when the store has it: labelled, so the first view carries a recommendation.
DEFAULT_DATASET = "llmbar-natural"


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


def recommendation_lead(card: Scorecard) -> str:
    """The recommendation's first sentence in plain words, with its count. A configuration is named only when the
    recommendation's own rule names one (some rows clearly less accurate than the best, the chosen one not)."""
    rec = card.recommendation
    labelled = [r for r in card.rows if r.accuracy is not None and r.accuracy.pairs]
    if not labelled:
        return "No labels on these pairs, so no judge's accuracy can be measured here."
    if rec.judge is None:
        most = max(r.labelled_pairs for r in labelled)
        if len(labelled) == 1:
            return (f"No recommendation: only {labelled[0].label} has labelled pairs here ({most:,}), so there is "
                    "nothing to compare it with.")
        return (f"No recommendation: none of the {len(labelled)} judges is clearly more accurate than the others "
                f"on these {most:,} labelled pairs.")
    chosen = next(r for r in labelled if r.label == rec.label)
    assert chosen.accuracy is not None
    # How sure, in the same sentence: the others the rule could not tell apart from the best.
    level = sum(1 for r in labelled if r.label != chosen.label and (d := card.difference(r)) is not None
                and not d.clearly_worse)
    if chosen.label != card.best:
        sure = ", about as accurate as the best and cheaper"
    elif level:
        sure = f"; {counted(level, 'other')} may do as well"
    else:
        sure = ", clearly ahead of every other judge"
    return (f"Use {chosen.label}: it matches the labels on {percent(chosen.accuracy.estimate)} of "
            f"{chosen.labelled_pairs:,} labelled pairs{sure}.")


@dataclass(frozen=True)
class ScorecardView:
    """The scorecard with everything the page and the report print from it: the formatted table, the
    recommendation's plain first sentence and its details, the notes, the simulated-judge notice."""

    card: Scorecard
    table: pd.DataFrame
    lead: str  # the recommendation's first sentence: plain words and the count
    detail: str  # the recommendation in full: the figures and the rule behind the choice
    accuracy_note: str
    chart_caption: str
    cost_notes: tuple[str, ...]
    simulated_notice: str | None

    @property
    def text(self) -> str:
        """What the page's recommendation box says: the plain first sentence, then the details (the details alone
        when there are no labels: they open by saying so)."""
        return f"{self.lead} {self.detail}" if self.card.has_labels else self.detail

    @property
    def recommended(self) -> bool:
        return self.card.recommendation.judge is not None

    def json(self) -> dict:
        """``scorecard --json``."""
        return scorecard_json(self.card)


def scorecard_datasets(reader: StoreReader) -> tuple[list[tuple[str, str]], int]:
    """The page's dataset choices (id, name) and the index it opens on (a labelled dataset when there is one)."""
    choices = scorecard_choices(reader)
    return choices, next((i for i, (c, _) in enumerate(choices) if c == DEFAULT_DATASET), 0)


def scorecard_view(reader: StoreReader, dataset: str, resamples: int = RESAMPLES, seed: int = SEED) -> ScorecardView:
    """The scorecard of a pairwise dataset or dataset group as the page, the report and the CLI show it."""
    card = judge_scorecard(reader, dataset, resamples=resamples, seed=seed)
    return ScorecardView(
        card=card, table=scorecard_table(card), lead=recommendation_lead(card),
        detail=card.recommendation.sentence, accuracy_note=accuracy_note(card), chart_caption=chart_caption(card),
        cost_notes=tuple(cost_notes(card)), simulated_notice=simulated_notice([r.judge for r in card.rows]))
