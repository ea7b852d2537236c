"""ui.tables: every column gets a width that holds its whole header, a spelled-out label and help; the page's own
column settings win; missing text shows empty, not "None"."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.tables import (
    HEADER_PADDING_PX,
    MAX_WIDTH_PX,
    PROSE_MIN_PX,
    PX_PER_CHAR,
    TABLE_BUDGET_PX,
    column_width,
    fit_widths,
    header_width,
    readable_column_config,
    row_height,
    without_none,
)


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


def test_long_text_gives_way_so_the_table_fits_and_every_header_stays_whole() -> None:
    frame = pd.DataFrame({"measure": ["AIC gain from the quality gap in the selected model " * 2],
                          "observed": [246.4], "bound alone (mean of shuffles)": [111.3],
                          "bound alone (95th percentile)": [None]})
    config = readable_column_config(frame)
    widths = {k: v["width"] for k, v in config.items()}
    for name in frame.columns:
        assert widths[name] >= header_width(name)
    # Prose gives way down to a readable measure and wraps in taller rows rather than being cut (issue 24).
    assert widths["measure"] == PROSE_MIN_PX < column_width("measure", frame["measure"])
    assert (row_height(frame, config) or 0) > 64  # the grid wraps text only in rows taller than 4 rem
    ids = pd.DataFrame({"dataset": ["prometheus-mt-bench"], "licence": ["MIT (c) 2024 Slim and others " * 3],
                        "judge calls": [21024], "labelled items": [1200]})
    id_widths = {k: v["width"] for k, v in readable_column_config(ids).items()}
    assert id_widths["dataset"] == column_width("dataset", ids["dataset"])  # an id is never narrowed


def test_fit_widths_keeps_a_table_that_fits_and_headers_that_do_not() -> None:
    assert fit_widths({"a": 100, "b": 200}, {"a": 80, "b": 80}) == {"a": 100, "b": 200}
    too_many_headers = {str(i): 200 for i in range(10)}
    assert fit_widths(too_many_headers, too_many_headers) == too_many_headers
    narrowed = fit_widths({"a": 800, "b": 400}, {"a": 100, "b": 100}, budget=600)
    assert sum(narrowed.values()) <= 600 and narrowed["a"] > narrowed["b"] >= 100


def test_a_pages_own_width_is_kept_and_counted() -> None:
    frame = pd.DataFrame({"wide": ["x" * 200], "given": [1.0]})
    config = readable_column_config(frame, {"given": {"width": 700}})
    assert config["given"]["width"] == 700
    assert config["wide"]["width"] == TABLE_BUDGET_PX - 700  # the room the given width leaves


def test_a_record_reads_downwards_with_readable_field_names() -> None:
    from streamlit.testing.v1 import AppTest

    def draw() -> None:
        import pandas as pd

        from ui.tables import show_record

        show_record(pd.Series({"item_id": "q1", "swap_aggregated": "tie", "human": None}))

    at = AppTest.from_function(draw).run()
    shown = at.dataframe[0].value
    assert shown["field"].tolist() == ["item id", "swap aggregated", "human"]
    assert shown["value"].tolist() == ["q1", "tie", ""]


def test_a_table_that_scrolls_anyway_keeps_its_cells_whole() -> None:
    widths = {"task": 120, **{f"h{i}": 200 for i in range(6)}}
    headers = {"task": 60, **{f"h{i}": 200 for i in range(6)}}
    assert fit_widths(widths, headers) == widths


def test_a_leading_abbreviation_is_spelled_out_too() -> None:
    from ui.tables import column_label

    assert column_label("PC low") == "position consistency low"
    assert column_label("PF scaled (Shi et al.)") == "preference fairness scaled (Shi et al.)"
    assert column_label("judge B") == "judge B" and column_label("AIC before") == "AIC before"
    assert readable_column_config(pd.DataFrame({"PF raw": [0.1]}))["PF raw"]["help"] == "PF raw: preference fairness raw"
