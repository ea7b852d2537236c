"""AppTest of the New run and Runs pages on the first-launch store (demo runs included)."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pytest

from judgebias_core.engine import read_progress, start_run
from judgebias_core.engine.journal import run_file
from judgebias_core.protocols.spec import RunSettings, RunSpec, SimulatedParams
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import list_runs
from tests.app_helpers import open_page
from tests.upload_helpers import rows


def _select(at: object, label: str, value: object) -> None:
    next(box for box in at.selectbox if box.label == label).set_value(value).run()  # type: ignore[attr-defined]


def test_new_run_shows_the_plan_before_launch(app_env: Path) -> None:
    at = open_page("new_run.py")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Judge calls"] == "600"  # 10 MTBench items x 30 candidates x 2 orders
    assert any("Simulated judge" in w.value for w in at.warning)
    _select(at, "Dataset", "summeval")
    assert not at.exception
    next(n for n in at.number_input if n.label.startswith("First N items")).set_value(4).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Judge calls"] == "40"  # 4 summaries x the balanced set of 10 orderings
    assert any("Score 1:" in t.value for t in at.text)


def test_new_run_names_the_missing_key(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = open_page("new_run.py")
    _select(at, "Judge provider", "openai")
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Cost (estimate)"].startswith("$")
    # Before Launch: the message names the variable and the button waits for it.
    error = next(e.value for e in at.error if "OPENAI_API_KEY" in e.value)
    assert "needs no key: give its base URL" in error  # a local OpenAI-compatible server gets none of the stored keys
    launch = next(b for b in at.button if b.label == "Launch run")
    assert launch.disabled
    assert "active_runs" not in at.session_state
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    at.run()
    assert not next(b for b in at.button if b.label == "Launch run").disabled
    assert not any("OPENAI_API_KEY" in e.value for e in at.error)


def test_new_run_plans_one_run_per_judge(app_env: Path) -> None:
    at = open_page("new_run.py")
    _select(at, "Judge provider", "replay")
    next(m for m in at.multiselect if m.label == "Recorded judge(s)").set_value(["gpt-4-0613", "gemini-pro"]).run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Judge calls"] == "1,200"
    plans = at.dataframe[0].value
    assert len(plans) == 2 and set(plans["calls"]) == {600}
    assert any(b.label == "Launch 2 runs" for b in at.button)


def test_launch_runs_in_the_background_and_lands_in_the_store(bundled_db: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    at = open_page("new_run.py")
    _select(at, "Dataset", "summeval")
    next(n for n in at.number_input if n.label.startswith("First N items")).set_value(2).run()
    next(b for b in at.button if b.label == "Launch run").click().run()
    assert not at.exception
    (run_id,) = at.session_state["active_runs"]
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        progress = read_progress(Store(bundled_db), run_id)
        if progress is not None and progress.status != "running":
            break
        time.sleep(0.5)
    assert progress is not None and progress.status == "complete" and progress.completed == 20
    row = Store(bundled_db).read(list_runs).set_index("run_id").loc[run_id]
    assert (row["completed"], row["simulated"], row["status"]) == (20, True, "complete")
    at.run()  # the finished run links to its analysis
    assert (f"Open `{run_id}` in Rubric bias", f"rb_dataset=summeval&rb_run={run_id}") in [
        (label, query) for page, label, query in _links(at) if page == "rubric_bias"]


def test_runs_page_lists_runs_and_opens_the_demo(app_env: Path) -> None:
    at = open_page("runs.py")
    assert not at.exception
    frame = at.dataframe[0].value
    assert {"demo-summeval-coherence-permutation", "demo-summeval-coherence-repeat",
            "bundled:mtbench:full"} <= set(frame["run_id"])
    demo = frame.set_index("run_id").loc["demo-summeval-coherence-permutation"]
    assert (demo["planned"], demo["completed"], demo["simulated"]) == (400, 400, "simulated")
    _select(at, "Open run", "demo-summeval-coherence-permutation")
    assert not at.exception
    assert any("Simulated judge" in w.value for w in at.warning)
    params = next(j.value for j in at.json)
    assert '"position_prob": 0.3' in params and '"max_tokens": 1024' in params
    assert {m.label: m.value for m in at.metric}["With a reply"] == "400"


def _links(at: object) -> list[tuple[str, str, str]]:
    return [(link.proto.page, link.proto.label, link.proto.query_string)  # type: ignore[attr-defined]
            for link in at.get("page_link")]  # type: ignore[attr-defined]


def test_runs_page_links_each_run_to_its_analysis(app_env: Path) -> None:
    at = open_page("runs.py")
    _select(at, "Open run", "demo-summeval-coherence-permutation")
    assert _links(at) == [("rubric_bias", "Open `demo-summeval-coherence-permutation` in Rubric bias",
                           "rb_dataset=summeval&rb_run=demo-summeval-coherence-permutation")]
    _select(at, "Open run", "bundled:devbench:repetition")
    assert _links(at) == [("pairwise_bias", "Open `bundled:devbench:repetition` in Pairwise bias",
                           "pw_dataset=devbench&pw_study=repetition")]


def test_the_link_opens_the_run_in_its_analysis_page(app_env: Path) -> None:
    at = open_page("rubric_bias.py", query={"rb_dataset": "summeval", "rb_run": "demo-summeval-coherence-repeat"})
    assert not at.exception
    assert at.selectbox(key="rb_run").value == "demo-summeval-coherence-repeat"


def test_new_run_plan_for_free_judges_hides_tokens_and_time(app_env: Path) -> None:
    at = open_page("new_run.py")  # the simulated judge by default
    swap_plan = {"Expected interval width", "Width met with 80% assurance", "Items for a target width",
                 "Cost for that many items (estimate)"}
    labels = {m.label for m in at.metric}
    assert labels - swap_plan == {"Judge calls", "Cost"}
    _select(at, "Judge provider", "replay")
    assert {m.label for m in at.metric} - swap_plan == {"Judge calls", "Cost"}


def test_new_run_preselects_the_dataset_from_the_link(app_env: Path) -> None:
    at = open_page("new_run.py", query={"nr_dataset": "summeval"})
    assert next(box for box in at.selectbox if box.label == "Dataset").value == "summeval"


def test_every_listed_run_links_to_its_analysis(app_env: Path) -> None:
    at = open_page("runs.py")
    assert not at.exception
    table = next(f.value for f in at.dataframe if "run_id" in f.value.columns)
    links = dict(zip(table["run_id"], table["analysis"], strict=True))
    assert links["bundled:mtbench:full"] == "pairwise_bias?pw_dataset=mtbench&pw_study=full"
    assert links["demo-summeval-coherence-permutation"] == (
        "rubric_bias?rb_dataset=summeval&rb_run=demo-summeval-coherence-permutation")
    assert table.columns[1] == "analysis"  # beside the run id, before the table scrolls sideways


def test_a_run_short_of_its_plan_reads_incomplete_and_resume_stores_it(bundled_db: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: a run marked complete whose store lost a batch is shown incomplete with Resume, which replays the
    journal; a run's cost counts requests a kill cut off, as an estimate."""
    spec = RunSpec(dataset_id="summeval", protocol="rubric-permutation", provider="simulated", model="short-judge",
                   limit_items=2, simulated=SimulatedParams(seed=5), seed=5)
    start_run(Store.open(bundled_db), spec, RunSettings(), run_id="short-run")
    with duckdb.connect(str(bundled_db)) as con:
        con.execute("DELETE FROM judge_calls WHERE run_id = 'short-run' AND call_id IN (SELECT call_id FROM "
                    "judge_calls WHERE run_id = 'short-run' ORDER BY call_id LIMIT 3)")
        con.execute("INSERT INTO unanswered_sends (run_id, call_id, sent_at, cost_usd_estimate) "
                    "VALUES ('short-run', 'c', 1.0, 0.25)")
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    at = open_page("runs.py")
    _select(at, "Open run", "short-run")
    assert not at.exception
    row = at.dataframe[0].value.set_index("run_id").loc["short-run"]
    assert (row["summary"], row["completed"], row["cost"]) == ("incomplete, 3 of 20 not stored", 17, "$0.2500")
    assert any("**Status:** incomplete, 3 of 20 not stored" in m.value for m in at.markdown)
    assert any("fewer of its calls than planned" in w.value for w in at.warning)
    assert {m.label: m.value for m in at.metric}["Cost"] == "$0.2500"
    next(b for b in at.button if b.label == "Resume run").click().run()
    assert not at.exception and "launch_error" not in at.session_state
    log = run_file(Store(bundled_db), "short-run", ".log")
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and "run short-run:" not in log.read_text(encoding="utf-8"):
        time.sleep(0.5)  # the resume runs in its own process, which says how it ended last
    assert "run short-run: complete" in log.read_text(encoding="utf-8")
    row = Store(bundled_db).read(list_runs).set_index("run_id").loc["short-run"]
    assert (row["completed"], row["failed"], row["status"]) == (20, 0, "complete")
    assert rows(bundled_db, "SELECT count(*), count(DISTINCT call_id) FROM judge_calls WHERE run_id = ?",
                ["short-run"]) == [(20, 20)]
    at.run()
    assert not any(b.label == "Resume run" for b in at.button)
