"""Data: datasets, items, and one judge call's inputs next to its raw reply and parsed verdict."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.datasets import (
    call_detail,
    calls_for_item,
    dataset_summaries,
    item_answers,
    item_labels,
    items_page,
)
from ui.access import operator_gate
from ui.share import code_span, escape_markdown
from ui.state import cached, load_or_stop
from ui.tables import show_table
from ui.text import counted
from ui.upload_panel import render_upload_panel

st.title("Data")
summaries = load_or_stop(dataset_summaries)

show_table(
    [
        {"dataset": s.id, "kind": s.dataset_kind, "items": s.items, "candidates": s.candidates, "judge calls": s.judge_calls,
         "labelled items": s.human_labels}
        for s in summaries
    ],
)

browse_tab, upload_tab = st.tabs(["Browse", "Upload"])

with upload_tab:
    if operator_gate("Uploading datasets, judge logs and rubrics"):
        render_upload_panel()

with browse_tab:
    if not summaries:
        st.info("The store holds no dataset yet.")
        st.stop()
    ids = [s.id for s in summaries]
    chosen = st.selectbox("Dataset", ids, format_func=lambda i: next(s.name for s in summaries if s.id == i) + f" ({i})")
    summary = next(s for s in summaries if s.id == chosen)
    st.caption(escape_markdown(summary.description))
    # Source and licence are sentences: read whole here, under the chosen dataset, rather than cut in a table cell.
    st.caption(f"Source: {escape_markdown(summary.source)} · Licence: {escape_markdown(summary.licence)}")
    search = st.text_input("Search items (id or text)", "")
    page_size = 25
    frame, total = cached(items_page, chosen, 0, 10_000, search)
    st.caption(f"{counted(total, 'item')} match.")
    if total == 0:
        st.stop()
    pages = max(1, (total + page_size - 1) // page_size)
    page = st.number_input(f"Page (of {pages})", min_value=1, max_value=pages, value=1, step=1)
    shown = frame.iloc[(page - 1) * page_size : page * page_size]
    show_table(
        shown.assign(question=shown["question"].str.slice(0, 160)).dropna(axis=1, how="all"),
        column_config={"item_id": "item", "reference_answer": "reference answer", "rubric_id": "rubric"},
    )
    item_id = st.selectbox("Open item", shown["item_id"].tolist())
    row = frame[frame["item_id"] == item_id].iloc[0]
    with st.expander("Item text", expanded=False):
        st.text(row["question"])
        if isinstance(row.get("response"), str):
            st.markdown("**Response being scored**")
            st.text(row["response"])
    answers = cached(item_answers, chosen, item_id)
    if answers:
        with st.expander(f"Candidate answers ({len(answers)})"):
            who = st.selectbox("Candidate", list(answers))
            st.text(answers[who])
    labels = cached(item_labels, chosen, item_id)
    if not labels.empty:
        with st.expander(f"Labels ({len(labels)})"):
            show_table(labels)

    calls = cached(calls_for_item, chosen, item_id)
    st.subheader(f"Judge calls on item {code_span(item_id)}")
    if calls.empty:
        st.info("No judge call on this item yet. Launch a run from the New run page.")
        st.stop()
    st.caption(f"{counted(len(calls), 'call')}. Pick one to see what the judge was shown and what it replied.")
    label_of = {
        r.call_id: f"{r.judge} · {r.study} · rep {r.repetition} · "
        + (f"{r.first_candidate} | {r.second_candidate}" if isinstance(r.first_candidate, str) else f"ordering {r.ordering}")
        for r in calls.itertuples()
    }
    call_id = st.selectbox("Judge call", calls["call_id"].tolist(), format_func=lambda c: label_of[c])
    detail = cached(call_detail, call_id)
    if detail.simulated:
        st.warning("This call was made by a **simulated** judge, not a real model.")
    left, right = st.columns(2)
    with left:
        st.markdown("**What the judge was shown**")
        if detail.prompt:
            st.text(detail.prompt)
        else:
            st.caption("The exact prompt was not stored with this call; these are its inputs.")
            st.text(detail.question)
            for slot, candidate in zip("ABCDEFGH", detail.slots, strict=False):
                st.markdown(f"**Slot {slot}:** {escape_markdown(candidate)}")
                st.text(detail.answers.get(candidate, "(answer not in the store)"))
            if detail.response:
                st.markdown("**Response**")
                st.text(detail.response)
    with right:
        st.markdown("**Raw reply**")
        if detail.raw_output is None:
            st.info("No raw reply is stored for this call: "
                    + ("its verdict was published pre-parsed, without the judge's text." if detail.parser == "pre-parsed"
                       else "the call got no reply." + (f" ({escape_markdown(detail.error)})" if detail.error else "")))
        else:
            st.text(detail.raw_output)
        st.markdown("**Parsed**")
        st.json({"verdict": detail.verdict, "score": detail.score, "chosen_position": detail.chosen_position,
                 "parse_status": detail.parse_status, "parser": detail.parser, "reason": detail.error,
                 "slots": detail.slots, "ordering": detail.ordering, "run": detail.run_id, "study": detail.study,
                 "repetition": detail.repetition})
