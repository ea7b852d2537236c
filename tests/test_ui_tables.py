"""ui.tables: every column gets a width that holds its whole header, a spelled-out label and help; the page's own
column settings win; missing text shows empty, not "None"."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.tables import HEADER_PADDING_PX, MAX_WIDTH_PX, PX_PER_CHAR, column_width, readable_column_config, without_none


def test_short_numbers_under_a_long_header_get_the_header_width() -> None:
    frame = pd.DataFrame({"judge": ["gpt-4", "claude"], "Wilson high": [0.5, 0.61]})
    config = readable_column_config(frame)
    label = config["Wilson high"]["label"]
    assert label == "flip rate Wilson 95% high"
    assert config["Wilson high"]["width"] >= len(label) * PX_PER_CHAR + HEADER_PADDING_PX
    assert config["Wilson high"]["help"] == "Wilson high: flip rate Wilson 95% high"
    assert config["judge"]["label"] == "judge"


def test_long_cells_widen_a_column_up_to_the_cap() -> None:
    run_id = "mtbench-pairwise-swap-replay-gemini-pro-f1c979e3"
    assert column_width("run id", pd.Series([run_id])) >= len(run_id) * PX_PER_CHAR
    assert column_width("judge", pd.Series(["x" * 500])) == MAX_WIDTH_PX
    assert column_width("calls", pd.Series([1_234_567])) >= len("1,234,567") * PX_PER_CHAR


def test_the_pages_own_settings_win_and_hidden_columns_stay_hidden() -> None:
    frame = pd.DataFrame({"PC": [0.9], "cost_usd": [0.1], "secret": ["x"]})
    config = readable_column_config(frame, {"PC": st.column_config.NumberColumn(format="%.3f"),
                                            "cost_usd": "cost (USD)", "secret": None})
    assert config["PC"]["type_config"]["format"] == "%.3f" and config["PC"]["label"] == "position consistency"
    assert config["cost_usd"]["label"] == "cost (USD)"
    assert config["secret"] is None


def test_a_users_own_headers_are_kept_as_they_are() -> None:
    config = readable_column_config(pd.DataFrame({"human_verdict": ["A"]}), spell_out=False)
    assert config["human_verdict"]["label"] == "human_verdict"
    assert readable_column_config(pd.DataFrame({"human_verdict": ["A"]}))["human_verdict"]["label"] == "human verdict"


def test_missing_text_is_empty_not_none() -> None:
    frame = pd.DataFrame({"column": ["a", None], "n": [1.0, None]})
    assert readable_column_config(pd.DataFrame({"calls": [20184]}))["calls"]["type_config"]["format"] == "localized"
    shown = without_none(frame)
    assert shown["column"].tolist() == ["a", ""]
    assert shown["n"].isna().tolist() == [False, True]  # numbers keep their missing value
