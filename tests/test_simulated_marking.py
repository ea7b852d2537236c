"""A simulated judge is said to be simulated everywhere (issue 24): page banners, every chart's title or legend,
every download's name, the exported images themselves and the report.

The store: the first-launch store (its simulated rubric demo runs) plus two simulated pairwise runs on MTBench and
one on Auto-J (labelled by people), each its own study, so every pairwise page has a simulated judge to show.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from judgebias_core.charts.rubric import position_share_figure
from judgebias_core.charts.style import retitled, simulated_in, styled
from judgebias_core.engine import start_run
from judgebias_core.exports import chrome_path, figure_image_bytes
from judgebias_core.metrics.rubric import PositionShare
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider
from judgebias_core.report import ReportRequest, build_report_html
from judgebias_core.simulated import (
    SIMULATED_FILE_MARK,
    SIMULATED_PREFIX,
    judge_note,
    marked_file_stem,
    simulated_among,
    simulated_notice,
    table_judges,
)
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page

SIM_A, SIM_B = "simulated:demo-judge", "simulated:other-judge"
STUDY_A, STUDY_B = "sim-demo-judge", "sim-other-judge"
STUDY_LABELLED = "sim-autoj"  # a dataset with human labels, for the pairwise Calibration page


@pytest.fixture(scope="module")
def simulated_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("simulated") / "store.duckdb"
    shutil.copy(bundled_db_master, path)
    settings = RunSettings(concurrency=8, flush_every=500, flush_interval_s=1.0)
    for dataset, model, run_id in (("mtbench", "demo-judge", STUDY_A), ("mtbench", "other-judge", STUDY_B),
                                   ("autoj", "demo-judge", STUDY_LABELLED)):
        spec = RunSpec(dataset_id=dataset, protocol="pairwise-swap", provider="simulated", model=model,
                       limit_items=12, seed=1)
        start_run(Store.open(path), spec, settings, run_id=run_id)
    return path


class Downloads:
    """Every download button a page draws: label, file name and the (deferred) data."""

    def __init__(self) -> None:
        self.buttons: list[dict[str, Any]] = []

    def __call__(self, label: str, data: Any, file_name: str | None = None, **kwargs: Any) -> bool:
        self.buttons.append({"label": label, "data": data, "file_name": file_name or ""})
        return False

    def of(self, *labels: str) -> list[dict[str, Any]]:
        return [b for b in self.buttons if b["label"] in labels]


@pytest.fixture
def downloads(simulated_db: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Downloads]:
    monkeypatch.setenv("JUDGEBIAS_DB", str(simulated_db))
    recorder = Downloads()
    # AppTest runs the page in this process: st.download_button and the columns' download_button both record.
    monkeypatch.setattr(st, "download_button", recorder)
    monkeypatch.setattr(DeltaGenerator, "download_button", lambda _dg, *args, **kwargs: recorder(*args, **kwargs))
    yield recorder


def _says_simulated(spec: dict[str, Any]) -> bool:
    title = spec["layout"].get("title") or {}
    shown = [title.get("text") or "", (title.get("subtitle") or {}).get("text") or ""]
    shown += [str(trace.get("name") or "") for trace in spec["data"] if trace.get("showlegend", True)]
    return any("simulated" in text.lower() for text in shown)


PAGES: dict[str, tuple[str, dict[str, str | list[str]]]] = {
    "rubric": ("rubric_bias.py", {}),
    "calibration-rubric": ("calibration.py", {"cal_dataset": "summeval", "cal_judge": SIM_A}),
    "calibration-pairwise": ("calibration.py", {"cal_dataset": "autoj", "cal_judge": SIM_A,
                                                 "cal_study": STUDY_LABELLED}),
    "pairwise": ("pairwise_bias.py", {"pw_dataset": "mtbench", "pw_study": STUDY_A}),
    "judges": ("judges.py", {"jd_dataset": "mtbench", "jd_studies": [STUDY_A, STUDY_B]}),
    "leaderboard": ("leaderboard.py", {"lb_dataset": "mtbench", "lb_study": STUDY_A, "lb_judge": SIM_A}),
    "other-biases": ("other_biases.py", {"ob_dataset": "mtbench", "ob_study": STUDY_A}),
    "factors": ("factors.py", {"fx_dataset": "mtbench", "fx_study": STUDY_A}),
    "compare-judges": ("compare_judges.py", {"cj_dataset": "mtbench"}),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_every_chart_banner_and_download_of_a_simulated_judge_says_so(name: str, downloads: Downloads) -> None:
    page, query = PAGES[name]
    at = open_page(page, query=query)
    assert not at.exception, at.exception
    text = " ".join(e.value for e in at.warning)
    assert "simulated" in text.lower(), f"{name}: no banner says simulated"
    charts = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    assert charts, name
    silent = [(c["layout"].get("title") or {}).get("text") for c in charts if not _says_simulated(c)]
    assert not silent, f"{name}: charts that do not say simulated: {silent}"
    files = downloads.of("CSV", "Parquet", "PNG", "SVG")
    assert files, name
    unmarked = [b["file_name"] for b in files if SIMULATED_FILE_MARK not in b["file_name"]]
    assert not unmarked, f"{name}: downloads whose name does not say SIMULATED: {unmarked}"
    for button in downloads.of("CSV")[:1]:
        data = button["data"]
        assert (data() if callable(data) else data).startswith(b"\xef\xbb\xbf")  # the CSV itself still builds
    if name in ("rubric", "pairwise") and chrome_path() is not None:  # one exported image per kind of page
        svg = next(b for b in downloads.of("SVG"))["data"]()
        assert b"Simulated judge" in svg or b"simulated:" in svg


def test_the_exported_png_of_a_rubric_chart_names_the_judge_and_says_simulated(tmp_path: Path) -> None:
    """The figure a PNG is made from carries the judge and "simulated" under its title (the issue's example)."""
    share = PositionShare(k=5, counts=(120, 80, 70, 70, 60), n=400, shares=(0.3, 0.2, 0.175, 0.175, 0.15),
                          ci_low=(0.26, 0.16, 0.14, 0.14, 0.12), ci_high=(0.35, 0.24, 0.21, 0.21, 0.19))
    fig = position_share_figure(share, judges=[SIM_A])
    assert "Simulated judge" in fig.layout.title.subtitle.text and SIM_A in fig.layout.title.subtitle.text
    assert simulated_in(fig) == (SIM_A,)
    if chrome_path() is None:
        pytest.skip("no chromium for kaleido")
    png = figure_image_bytes(fig, "png", scale=1)
    assert png.startswith(b"\x89PNG")
    (tmp_path / "position-share-SIMULATED.png").write_bytes(png)
    svg = figure_image_bytes(fig, "svg")
    assert b"Simulated judge, not a real model: simulated:demo-judge" in svg


def test_a_retitled_figure_keeps_its_note_and_a_real_judge_is_named() -> None:
    fig = go.Figure(go.Bar(x=[1, 2], y=[3, 4]))
    untitled = styled(fig, judges=[SIM_A])
    assert untitled.layout.title.text == f"Simulated judge, not a real model: {SIM_A}"
    retitled(untitled, "Flip rate")
    assert untitled.layout.title.text == "Flip rate" and SIM_A in untitled.layout.title.subtitle.text
    real = styled(go.Figure(go.Bar(x=[1], y=[2]), layout={"title": "Shares"}), judges=["gpt-4"])
    assert real.layout.title.subtitle.text == "Judge: gpt-4" and not simulated_in(real)
    # A judge named on an axis (forest plots, heatmaps) is found there.
    axis = styled(go.Figure(go.Scatter(x=[0.1, 0.2], y=[f"{SIM_A} (n=40)", "gpt-4 (n=40)"])))
    assert simulated_in(axis) == (SIM_A,) and "Simulated judge" in axis.layout.title.text


def test_the_words_and_names_come_from_one_place() -> None:
    assert get_provider("simulated").judge_prefix == SIMULATED_PREFIX
    assert simulated_among([f"{SIM_A} · mtbench/full (n=3)", "gpt-4", f"judge = {SIM_B}", SIM_A]) == (SIM_A, SIM_B)
    assert judge_note(["gpt-4", "claude"]) == ""
    assert judge_note(["gpt-4", SIM_A]).startswith("Simulated judge, not a real model")
    assert simulated_notice(["gpt-4"]) is None
    notice = simulated_notice([SIM_A, "gpt-4"])
    assert notice is not None and SIM_A in notice and "gpt-4" not in notice
    assert marked_file_stem("flip-rate-mtbench", [SIM_A]) == "flip-rate-mtbench-SIMULATED"
    assert marked_file_stem("flip-rate-mtbench", ["gpt-4"]) == "flip-rate-mtbench"
    frame = pd.DataFrame({"judge": ["gpt-4", SIM_A], "flip rate": [0.1, 0.2]})
    assert SIM_A in table_judges(frame)


def test_the_report_says_simulated_in_its_summary_and_its_charts(simulated_db: Path) -> None:
    html = build_report_html(Store.open(str(simulated_db)), ReportRequest(dataset_id="summeval"))
    assert "simulated judge, not a real model" in html
    assert html.count("Simulated judge, not a real model: simulated:demo-judge") >= 2  # chart notes


