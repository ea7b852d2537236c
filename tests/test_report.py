"""The HTML report: known answers on the bundled data, filters, escaping of hostile text, rubric and CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgebias_core.cli import main
from judgebias_core.errors import NotFoundError
from judgebias_core.report import Report, ReportRequest, build_report, render_html
from judgebias_core.store.handle import Store
from judgebias_core.wording.phrasing import in_words
from tests.hostile_store import DATASET_ID, HOSTILE_STRINGS, JUDGE, build_hostile_store
from tests.rubric_toy_store import write_toy_store


def _report(path: Path, request: ReportRequest) -> Report:
    with Store(path).reader() as reader:
        return build_report(reader, request)


@pytest.fixture(scope="module")
def mtbench_report(bundled_db_master: Path) -> Report:
    return _report(bundled_db_master, ReportRequest("mtbench"))


@pytest.fixture(scope="module")
def mtbench_html(mtbench_report: Report) -> str:
    return render_html(mtbench_report)


@pytest.fixture
def hostile_db(fresh_db: Path) -> Path:
    return build_hostile_store(fresh_db)


def _section(report: Report, key: str):
    return next(section for section in report.sections if section.key == key)


def test_mtbench_summary_matches_the_published_counts(mtbench_report: Report) -> None:
    pairwise = _section(mtbench_report, "pairwise")
    # The lean is read from the item-clustered position test corrected over every test of the section (the
    # binomial test on the pairs, p = 0.029, used to call gpt-4-0613's lean to the second slot).
    assert ("When the two answers swap places, gpt-4-0613 changes its verdict on about 1 pair in 5 "
            "(18.5% of 2,400 pairs, 95% interval 16.2% to 21.0%); those changes do not clearly favour either place.") \
        in pairwise.headline
    assert pairwise.headline[-1].startswith("What to do: use gpt-4-0613 only with both orders judged")
    assert any("almost all of those changes favour the answer shown second" in h and "gemini-pro" in h
               for h in pairwise.headline)
    assert any("Holm correction over 57 tests" in note for note in pairwise.notes)
    table = pairwise.tables[0].frame
    row = table[(table["study"] == "full") & (table["judge"] == "gpt-4-0613")].iloc[0]
    assert (row["consistent"], row["classified (n)"], row["flip rate"]) == ("1,957", "2,400", "18.5%")
    assert row["95% Wilson (pairs assumed independent)"] == "17.0%–20.1%"
    assert row["95% item-clustered (decides)"] == "16.2%–21.0% (studentized-item-bootstrap) over 80 items"
    assert [s.key for s in mtbench_report.sections] == ["pairwise", "scorecard", "factors", "agreement",
                                                        "leaderboard", "other-biases"]
    assert mtbench_report.skipped == () and mtbench_report.simulated_judges == ()
    assert "calibration" not in {s.key for s in mtbench_report.sections}  # MTBench has no labels here


def test_other_sections_speak_with_their_counts(mtbench_report: Report) -> None:
    factors = _section(mtbench_report, "factors")
    # "In short" speaks plainly: no AIC, no R² (those are in the section's sentences and the verdict's fold).
    assert factors.headline[0] == ("Across 720 (judge, candidate, task) units, position consistency varies most with "
                                   "quality gap, then judge, task; the kept factors explain 52% of its variation.")
    assert any("removing it raises AIC by 246.37" in s for s in factors.sentences)
    leaderboard = _section(mtbench_report, "leaderboard")
    assert leaderboard.headline[0].startswith("By the verdicts of gpt-4-0613, gpt-4 ranks first (win rate against "
                                              "the baseline vicuna-13b-v1.3 90.6% over 80 pairs)")
    verbosity = _section(mtbench_report, "other-biases")
    assert any(s.startswith("When one answer is longer, gpt-4-0613 picks the longer one in 63.2% of 1,736 decisive "
                            "pairs of unequal length (95% studentized-item-bootstrap interval") for s in verbosity.sentences)
    assert not any("beyond chance" in sentence for sentence in verbosity.sentences)


def test_provenance_names_runs_templates_and_version(mtbench_report: Report) -> None:
    provenance = mtbench_report.provenance
    assert set(provenance.runs["run_id"]) == {"bundled:mtbench:full", "bundled:mtbench:repetition"}
    assert provenance.runs["calls"].sum() == 19_584
    assert provenance.templates["template_id"].isna().all()  # recorded data: the authors' prompts are not stored
    assert provenance.judges.set_index("judge").loc["gpt-4-0613", "calls"] == 5_376
    assert provenance.version


def test_html_is_self_contained(mtbench_report: Report, mtbench_html: str) -> None:
    assert mtbench_html.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in mtbench_html and "default-src 'none'" in mtbench_html
    assert not re.search(r"<script[^>]+src=", mtbench_html)
    assert not re.search(r"<link[^>]+href=", mtbench_html)
    assert mtbench_html.count("Plotly.newPlot(") == sum(len(s.figures) for s in mtbench_report.sections)
    assert "How this was measured" in mtbench_html and "Wilson" in mtbench_html
    assert "443 of 2,400 pairs" in mtbench_html


def test_judge_and_run_filters(bundled_db_master: Path) -> None:
    report = _report(bundled_db_master, ReportRequest("mtbench", judges=("gpt-4-0613",),
                                                           runs=("bundled:mtbench:repetition",)))
    table = _section(report, "pairwise").tables[0].frame
    assert set(table["judge"]) == {"gpt-4-0613"} and set(table["study"]) == {"repetition"}
    assert len(table) == 3  # three repetitions
    assert list(report.provenance.runs["run_id"]) == ["bundled:mtbench:repetition"]
    assert "agreement" not in {s.key for s in report.sections}  # one judge: nothing to compare


@pytest.mark.parametrize("request_", [ReportRequest("no-such-dataset"), ReportRequest("mtbench", judges=("nobody",)),
                                      ReportRequest("mtbench", runs=("bundled:devbench:full",))])
def test_unknown_scope_is_a_named_error(bundled_db_master: Path, request_: ReportRequest) -> None:
    with pytest.raises(NotFoundError):
        _report(bundled_db_master, request_)


def test_autoj_calibration_is_against_people(bundled_db_master: Path) -> None:
    report = _report(bundled_db_master, ReportRequest("autoj"))
    calibration = _section(report, "calibration")
    assert calibration.headline[0].startswith("auto-j-13b, over both orders, agrees with people's labels: moderate "
                                              "agreement beyond chance (a score of 0.42 on 1,392 pairs")
    assert calibration.sentences[0].startswith("Against people's labels on 1,392 pairs, the verdict of auto-j-13b")
    assert "leaderboard" not in {s.key for s in report.sections}  # response_1 vs response_2 is no ranking
    ppi = next(s for s in calibration.sentences if s.startswith("What the verdicts of auto-j-13b are worth"))
    assert "139 random items of 1,392" in ppi and "prediction-powered estimate (PPI++" in ppi
    assert any("corrected with a sample of people's labels" in (f.layout.title.text or "") for f in calibration.figures)


def test_hostile_text_is_escaped_everywhere(hostile_db: Path) -> None:
    report = _report(hostile_db, ReportRequest(DATASET_ID))
    table = _section(report, "pairwise").tables[0].frame.iloc[0]
    assert (table["judge"], table["classified (n)"], table["with a parse failure"]) == (JUDGE, "6", "1")
    body = render_html(report).split("</head>", 1)[1]
    for hostile in HOSTILE_STRINGS:
        assert hostile not in body
    assert "&lt;script&gt;alert(&#x27;xss-script&#x27;)&lt;/script&gt;" in body  # tables and sentences
    assert "&lt;script&gt;alert('xss-script')&lt;\\u002fscript&gt;" in body  # chart data, made literal for plotly
    assert "&amp;lt;script&amp;gt;" not in body  # escaped once, not twice
    assert "other-biases" not in {s.key for s in report.sections}  # every answer has the same length
    scripts = re.findall(r"<script[^>]*>", body)
    assert len(scripts) == sum(len(s.figures) for s in report.sections)  # one per chart, none from the data


def test_a_section_that_cannot_be_computed_is_named_not_fatal(hostile_db: Path) -> None:
    report = _report(hostile_db, ReportRequest(DATASET_ID))
    assert report.skipped == ("What drives the bias: could not be computed (only 1 unit(s) with a classified pair: "
                              "too few to fit a regression).",)
    assert [s.key for s in report.sections] == ["pairwise", "scorecard"]


def test_rubric_section_on_the_hand_made_store(fresh_db: Path) -> None:
    write_toy_store(fresh_db)
    report = _report(fresh_db, ReportRequest("toy-rubric", runs=("toy-perm", "toy-repeat")))
    rubric = _section(report, "rubric")
    assert rubric.headline == ("toy-judge (a simulated judge) chose the option at place 1 in 69.4% of 23 readable "
                               "scores, where a judge blind to the order would choose each place 33.3% of the time. "
                               "Changing only the order moves one item's score by 0.41 points on average.",)
    # The page's words (analyses.rubric_view): plain first, then the rule.
    assert ("No position stands out from chance: the shares of the 23 readable scores run from 12.5% to 69.4%"
            in rubric.sentences[0])
    assert "Holm correction over the 3 positions shown" in rubric.sentences[0]
    # One failed reply unbalanced the parsed trials: the shares are exposure-weighted (69.4%, not the raw 16 of 23),
    # and the report says so.
    assert "In run toy-perm: Parse failures unbalanced this run" in rubric.sentences[0]
    assert "population standard deviation (ddof = 0) over 5 to 6 calls per item" in rubric.sentences[0]
    assert ("the lowest Bias Cost among its 6 orderings is 321 (0.711), which ranks 5 of 6 by correlation with the "
            "labels. It is the lowest in 54% of the resamples, so it is the one recommended") in rubric.sentences[0]
    assert "The canonical ordering 123 ranks 1 of 6" in rubric.sentences[0]
    positions = rubric.tables[1].frame  # the page's position table, formatted
    assert positions["share"].tolist() == ["69.4%", "18.1%", "12.5%"]
    assert positions["after Holm correction (3 tests)"].tolist() == ["p = 0.304", "p = 0.304", "p = 0.249"]
    assert "asking the canonical order again and again gives r = 0.96" in rubric.sentences[0]
    assert rubric.tables[0].frame.iloc[0]["repeat run"] == "toy-repeat"


def test_cli_writes_the_report(hostile_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nested" / "report.html"
    assert main(["--db", str(hostile_db), "report", "--dataset", DATASET_ID, "--judge", JUDGE, "--out", str(out),
                 "--json"]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert '"sections": [\n    "pairwise"' in capsys.readouterr().out
    assert main(["--db", str(hostile_db), "report", "--dataset", "nope", "--out", str(out)]) == 2


@pytest.mark.parametrize(("rate", "words"), [(0.1846, "about 1 pair in 5"), (0.4265, "about 4 pairs in 10"),
                                             (0.5, "about 1 pair in 2"), (0.0, "no pair"),
                                             (0.004, "fewer than 1 pair in 100"), (0.97, "almost every pair")])
def test_rates_in_words(rate: float, words: str) -> None:
    assert in_words(rate, "pair") == words


@given(st.floats(min_value=0.0, max_value=1.0))
def test_words_stay_close_to_the_rate(rate: float) -> None:
    words = in_words(rate, "pair")
    if match := re.fullmatch(r"about 1 pair in (\d+)", words):
        assert abs(1 / int(match.group(1)) - rate) <= 0.15 * rate
    elif match := re.fullmatch(r"about (\d+) pairs in 10", words):
        assert abs(int(match.group(1)) / 10 - rate) <= 0.05 + 1e-9
