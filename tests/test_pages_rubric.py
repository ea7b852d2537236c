"""AppTest of the Rubric bias page: on the first-launch store (simulated demo runs) and on the hand-made toy runs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from judgebias_core.cli import main
from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch
from tests.app_helpers import open_page
from tests.rubric_toy_store import permutation_calls, write_toy_store

PAGE = "rubric_bias.py"
SECTIONS = ["Position selection distribution", "Score by position: P(position | score)", "Permutation vs Repeat",
            "Per-ordering correlation ranks", "Bias Cost: probe, then choose", "G-Eval expected score"]
NO_PUBLIC_DATA = "No public data set of real rubric permutation trials exists"


def open_rubric_page() -> AppTest:
    at = open_page(PAGE, timeout=90)
    assert not at.exception
    return at


@pytest.fixture(scope="module")
def toy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rubric-page") / "toy.duckdb"
    write_toy_store(path)
    return path


def test_demo_runs_show_every_chart(app_env: Path) -> None:
    at = open_rubric_page()
    assert any(NO_PUBLIC_DATA in info.value for info in at.info)
    assert [s.value for s in at.subheader] == SECTIONS
    # shares, heatmap, permutation vs repeat, ordering ranks, bias cost, G-Eval position pull
    assert len(at.get("plotly_chart")) == 6
    assert at.selectbox(key="rb_run").value == "demo-summeval-coherence-permutation"
    assert at.selectbox(key="rb_repeat").value == "demo-summeval-coherence-repeat"
    assert any("Simulated judge" in w.value for w in at.warning)
    assert not any("not balanced" in w.value for w in at.warning)
    labels = {m.label for m in at.metric}
    assert {"Permutation Pearson r", "Repeat Pearson r", "Difference Pearson r"} <= labels
    assert {"Expected score Pearson r", "Parsed score Pearson r", "Expected minus parsed"} <= labels
    # The lowest cost (51234) is lowest in only 19% of the resamples: by its own rule (at least 50%) nothing is
    # recommended, and the page says so instead of a green recommendation.
    assert not at.success
    assert any("No ordering is reliably better under probe" in w.value and "lowest in only 19% of the" in w.value
               for w in at.warning)
    # Its interval and stability are shown; the percentile interval misses the measured cost and is named so.
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any("Stability: it is the lowest in 19% of the resamples" in c for c in captions)
    assert any("all above the measured 0.086" in c and "degenerate as bounds on the cost" in c for c in captions)
    assert any("Holm correction over the 5 positions" in c.value for c in at.caption)
    assert any("population standard deviation (ddof = 0) over 10 calls per item" in m.value for m in at.markdown)
    assert any("simulated from its stated behaviour" in c.value for c in at.caption)
    links = [link.proto.page for link in at.get("page_link")]
    assert links == ["new_run"] * 2


def test_toy_runs_known_answers(toy_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(toy_db))
    at = open_rubric_page()
    assert at.selectbox(key="rb_run").value == "toy-perm"  # permutation runs first
    assert at.selectbox(key="rb_repeat").value == "toy-repeat"
    shares = at.dataframe[0].value
    assert shares["choices"].tolist() == [16, 4, 3] and (shares["parsed trials (n)"] == 23).all()
    assert any("24 trials on 4 items, 23 parsed, 1 parse failures" in c.value for c in at.caption)
    assert any("Parse failures unbalanced this run" in w.value and "exposure-weighted" in w.value for w in at.warning)
    assert any("No G-Eval expected score" in i.value for i in at.info)
    assert any("ranks **1 of 6**" in c.value for c in at.caption)  # the canonical ordering's correlation rank
    # Under the run's own P, (3,2,1) costs 32/45, the lowest of its orderings, and ranks 5 of 6 by correlation.
    assert any("is **321** (0.711), which ranks **5 of 6**" in m.value for m in at.markdown)
    at.multiselect(key="rb_compare").set_value(["toy-probe"]).run()
    assert not at.exception and len(at.get("plotly_chart")) == 6  # the side-by-side grid is added
    at.selectbox(key="rb_probe").set_value("toy-probe").run()
    at.selectbox(key="rb_candidates").set_value("run").run()
    assert not at.exception
    # Under the probe (3,1,2) and (3,2,1) tie for the lowest cost: no ordering is recommended by tie-break.
    assert not at.success
    assert any("No ordering is recommended under probe" in w.value and "share the lowest" in w.value
               for w in at.warning)


def test_other_judges_side_by_side(toy_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "two-judges.duckdb"
    path.write_bytes(toy_db.read_bytes())
    calls = pd.DataFrame(permutation_calls())
    calls = calls.assign(call_id="other:" + calls["call_id"], run_id="toy-perm-other", study="toy-perm-other",
                         judge="other-judge")
    write_batch(Store.open(path), StoreBatch(
        runs=pd.DataFrame([{"run_id": "toy-perm-other", "dataset_id": "toy-rubric", "study": "toy-perm-other",
                            "origin": "upload", "protocol": "rubric-permutation", "provider": "upload",
                            "judge": "other-judge", "rubric_id": "toy-k3", "status": "complete",
                            "created_at": pd.Timestamp("2025-12-31")}]),
        judge_calls=calls))
    monkeypatch.setenv("JUDGEBIAS_DB", str(path))
    at = open_rubric_page()
    assert at.selectbox(key="rb_run").value == "toy-perm"
    assert at.multiselect(key="rb_compare").value == ["toy-perm-other"]  # the other judge, shown by default
    assert len(at.get("plotly_chart")) == 6
    at.selectbox(key="rb_judge").set_value("other-judge").run()
    assert not at.exception and at.selectbox(key="rb_run").value == "toy-perm-other"


def test_unbalanced_run_is_flagged(toy_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(toy_db))
    at = open_rubric_page()
    at.selectbox(key="rb_run").set_value("toy-probe").run()
    assert not at.exception
    assert any("not balanced" in w.value for w in at.warning)
    assert any("Never chosen in this run" in c.value and "score 3" in c.value for c in at.caption)


def test_store_without_rubric_trials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "empty.duckdb"
    write_batch(Store.open(path), StoreBatch(datasets=pd.DataFrame([{"dataset_id": "x", "name": "x", "kind": "pointwise",
                                                         "source": "test", "licence": "MIT"}])))
    monkeypatch.setenv("JUDGEBIAS_DB", str(path))
    at = open_rubric_page()
    assert any("no rubric trials" in info.value for info in at.info)
    assert any(NO_PUBLIC_DATA in info.value for info in at.info)


def test_calibration_page_shows_the_geval_block_of_a_rubric_run(app_env: Path) -> None:
    at = open_page("calibration.py")
    next(box for box in at.selectbox if box.label == "Dataset").set_value("summeval").run()
    assert not at.exception
    assert any(s.value.startswith("G-Eval expected score: run `demo-summeval-coherence") for s in at.subheader)
    assert {"Expected score Pearson r", "Parsed score Pearson r"} <= {m.label for m in at.metric}


def test_cli_geval_field_on_the_demo_run(app_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--db", str(app_env), "metrics", "rubric", "--run-id", "demo-summeval-coherence-permutation",
                 "--resamples", "300", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["geval_reason"] is None
    geval = payload["geval"]
    assert geval["compared_calls"] == 400 and geval["items"] == 40 and geval["label_source"] == "human"
    assert geval["parsed_vs_labels"]["pearson"] == pytest.approx(payload["human_correlation"]["permutation"]["pearson"])
    pull = {p["position"]: p for p in geval["position_pull"]}
    # The simulated judge answers by position with q = 0.3 and weight 0.4 at position 1 on k = 5 orderings.
    assert pull[1]["expected"] == pytest.approx(0.3 * (5 * 0.4 - 1) / 4)
    assert payload["bias_cost"]["defined"] and 0 <= payload["recommended_ordering"]["stability"] <= 1
    assert payload["bias_cost"]["interval_kind"].startswith("item bootstrap")
