"""The Rubric bias topic in words (issue 24): where the chosen score sat, the balance of the run, the canonical
ordering's rank and the run's own Bias Cost, each a plain sentence first and the rule behind it apart.

Read by ``analyses/rubric_view.py``, so the Rubric bias page, the report's rubric section and ``metrics rubric
--json`` say the same thing. Sentences may carry ``**`` around a figure the page shows in bold; ``unmarked`` gives
the report's and the CLI's text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from judgebias_core.metrics.rubric_report import RubricReport
from judgebias_core.wording.bias_cost_words import cost_interval_words, ordering_text
from judgebias_core.wording.phrasing import names_list, percent


def unmarked(text: str) -> str:
    """A sentence without the page's bold marks and code spans, for the report and the CLI."""
    return text.replace("**", "").replace("`", "")


@dataclass(frozen=True)
class PositionShareRow:
    """One position of the position-share table: the share with its item-clustered interval, the Wilson interval
    that treats calls as independent, and the clustered test against 1/k before and after the correction."""

    position: int
    choices: int
    parsed: int
    share: float
    low: float
    high: float
    interval_method: str
    wilson_low: float
    wilson_high: float
    uniform: float
    p: float
    corrected_p: float
    unlikely_chance: bool


@dataclass(frozen=True)
class BalanceWarning:
    """Why the run's parsed trials are off balance, and what the shares do about it (``title`` is shown bold)."""

    title: str
    text: str

    @property
    def sentence(self) -> str:
        return f"{self.title}: {self.text}"


@dataclass(frozen=True)
class PositionShareWords:
    """The position shares: ``sentence`` in plain words, ``decided`` the intervals, test and correction over
    ``family_size`` positions (``correction``), ``rows`` the table, ``balance`` the warning (None when balanced)."""

    sentence: str
    decided: str
    correction: str
    family_size: int
    rows: tuple[PositionShareRow, ...]
    balance: BalanceWarning | None


@dataclass(frozen=True)
class OrderingRow:
    """One ordering of the run: its trials, how its scores follow the labels (rank 1 = closest) and its Bias Cost."""

    ordering: str
    canonical: bool
    trials: int
    parsed: int
    labelled_items: int
    pearson: float
    spearman: float
    rank: int | None
    bias_cost: float


@dataclass(frozen=True)
class OrderingRankWords:
    """The orderings' ranks: ``sentence`` says where the canonical ordering ranks (None without ranks or without a
    canonical ordering), ``against`` names the labels (None without labels), ``decided`` the rule."""

    sentence: str | None
    against: str | None
    decided: str
    rows: tuple[OrderingRow, ...]


@dataclass(frozen=True)
class OwnCostWords:
    """The run's own Bias Cost: ``sentence`` names the lowest-cost ordering of the run (never as a recommendation
    when it is unstable) or why there is none; ``interval`` its interval, runner-up and stability in words."""

    sentence: str
    interval: str | None
    lowest: str | None  # the lowest-cost ordering as the New run page takes it, None without one


def balance_warning(report: RubricReport) -> BalanceWarning | None:
    """Balance checked on the parsed exposures, and what the shares do about an imbalance; None when balanced."""
    exposure = report.exposure
    if exposure.balanced or exposure.worst_share is None:
        return None
    off = (f"Furthest from balance: score {exposure.worst_score} was shown at position {exposure.worst_position} in "
           f"{exposure.worst_share:.1%} of the {exposure.parsed:,} parsed trials, where a balanced run shows it in "
           f"1/{report.k} = {1 / report.k:.1%} ({exposure.max_deviation * 100:.1f} percentage points off).")
    if exposure.weighting == "orderings-equal":
        return BalanceWarning(
            "Parse failures unbalanced this run",
            f"its orderings are a balanced set, but the parsed trials are not ({report.parse_failures} parse "
            f"failures, {report.no_reply} without reply). {off} The shares below are exposure-weighted: every "
            "ordering counts equally (each parsed trial weighted by 1 / its ordering's parsed trials), which makes "
            "the parsed exposures balanced again.")
    design = ("its orderings are not balanced (not a balanced set)" if not exposure.design_balanced
              else "parse failures removed whole orderings, so no weighting can restore balance")
    return BalanceWarning("Score and position are confounded in this run",
                          f"{design} ({report.run.orderings} distinct orderings). {off} The shares "
                          "below mix content with position.")


def _position_rows(report: RubricReport) -> tuple[PositionShareRow, ...]:
    share, tests = report.position, report.position_tests
    corrected = tests.corrected
    return tuple(
        PositionShareRow(position=p, choices=share.counts[p - 1], parsed=share.n, share=rate.rate, low=rate.low,
                         high=rate.high, interval_method=rate.method, wilson_low=share.ci_low[p - 1],
                         wilson_high=share.ci_high[p - 1], uniform=share.uniform, p=corrected.p_values[p - 1],
                         corrected_p=corrected.corrected[p - 1], unlikely_chance=corrected.reject[p - 1])
        for p, rate in enumerate(tests.shares, start=1))


