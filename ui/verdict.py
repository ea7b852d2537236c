"""The verdict block every analysis page opens with: what the judge does, how sure we are, what to do.

The words come from ``judgebias_core.wording.verdict`` (the report prints the same objects). The plain statements
come first; the rule behind each (test, correction, interval method) is folded under "How this was decided".
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from judgebias_core.analyses.datasets import dataset_summaries
from judgebias_core.analyses.pairwise import pairwise_metrics, study_item_notes
from judgebias_core.wording.verdict import DECIDED, Verdict
from judgebias_core.wording.verdict_studies import verdicts_across_studies
from ui.state import load_or_stop
from ui.text import escape_markdown


def verdict_block(verdicts: Sequence[Verdict | None], title: str = "In short") -> None:
    """One bordered box per verdict, under a small heading; nothing when there is no verdict."""
    shown = [v for v in verdicts if v is not None]
    if not shown:
        return
    st.markdown(f"#### {escape_markdown(title)}")
    for verdict in shown:
        with st.container(border=True):
            st.markdown(f"**{escape_markdown(verdict.subject)}**")
            for line in verdict.lines:
                st.markdown(f"**{escape_markdown(line.heading)}:** {escape_markdown(line.text)}")
            with st.expander(DECIDED):
                for line in verdict.lines:
                    st.caption(f"**{escape_markdown(line.heading)}:** {escape_markdown(line.rule)}")


def overview_verdict_block() -> None:
    """The verdicts of every judge of the first pairwise dataset, across its studies (each named, with the item sets
    when a judge's studies cover different items), for the Overview (nothing if it has none)."""
    dataset = next((d for d in load_or_stop(dataset_summaries) if d.dataset_kind == "pairwise" and d.judge_calls), None)
    if dataset is None:
        return
    results = load_or_stop(pairwise_metrics, dataset.id, None, None)
    verdicts = verdicts_across_studies(results, load_or_stop(study_item_notes, dataset.id))
    studies = sorted({r.study for r in results})
    verdict_block(verdicts, title=f"In short: the swap test on {dataset.name}, every judge "
                  f"({len(verdicts)}) across {len(studies)} {'study' if len(studies) == 1 else 'studies'} "
                  f"({', '.join(studies)})")


def verdict_lines_markdown(verdict: Verdict) -> str:
    """A verdict's plain lines as one markdown block, each under its bold heading ("What it does: ..."), for a box
    drawn inside a page's section (st.info, st.success); the rules go into the section's own fold."""
    return "\n\n".join(f"**{escape_markdown(line.heading)}:** {escape_markdown(line.text)}" for line in verdict.lines)
