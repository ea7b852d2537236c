"""Swap-test verdicts for every judge of a dataset across its studies, each naming its study and, when the judge
is measured in several studies on different items, the item sets (``metrics.item_sets``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from judgebias_core.metrics.pairwise import PairwiseJudgeMetrics
from judgebias_core.metrics.pairwise_family import pairwise_family
from judgebias_core.stats.multiple import CorrectedTests
from judgebias_core.wording.verdict import Verdict, pairwise_verdict


def verdicts_across_studies(results: Sequence[PairwiseJudgeMetrics], notes: dict[tuple[str, str], str],
                            family: CorrectedTests | None = None, scope: str = "") -> list[Verdict]:
    """One verdict per (judge, study) on its first repetition, the best-measured first (most pairs judged; a
    24-item subset never leads a study of 2,400 pairs), then steadiest first: the sentences name the judge as
    "judge [study]", the box's subject adds the item-set note. ``family`` defaults to every test of ``results``;
    ``scope`` says which tests it holds (``metrics.pairwise_family.page_family_scope``)."""
    family = family if family is not None else pairwise_family(results)
    rows = sorted((r for r in results if r.repetition == 1 and r.classified_pairs),
                  key=lambda r: (-r.pairs, r.flip_rate))
    verdicts = []
    for r in rows:
        note = notes.get((r.judge, r.study))
        subject = f"{r.judge} · study {r.study}" + (f" (items differ by study: {note})" if note else "")
        verdicts.append(replace(pairwise_verdict(r, f"{r.judge} [{r.study}]", family, scope), subject=subject))
    return verdicts
