"""The dataset / study / judge pickers shared by the pages that compare judges on pairwise data."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from judgebias_core.analyses.judge_scope import pairwise_datasets, pairwise_studies, study_judges
from ui.share import escape_markdown, synced_selectbox
from ui.state import cached, load_or_stop


def pick_pairwise_dataset(column: DeltaGenerator, key: str) -> tuple[str, pd.DataFrame]:
    """A dataset with pairwise calls (the page stops with a message when there is none) and its studies."""
    datasets = load_or_stop(pairwise_datasets)
    if not datasets:
        st.info("No pairwise judge calls in the store yet. Import the bundled data or launch a swap run.")
        st.stop()
    with column:
        dataset = synced_selectbox("Dataset", datasets, key=key)
    if dataset is None:  # an empty choice list was stopped above; a cleared widget shows nothing
        st.stop()
    return dataset, cached(pairwise_studies, dataset)


def pick_study(column: DeltaGenerator, studies: pd.DataFrame, key: str) -> tuple[str, list[str]]:
    """One study and the judges to offer in it (the majority-vote ensemble last, when there are several)."""
    with column:
        study = synced_selectbox("Study (or run id)", studies["study"].tolist(), key=key)
    if study is None:
        st.stop()
    offered = study_judges(studies, study)
    if offered.other_studies:
        st.caption(escape_markdown(offered.other_studies))
    return study, offered.judges
