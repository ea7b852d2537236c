"""One view for the rubric topic (issue 24): with a probe run chosen, the Rubric bias page (AppTest), ``metrics rubric
--json`` and the report's rubric section show the same recommendation, Bias Cost figures and interval bounds, and the
same corrected p-values of the position shares; the view's sentences open in plain words; nothing is recommended
that the view's own stability rule calls unstable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgebias_core.analyses.rubric_view import RubricView, rubric_view
from judgebias_core.cli import main
from judgebias_core.cli.rubric_commands import view_payload
from judgebias_core.plain_words import first_sentences, terms_in
from judgebias_core.report.rubric_section import rubric_section_from_views
from judgebias_core.wording.phrasing import p_value
from judgebias_core.wording.rubric_words import unmarked
from tests.app_helpers import open_page
from tests.rubric_toy_store import write_toy_store
from tests.test_topic_views_a import _page_text, _read, _section_text

DEMO_RUN = "demo-summeval-coherence-permutation"
DEMO_REPEAT = "demo-summeval-coherence-repeat"


@pytest.fixture(scope="module")
def toy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rubric-views") / "toy.duckdb"
    write_toy_store(path)
    return path


def _cli(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["--db", str(db), "metrics", "rubric", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _first_sentences(view: RubricView) -> list[str]:
    """Every sentence the view leads a block with, in the order the page shows them."""
    texts = [view.position.sentence, view.ordering_rank.sentence, view.own_cost.sentence, view.geval.sentence,
             view.geval.unavailable]
    if view.probe is not None:
        texts += [view.probe.sentence, view.probe.empty]
    return [first_sentences(unmarked(text), 2) for text in texts if text]


def test_page_cli_and_report_agree_under_a_probe(toy_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    run = ("--run-id", "toy-perm", "--repeat-run-id", "toy-repeat")
    payload = _cli(toy_db, capsys, *run, "--probe-run-id", "toy-probe", "--candidates", "latin")
    default = _cli(toy_db, capsys, *run)  # the page's own-run sentences: no probe for the run's own Bias Cost
    view = _read(toy_db, rubric_view, "toy-perm", "toy-repeat", design="latin", choice_probe_run_id="toy-probe")
    monkeypatch.setenv("JUDGEBIAS_DB", str(toy_db))
    at = open_page("rubric_bias.py", timeout=90, query={"rb_probe": "toy-probe"})
    at.selectbox(key="rb_candidates").set_value("latin").run()
    assert not at.exception
    assert at.selectbox(key="rb_probe").value == "toy-probe" and at.selectbox(key="rb_candidates").value == "latin"
    page = _page_text(at)

    # The recommendation: stable under the probe (lowest in every resample), the same words on the page and the CLI.
    choice = payload["probe_choice"]
    assert choice["recommended_ordering"] == "312" and view.probe is not None and view.probe.recommended == "312"
    assert choice["sentence"].startswith("Recommended ordering under probe toy-probe: 312")
    assert [s.value.replace("\\", "") for s in at.success] == [choice["sentence"]] == [view.probe.sentence]
    assert choice["interval"] in page

    # The Bias Cost table: the same figures and interval bounds, and each cost inside its interval or named.
    frame = next(f.value for f in at.dataframe if "minus the lowest" in f.value.columns)
    assert frame["ordering"].tolist() == [row["ordering"] for row in choice["orderings"]]
    for column, key in (("Bias Cost", "bias_cost"), ("low", "low"), ("high", "high"),
                        ("lowest in (share of resamples)", "lowest_share")):
        assert frame[column].tolist() == pytest.approx([row[key] for row in choice["orderings"]])
    for row in choice["orderings"]:
        assert row["interval_holds_cost"] == (row["low"] - 1e-12 <= row["bias_cost"] <= row["high"] + 1e-12)

    # The position shares' corrected p-values: page table, CLI and report table.
    corrected = [p["corrected_p"] for p in payload["position_tests"]["positions"]]
    assert at.dataframe[0].value["Holm p"].tolist() == pytest.approx(corrected)
    section = rubric_section_from_views([_read(toy_db, rubric_view, "toy-perm", "toy-repeat")])
    assert section is not None
    assert section.tables[1].frame["after Holm correction (3 tests)"].tolist() == [p_value(p) for p in corrected]

    # The sentences: the page, the report and the CLI say the same (the page in bold where the others are plain).
    report = _section_text(section)
    for key in ("position", "position_rule", "balance", "ordering_rank", "bias_cost", "bias_cost_interval"):
        sentence = default["sentences"][key]
        assert sentence and sentence in page.replace("**", "") and sentence in report, key
    assert default["sentences"]["bias_cost"].startswith("Under this run's own P(position | score), the lowest Bias "
                                                        "Cost among its 6 orderings is 321 (0.711)")


def test_the_view_opens_in_plain_words(app_env: Path, toy_db: Path) -> None:
    views = [_read(app_env, rubric_view, DEMO_RUN, DEMO_REPEAT, design="run"),
             _read(toy_db, rubric_view, "toy-perm", "toy-repeat", design="latin", choice_probe_run_id="toy-probe"),
             _read(toy_db, rubric_view, "toy-perm", design="all", choice_probe_run_id="toy-probe")]
    found = [f"{term} in {text!r}" for view in views for text in _first_sentences(view) for term in terms_in(text)]
    assert not found, "\n".join(found)
    assert all(len(_first_sentences(view)) >= 5 for view in views)


def test_no_recommendation_when_the_choice_is_unstable(app_env: Path) -> None:
    view = _read(app_env, rubric_view, DEMO_RUN, DEMO_REPEAT, design="run")
    costs = view.report.bias_cost
    assert costs.recommended is not None and not costs.stable  # the lowest cost is lowest in 19% of the resamples
    assert view.probe is not None and view.probe.recommended is None and view.probe.rank is None
    assert view.probe.sentence is not None and view.probe.sentence.startswith("No ordering is reliably better")
    assert "Recommended" not in view.own_cost.sentence and "so it is not recommended" in view.own_cost.sentence
    payload = view_payload(view)
    assert payload["probe_choice"]["recommended_ordering"] is None
    # The lowest cost (0.086) lies below its resampled costs: the table says so and the words name it degenerate.
    lowest = view.probe.rows[0]
    assert lowest.interval_holds_cost is False and view.probe.interval is not None
    assert "degenerate as bounds on the cost" in view.probe.interval


def test_each_position_that_stands_out_is_named_with_its_direction(app_env: Path) -> None:
    from dataclasses import replace

    from judgebias_core.wording.rubric_words import _position_sentence

    view = _read(app_env, rubric_view, DEMO_RUN)
    assert view.position.sentence.startswith("Position 1 is chosen more often than chance would explain: 25.5% of "
                                             "the 400 readable scores (95% range")
    rows = tuple(replace(row, unlikely_chance=row.position in (1, 3, 5)) for row in view.position.rows)
    sentence = _position_sentence(view.report, rows)
    assert sentence.startswith("Positions 1, 3 and 5 stand out from chance over the 400 readable scores: position 1 "
                               "more often, 25.5%")
    assert all(f"position {p} {'more' if rows[p - 1].share > 0.2 else 'less'} often" in sentence for p in (1, 3, 5))
    none = _position_sentence(view.report, tuple(replace(row, unlikely_chance=False) for row in rows))
    assert none.startswith("No position stands out from chance") and terms_in(none) == []
