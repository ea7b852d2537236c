"""Overview: what judgebias measures, in plain words, and what the store holds."""

from __future__ import annotations

import streamlit as st

from judgebias_core.analyses.datasets import dataset_summaries, store_overview
from ui.navigation import link_page
from ui.state import load_or_stop
from ui.tables import show_table
from ui.verdict import overview_verdict_block

st.title("How far can an LLM judge be trusted?")
st.markdown(
    """
Language models are often asked to **judge** other answers: to give a score on a rubric, or to say which of
two answers is better. Such judges have a quiet flaw called **position bias**: they tend to favour whatever
is shown in a particular place, such as the answer shown first, or the first option of a rubric.

judgebias measures that flaw on real data:

- **Swap test (pairwise).** Every pair of answers is judged twice, once as *A then B* and once as *B then A*.
  A trustworthy judge picks the same winner both times. The share of pairs where the verdict changes is the
  **flip rate**; which slot those changes favour is the **direction** of the bias.
- **Rotation test (rubric).** Every score option is moved through every position of the rubric. A trustworthy
  judge gives the same score wherever the options sit.
- **Agreement with people.** Where humans labelled the data, judgebias shows how often the judge agrees with
  them, beyond chance.

Every number comes with the count behind it, the judge and the run it came from.
"""
)

overview = load_or_stop(store_overview)
summaries = load_or_stop(dataset_summaries)

overview_verdict_block()
st.subheader("What is in the store")
cols = st.columns(6)
cols[0].metric("Datasets", overview.datasets)
cols[1].metric("Items", f"{overview.items:,}")
cols[2].metric("Judges", overview.judges)
cols[3].metric("Runs", overview.runs)
cols[4].metric("Judge calls", f"{overview.judge_calls:,}", help="Every stored call of a judge model.")
cols[5].metric("Human labels", f"{overview.human_labels:,}", help="Ratings and preferences given by people, "
               f"and gold labels: {overview.gold_labels:,} of them are gold (each LLMBar pair's correct answer as "
               "its authors set it, named gold wherever shown). "
               f"Not counted: {overview.reference_labels:,} scores by a reference judge (GPT-4 on the Prometheus "
               "items), which are kept apart and never shown as human.")
st.caption(
    f"{overview.parse_failures:,} of {overview.judge_calls:,} judge calls have a reply no verdict could be read "
    "from; they are kept and counted as parse failures, never guessed."
)

show_table(
    [
        {"dataset": s.id, "name": s.name, "kind": s.dataset_kind, "items": s.items, "judge calls": s.judge_calls,
         "labelled items": s.human_labels}
        for s in summaries
    ],
)

st.subheader("Where to look")
links = [
    ("data.py", "Data", "browse items, open a judge call, upload your own data"),
    ("pairwise_bias.py", "Pairwise bias", "flip rates, direction and fairness of each judge"),
    ("rubric_bias.py", "Rubric bias", "does the score depend on where the options sit?"),
    ("factors.py", "Factors", "what drives the bias: judge, task, answer quality, length"),
    ("compare_judges.py", "Compare judges", "which judge to use: accuracy, position bias, failures and cost side by "
     "side, with a recommendation"),
    ("judges.py", "Judges", "how judges agree with each other"),
    ("calibration.py", "Calibration", "how judges agree with people"),
    ("other_biases.py", "Other biases", "longer answers and the judge's own model family"),
    ("leaderboard.py", "Leaderboard", "how the judges rank the candidates, and whether position could flip it"),
    ("new_run.py", "New run", "judge your own data with a real model"),
    ("runs.py", "Runs", "every run, its progress, settings and stored replies"),
    ("report.py", "Report", "a file to share with people who do not code"),
]
for file_name, label, what in links:
    link_page(file_name, f"**{label}**: {what}")
