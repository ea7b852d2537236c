"""AppTest of the Pairwise bias page (and, once it exists, the Factors page) on the first-launch store."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch
from tests.app_helpers import open_page
from tests.test_listwise import HAND_MADE, listwise_calls


def _box(at, label: str):
    return next(box for box in at.selectbox if box.label == label)


def test_pairwise_page_shows_known_answer_and_drill_down(app_env: Path) -> None:
    at = open_page("pairwise_bias.py")
    assert not at.exception
    _box(at, "Dataset").set_value("mtbench").run()
    _box(at, "Study (or run id)").set_value("full").run()
    assert not at.exception
    table = at.dataframe[0].value.set_index("judge")
    assert table.loc["gpt-4-0613", "consistent"] == 1957
    assert table.loc["gpt-4-0613", "classified pairs (n)"] == 2400
    assert abs(table.loc["gpt-4-0613", "PC"] - 0.8154) < 5e-5
    assert len(at.get("plotly_chart")) >= 3  # forest plot, heatmaps, scatters
    # ranking-safety note for each judge's candidate win rates
    notes = [w.value.replace("\\", "") for w in at.warning] + [s.value.replace("\\", "") for s in at.success]
    assert any("two-sided 95% interval of the judge's flip rate" in n and "one-sided 97.5%" in n for n in notes)
    # the drill-down shows both raw replies of an inconsistent pair of the chosen judge
    _box(at, "Judge").set_value("gpt-4-0613").run()
    assert not at.exception
    replies = [t.value for t in at.text if "[[" in t.value]
    assert len(replies) == 2
    assert any("Verdict" in i.value for i in at.info)


def test_pairwise_page_repetition_filter(app_env: Path) -> None:
    at = open_page("pairwise_bias.py")
    _box(at, "Dataset").set_value("devbench").run()
    _box(at, "Study (or run id)").set_value("repetition").run()
    _box(at, "Repetition").set_value(2).run()
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["rep"]) == {2} and len(table) == 9
    assert table["RS"].notna().all()


def test_pairwise_page_shows_listwise_only_study(bundled_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_batch(Store.open(bundled_db), StoreBatch(judge_calls=listwise_calls(HAND_MADE, study="lw-run")))
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    at = open_page("pairwise_bias.py")
    _box(at, "Dataset").set_value("lw").run()
    assert not at.exception
    assert _box(at, "Study (or run id)").value == "lw-run"
    assert [s.value for s in at.subheader] == ["List-wise calls"]
    table = at.dataframe[0].value.set_index("judge")
    assert (table.loc["J", "groups"], table.loc["J", "consistent"], table.loc["J", "options"]) == (7, 2, 3)


def test_factors_page_shows_steps_and_summary(app_env: Path) -> None:
    at = open_page("factors.py")
    assert not at.exception
    _box(at, "Dataset").set_value("mtbench").run()
    _box(at, "Study (or run id)").set_value("full").run()
    assert not at.exception
    steps = at.dataframe[0].value
    assert list(steps.columns) == ["step", "variable", "action", "AIC before", "AIC after"]
    assert (steps["AIC after"] < steps["AIC before"]).all()
    assert steps["variable"].tolist() == ["quality gap", "judge", "task"]
    assert any("720 (judge, candidate, task) units" in i.value for i in at.info)
    assert any("input" in w.value for w in at.warning)  # input length is fixed by the task on this study
    next(r for r in at.radio if r.label == "Target").set_value("preference_fairness").run()
    assert not at.exception
    assert at.dataframe[0].value["variable"].iloc[0] == "judge"
    assert len(at.dataframe[-1].value) == 720  # the unit table the fit used


def test_pairwise_page_corrects_its_tests_and_compares_two_judges(app_env: Path) -> None:
    at = open_page("pairwise_bias.py")
    _box(at, "Dataset").set_value("mtbench").run()
    _box(at, "Study (or run id)").set_value("full").run()
    table = at.dataframe[0].value.set_index("judge")
    assert {"binomial p", "McNemar p"}.isdisjoint(table.columns)  # the iid tests are not shown
    gpt4 = table.loc["gpt-4-0613"]
    assert abs(gpt4["position p"] - 0.283) < 5e-4 and abs(gpt4["position p corrected"] - 0.283) < 5e-4
    assert gpt4["interval method"] == "studentized-item-bootstrap" and abs(gpt4["flip high"] - 0.2098) < 5e-4
    assert gpt4["PF raw"] == gpt4["PF scaled (Shi et al.)"] and gpt4["units left out"] == 0
    captions = " ".join(c.value for c in at.caption)
    assert "Holm correction over 3 tests shown together" in captions
    markdown = " ".join(m.value for m in at.markdown)
    assert "shows no clear lean to either slot" in markdown  # the clustered test, not the binomial p = 0.029
    _box(at, "Correct the tests shown with").set_value("Benjamini-Hochberg (false discovery rate)").run()
    assert not at.exception
    assert "Benjamini-Hochberg correction over 3 tests" in " ".join(c.value for c in at.caption)
    # Win rates carry their item-clustered interval.
    wins = next(d.value for d in at.dataframe if "win low" in d.value.columns)
    assert (wins["win low"] <= wins["overall win rate"]).all() and (wins["overall win rate"] <= wins["win high"]).all()
    # Compare two judges on the pairs both classified.
    _box(at, "First judge").set_value("gpt-4-0613").run()
    _box(at, "Second judge").set_value("gemini-pro").run()
    assert not at.exception
    # Plain words first (issue 24); the method's sentence, with its interval method, sits in the fold.
    sentence = next(s.value for s in at.success if "pairs both judged" in s.value).replace("\\", "")
    assert "2,387 pairs both judged (80 questions)" in sentence and "cluster-robust" not in sentence
    fold = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "2,387 pairs both classified (80 items)" in fold and "cluster-robust-t" in fold


def test_pairwise_page_shows_the_excess_over_the_floor_with_its_interval(app_env: Path) -> None:
    at = open_page("pairwise_bias.py")
    _box(at, "Dataset").set_value("mtbench").run()
    _box(at, "Study (or run id)").set_value("repetition").run()
    _box(at, "Repetition").set_value(1).run()
    table = at.dataframe[0].value.set_index("judge")
    row = table.loc["gpt-4-0613"]
    assert row["excess low"] < row["flip rate - floor"] < row["excess high"]
    assert row["excess p corrected"] <= 1
    # gpt-3.5-turbo-0125's third repetition has a unit whose every pair failed: left out of PF, counted.
    _box(at, "Repetition").set_value(3).run()
    third = at.dataframe[0].value.set_index("judge").loc["gpt-3.5-turbo-0125"]
    assert third["units left out"] == 1 and abs(third["PF raw"] - 0.0753) < 5e-5


def test_pairwise_page_opens_on_every_judge_of_the_dataset_with_its_study(app_env: Path) -> None:
    """Issue 22: MTBench's 9 repetition-study judges are not hidden behind the full study's 3, and a judge measured
    in both studies says on which items."""
    at = open_page("pairwise_bias.py", query={"pw_dataset": "mtbench"})
    assert not at.exception
    assert _box(at, "Study (or run id)").value == "all studies"
    table = at.dataframe[0].value
    assert set(table["study"]) == {"full", "repetition"} and table["judge"].nunique() == 9
    assert len(table) == 3 + 9 * 3  # full's 3 judges, and each repetition of the repetition study's 9
    gpt4 = table[table["judge"] == "gpt-4-0613"]
    assert set(gpt4["items by study"]) == {"full: 80 items; repetition: 24 of the 80 items"}
    assert set(table[table["judge"] == "claude-3-opus-20240229"]["items by study"]) == {""}
    markdown = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "gpt-4-0613 · study repetition (items differ by study: full: 80 items; repetition: 24 of the 80 items)" \
        in markdown
    assert "gpt-4-0613 [full] flips about 1 pair in 5" in markdown and "(18.5%)" in markdown
    assert "gpt-4-0613 [repetition] flips" in markdown and "(11.5%)" in markdown
    assert sum("· study " in m.value for m in at.markdown) == 12  # one verdict per (judge, study)
    assert any("Below: study `full` only" in i.value for i in at.info)