def _position_sentence(report: RubricReport, rows: tuple[PositionShareRow, ...]) -> str:
    share = report.position
    if share.n == 0:
        return "No readable score in this run, so no position can be compared with chance."
    blind = (f"a judge blind to the order would choose each of the {share.k} positions {percent(share.uniform)} of "
             "the time")
    standing = [row for row in rows if row.unlikely_chance]
    if not standing:
        rates = [row.share for row in rows]
        return (f"No position stands out from chance: the shares of the {share.n:,} readable scores run from "
                f"{percent(min(rates))} to {percent(max(rates))}, where {blind}.")

    def often(row: PositionShareRow) -> str:
        return "more" if row.share > row.uniform else "less"

    if len(standing) == 1:
        row = standing[0]
        return (f"Position {row.position} is chosen {often(row)} often than chance would explain: "
                f"{percent(row.share)} of the {share.n:,} readable scores (95% range {percent(row.low)} to "
                f"{percent(row.high)}), where {blind}.")
    named = names_list([str(row.position) for row in standing])
    each = "; ".join(f"position {row.position} {often(row)} often, {percent(row.share)} (95% range "
                     f"{percent(row.low)} to {percent(row.high)})" for row in standing)
    return (f"Positions {named} stand out from chance over the {share.n:,} readable scores: {each}; {blind}.")


def position_share_words(report: RubricReport) -> PositionShareWords:
    """The position shares of ``report`` in words, with their table rows and the balance warning."""
    tests, corrected = report.position_tests, report.position_tests.corrected
    rows = _position_rows(report)
    weighted = " (exposure-weighted)" if tests.weighting == "orderings-equal" else ""
    favoured = [f"position {row.position}" for row in rows if row.unlikely_chance]
    decided = (f"Shares{weighted} with 95% item-clustered intervals over {tests.items:,} items (all calls of an item "
               f"together; the Wilson columns treat calls as independent). Each position is tested against "
               f"1/{report.k} with a {tests.test_method}; {corrected.method_name} over the "
               f"{corrected.family_size} positions shown. "
               + (f"Unlikely to be chance after that correction: {', '.join(favoured)}." if favoured
                  else "No position is unlikely to be chance after that correction."))
    return PositionShareWords(sentence=_position_sentence(report, rows), decided=decided,
                              correction=corrected.method_name, family_size=corrected.family_size, rows=rows,
                              balance=balance_warning(report))


def _against(report: RubricReport) -> str | None:
    if report.human is None:
        return None
    return "human scores" if report.human.label_source == "human" else "a reference judge"


def ordering_rank_words(report: RubricReport) -> OrderingRankWords:
    """Where the canonical ordering ranks among the run's orderings by how its scores follow the labels."""
    rows = tuple(OrderingRow(ordering=ordering_text(o.ordering), canonical=o.canonical, trials=o.trials,
                             parsed=o.parsed, labelled_items=o.n, pearson=o.pearson, spearman=o.spearman,
                             rank=o.rank, bias_cost=o.bias_cost) for o in report.orderings)
    against = _against(report) if any(row.rank is not None for row in rows) else None
    canonical = next((row for row in rows if row.canonical), None)
    sentence = None
    if against is not None and canonical is not None and canonical.rank is not None:
        sentence = (f"The canonical ordering {canonical.ordering} ranks **{canonical.rank} of {len(rows)}** by how "
                    f"closely its scores follow {against}.")
    decided = ("Each ordering's per-item scores against the labels: rank 1 has the highest Pearson r (Spearman rho "
               "beside it); items with labels (n) counts the items each correlation is over.")
    return OrderingRankWords(sentence=sentence, against=against, decided=decided, rows=rows)


def own_cost_words(report: RubricReport) -> OwnCostWords:
    """The run's own Bias Cost in words: the lowest-cost ordering among its orderings, its correlation rank, and,
    when it is lowest in too few resamples, that it is not better than the others (no recommendation)."""
    costs, best = report.bias_cost, report.recommended
    if best is None:
        return OwnCostWords(f"Bias Cost recommends no ordering for this run: {costs.reason}.", None, None)
    count = len(report.orderings)
    own = ("this run's own P(position | score)" if report.probe_run_id == report.run.run_id
           else f"the P(position | score) of probe {report.probe_run_id}")
    rank = report.correlation_rank(best.ordering)
    sentence = (f"Under {own}, the lowest Bias Cost among its {count} orderings is **{ordering_text(best.ordering)}** "
                f"({best.bias_cost:.3f})"
                + (f", which ranks **{rank} of {count}** by correlation with the labels."
                   if rank is not None and report.human is not None else "."))
    if costs.stable:
        sentence += (f" It is the lowest in {percent(costs.stability, 0)} of the resamples, so it is the one "
                     "recommended among this run's orderings.")
    elif not math.isnan(costs.stability):
        sentence += (f" It is the lowest in only {percent(costs.stability, 0)} of the resamples, too few to call it "
                     "better than the others, so it is not recommended.")
    return OwnCostWords(sentence, cost_interval_words(costs, best), ordering_text(best.ordering))


def never_chosen_words(report: RubricReport) -> str | None:
    """The scores no trial chose (blank rows of P(position | score)), or None when every score was chosen."""
    table = report.score_position
    never = [str(score) for score, row in zip(table.scores, table.rows, strict=True) if row is None]
    return f"Never chosen in this run (blank rows): score {', '.join(never)}." if never else None
