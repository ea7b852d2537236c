"""One view per topic (issue 24) for the judge-assisted estimates (Calibration page, ``metrics ppi``) and two judges
compared on the swap test (Pairwise bias page, ``metrics pairwise-compare``): the page (AppTest) and the CLI's
``--json`` show the same figures, interval bounds and sentences; the plain lines hold no method name; a simulated
judge is named so in the first sentence; every point estimate lies inside its interval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from judgebias_core.analyses.pairwise_compare_view import pairwise_compare_view_of
from judgebias_core.metrics.pairwise_compare import compare_from_shared
from judgebias_core.plain_words import first_sentences, terms_in
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page
from tests.test_metrics_agreement import run_cli

SIMULATED = "simulated:demo-judge"
SUMMEVAL_RUN = "demo-summeval-coherence-permutation"


def _box(at: AppTest, label: str) -> Any:
    return next(box for box in at.selectbox if box.label == label)


def _unescaped(values: list[str]) -> str:
    return " ".join(values).replace("\\", "")


def _plain(payload: dict[str, Any]) -> None:
    """The plain lines hold no listed term, and the first sentences of the whole reading neither."""
    lines = [line["text"] for line in payload["verdict"]["lines"]]
    assert payload["plain_sentence"] == " ".join(lines)
    for text in [*lines, first_sentences(payload["plain_sentence"])]:
        assert not terms_in(text), (terms_in(text), text)


def _estimates_inside(estimate: dict[str, Any]) -> None:
    for name in ("ppi", "human_only", "judge_only"):
        row = estimate[name]
        assert row["low"] <= row["estimate"] <= row["high"], name


def _ppi_table(at: AppTest, value: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "what it is" in d.value.columns and value in d.value.columns)


def _same_ppi(at: AppTest, payload: dict[str, Any], value: str) -> None:
    assert not at.exception
    assert payload["plain_sentence"] in _unescaped([i.value for i in at.info])
    table = _ppi_table(at, value)
    for row, name in enumerate(("ppi", "human_only", "judge_only")):
        shown = payload["estimate"][name]
        assert (table[value][row], table["95% low"][row], table["95% high"][row], table["items (n)"][row]) == (
            shown["estimate"], shown["low"], shown["high"], shown["n"])
    fold = _unescaped([c.value for c in at.caption])
    for line in payload["verdict"]["lines"]:
        assert line["rule"].replace("\\", "") in fold
    _plain(payload)
    _estimates_inside(payload["estimate"])


def test_calibration_win_rate_block_and_cli_read_one_view(app_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at = open_page("calibration.py")
    _box(at, "Dataset").set_value("autoj").run()
    judge, study = _box(at, "Judge").value, _box(at, "Study (or run id)").value
    candidate = _box(at, "Candidate").value
    payload = run_cli(capsys, app_env, "metrics", "ppi", "--dataset", "autoj", "--judge", judge, "--study", study,
                      "--candidate", candidate, "--label-fraction", "0.1", "--seed", "0")
    _same_ppi(at, payload, "win rate")
    assert payload["labelled"] + payload["unlabelled"] == payload["items"]
    assert f"{payload['labelled']:,} of them" in payload["plain_sentence"]
    assert not payload["simulated"] and payload["simulated_note"] is None
    # The report's calibration section reads the same view (its default share and seed, as the page opens on).
    from judgebias_core.analyses.calibration_view import calibration_view
    from judgebias_core.report.judges_section import calibration_section_from_views

    with Store(app_env).reader() as reader:
        section = calibration_section_from_views(reader, [calibration_view(reader, "autoj", judge, study)])
    assert section is not None and payload["plain_sentence"] in section.sentences


def test_calibration_mean_score_block_and_cli_read_one_view_and_say_simulated(
        app_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at = open_page("calibration.py")
    _box(at, "Dataset").set_value("summeval").run()
    assert _box(at, "Judge").value == SIMULATED and _box(at, "Study (or run id)").value == SUMMEVAL_RUN
    payload = run_cli(capsys, app_env, "metrics", "ppi", "--dataset", "summeval", "--judge", SIMULATED, "--study",
                      SUMMEVAL_RUN, "--label-fraction", "0.25", "--seed", "0")
    _same_ppi(at, payload, "mean score")
    assert payload["simulated"] and "simulated" in first_sentences(payload["plain_sentence"], 1)
    assert payload["simulated_note"] in _unescaped([w.value for w in at.warning])
    # 10 labelled items: the advice says to label more before relying on the figure.
    assert payload["labelled"] == 10 and "Label at least 30 items" in payload["verdict"]["lines"][2]["text"]


def test_pairwise_compare_block_and_cli_read_one_view(app_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at = open_page("pairwise_bias.py")
    _box(at, "Dataset").set_value("mtbench").run()
    _box(at, "Study (or run id)").set_value("full").run()
    _box(at, "First judge").set_value("gpt-4-0613").run()
    _box(at, "Second judge").set_value("gemini-pro").run()
    assert not at.exception
    payload = run_cli(capsys, app_env, "metrics", "pairwise-compare", "--dataset", "mtbench", "--judge-a",
                      "gpt-4-0613", "--judge-b", "gemini-pro")
    assert payload["plain_sentence"] in _unescaped([s.value for s in at.success])
    assert payload["flips_less"] == "gpt-4-0613" and payload["low"] <= payload["difference"] <= payload["high"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Difference (first minus second)"] == f"{payload['difference'] * 100:+.1f} points"
    assert f"95%: {payload['low'] * 100:+.1f} to {payload['high'] * 100:+.1f} points" in _unescaped(
        [c.value for c in at.caption])
    assert f"{payload['shared_pairs']:,} pairs both judged ({payload['items']:,} questions)" in payload["plain_sentence"]
    fold = _unescaped([c.value for c in at.caption])
    assert all(note.replace("\\", "") in fold for note in payload["method_notes"])
    _plain(payload)


def _shared(flips_a: list[int], flips_b: list[int], pairs: int = 10) -> pd.DataFrame:
    return pd.DataFrame({"item_id": [f"q{i}" for i in range(len(flips_a))], "shared": pairs, "flips_a": flips_a,
                         "flips_b": flips_b})


@pytest.mark.parametrize(("flips_a", "flips_b", "steadier"), [
    ([1, 0, 2, 1, 0, 1] * 6, [5, 6, 4, 5, 6, 5] * 6, "a"),  # a clearly steadier
    ([3, 2, 4, 3, 2, 3] * 6, [2, 4, 3, 3, 3, 2] * 6, None),  # too close to tell apart
    ([1, 2], [3, 4], None),  # two questions: a first look at most
])
def test_compare_sentences_are_plain_and_name_a_simulated_judge(flips_a: list[int], flips_b: list[int],
                                                                 steadier: str | None) -> None:
    view = pairwise_compare_view_of(compare_from_shared(_shared(flips_a, flips_b), "d", "s", SIMULATED, "gpt-4"))
    assert view.flips_less == (SIMULATED if steadier == "a" else None)
    first = first_sentences(view.sentence, 1)
    assert "simulated judge" in first and not terms_in(view.sentence), view.sentence
    assert view.simulated_judges == (SIMULATED,) and view.simulated_note
    c = view.comparison
    assert c.degenerate or c.low <= c.difference <= c.high


def test_judges_without_shared_pairs_get_plain_advice() -> None:
    empty = pd.DataFrame(columns=["item_id", "shared", "flips_a", "flips_b"])
    view = pairwise_compare_view_of(compare_from_shared(empty, "d", "s", "a", "b"))
    assert view.flips_less is None and "cannot be compared" in view.sentence and not terms_in(view.sentence)
    assert "same study" in view.verdict.lines[2].text
