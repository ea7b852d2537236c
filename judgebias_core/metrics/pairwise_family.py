"""The family of tests a pairwise view shows, corrected together (METHODS.md section 2; stats/multiple.py).

Every row of a pairwise table carries one position-effect test (``stats.position_test``: symmetric, ties half a
pick, item-clustered) and, where the study has repetitions, one test of the flip rate's excess over the repetition
floor (``stats.paired.excess_over_floor``). A page or report that shows those p-values corrects them as one family,
Holm by default; a lean or an excess is called only when its corrected p is below alpha.
"""

from __future__ import annotations

from collections.abc import Sequence

from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics
from judgebias_core.stats.multiple import ALPHA, CorrectedTests, Correction, correct

CORRECTIONS: dict[str, Correction] = {"Holm (family-wise error)": "holm",
                                      "Benjamini-Hochberg (false discovery rate)": "fdr_bh"}


def row_label(r: PairwiseJudgeMetrics) -> str:
    return f"{r.dataset}/{r.study}/{r.judge}/rep {r.repetition}"


def position_label(r: PairwiseJudgeMetrics) -> str:
    return f"position effect: {row_label(r)}"


def excess_label(r: PairwiseJudgeMetrics) -> str:
    return f"flip rate above the repetition floor: {row_label(r)}"


def pairwise_family(results: Sequence[PairwiseJudgeMetrics], method: Correction = "holm",
                    alpha: float = ALPHA) -> CorrectedTests:
    """Correct every position test and every excess-over-floor test of ``results`` as one family."""
    labels: list[str] = []
    p_values: list[float] = []
    for r in results:
        labels.append(position_label(r))
        p_values.append(r.position_p)
        if r.flip_rate_excess_p is not None:
            labels.append(excess_label(r))
            p_values.append(r.flip_rate_excess_p)
    return correct(p_values, labels, method, alpha)


def corrected_p(family: CorrectedTests, label: str) -> float:
    """The corrected p of one test of the family (NaN when it is not in it or could not be run)."""
    return family.corrected[family.labels.index(label)] if label in family.labels else float("nan")


def leans(r: PairwiseJudgeMetrics, family: CorrectedTests) -> str | None:
    """'first' or 'second' when the family's correction still rejects "no position effect" for ``r`` and the share
    of slot picks differs from one half, else None (a share of exactly 1/2 leans nowhere, whatever a test says)."""
    label = position_label(r)
    if label not in family.labels or not family.reject[family.labels.index(label)]:
        return None
    share = r.position_pick_share
    if share != share or abs(share - 0.5) < 1e-12:
        return None
    return "first" if share > 0.5 else "second"


def correction_words(family: CorrectedTests, scope: str = "") -> str:
    """'Holm correction over 30 tests shown together'; with ``scope`` (which tests the family holds, e.g. 'every
    study and repetition of this report') that scope follows in parentheses, so a page and a report correcting
    over different families each say which one."""
    count = f"{family.family_size} test{'s' if family.family_size != 1 else ''}"
    where = f" ({scope})" if scope else ""
    if family.method == "none":
        return f"no correction for the {count} shown{where}"
    return f"{family.method_name} over {count} shown together{where}"


def corrected_column(results: Sequence[PairwiseJudgeMetrics], family: CorrectedTests,
                     label: str = "position") -> list[float]:
    """Per result, its corrected p of the position test (``label="position"``) or of the excess test."""
    name = position_label if label == "position" else excess_label
    return [corrected_p(family, name(r)) for r in results]


def dataset_families(results: Sequence[PairwiseJudgeMetrics], method: Correction = "holm",
                     alpha: float = ALPHA) -> dict[str, CorrectedTests]:
    """One family per dataset: what the Pairwise bias page corrects in its default view (every study of one
    dataset), beside the larger family a command over several datasets corrects at once."""
    datasets = sorted({r.dataset for r in results})
    return {d: pairwise_family([r for r in results if r.dataset == d], method, alpha) for d in datasets}


def page_family_scope(study: str | None) -> str:
    """Which tests a page's family holds (``study`` None: every study of the dataset, as the report corrects), and
    how it differs from the report's family when the page shows one study."""
    if study is None:
        return ("every study and repetition of this dataset shown on this page: the position test of every row and "
                "the excess over the repetition floor where measured, the same family as the report's")
    return (f"the rows shown on this page, study {study}: the position test of every row and the excess over the "
            "repetition floor where measured; the report corrects every study and repetition of the dataset "
            "together, a larger family, so its corrected p-values can be larger")
