"""`plan` and analyses.plan: the CLI on the bundled store against stats.planning by hand, the cost through the run
preview, named errors, and a simulated earlier run whose plan predicts the realised clustered interval width."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from judgebias_core.analyses.plan import assumptions_from_judge, dataset_design, plan_study
from judgebias_core.cli import main
from judgebias_core.engine.preview import preview_run
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.planning import plan_from_earlier_run
from judgebias_core.store.handle import Store

Z = float(norm.ppf(0.975))


def _plan(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--db", str(db), "plan", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> dict:
    code, out, err = _plan(capsys, db, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _item_flips(db: Path, dataset: str, study: str, judge: str) -> tuple[np.ndarray, np.ndarray]:
    with Store(db).reader() as reader:
        pairs = reader.frame("SELECT item_id, classification FROM pair_outcomes WHERE dataset_id = ? AND study = ? "
                             "AND judge = ? AND repetition = 1", [dataset, study, judge])
    pairs = pairs[pairs["classification"] != "failed"]
    per_item = pairs.assign(flip=pairs["classification"].isin(["primacy", "recency"])).groupby("item_id")["flip"]
    return per_item.sum().to_numpy(), per_item.count().to_numpy()


def _preview_cost(db: Path, limit: int, model: str) -> tuple[int, float | None]:
    preview = Store(db).read(preview_run, RunSpec(dataset_id="mtbench", protocol="pairwise-swap", provider="openai",
                                      model=model, limit_items=limit), RunSettings())
    return preview.calls, preview.estimate.cost_usd


def test_typed_plan_by_hand(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, bundled_db_master, "--dataset", "mtbench", "--flip-rate", "0.2", "--design-effect", "2.5",
                "--items", "40", "--target-width", "0.06", "--model", "gpt-4o")
    variance_per_item = 0.2 * 0.8 * 2.5 / 30  # MTBench: 31 candidates per question, 30 against the baseline
    assert (out["items"], out["pairs_per_item"], out["interval_method"]) == (40, 30, "studentized-item-bootstrap")
    assert out["expected_width"] == pytest.approx(2 * Z * math.sqrt(variance_per_item / 40), rel=1e-9)
    assert out["items_needed"] == math.ceil(4 * Z**2 * variance_per_item / 0.06**2) == 57
    assert (out["cost_items"], out["calls"]) == (57, 57 * 30 * 2)
    assert (out["calls"], out["cost_usd"]) == _preview_cost(bundled_db_master, 57, "gpt-4o")
    assert out["source"]["kind"] == "typed" and out["cost_extrapolated"] is False


def test_plan_from_the_bundled_gpt4_run(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    flips, trials = _item_flips(bundled_db_master, "mtbench", "full", "gpt-4-0613")
    expected = plan_from_earlier_run(flips, trials, items=80, pairs_per_item=30, target_width=0.05)
    by_judge = _json(capsys, bundled_db_master, "--dataset", "mtbench", "--from-judge", "gpt-4-0613",
                     "--study", "full", "--target-width", "0.05")
    assert (by_judge["flip_rate"], int(flips.sum()), int(trials.sum())) == (443 / 2400, 443, 2400)
    assert by_judge["design_effect"] == pytest.approx(expected.design_effect, rel=1e-9)
    assert by_judge["expected_width"] == pytest.approx(expected.expected_width, rel=1e-9)
    assert by_judge["items_needed"] == expected.items_needed
    assert by_judge["source"] | {"description": None} == {
        "kind": "earlier-run", "description": None, "dataset": "mtbench", "study": "full", "judge": "gpt-4-0613",
        "run_id": None, "items": 80, "pairs": 2400, "flips": 443, "design_effect": pytest.approx(2.35, abs=0.005),
        "icc": pytest.approx((by_judge["source"]["design_effect"] - 1) / 29)}
    assert by_judge["model"] == "gpt-4-0613"  # priced as the judge planned from
    by_run = _json(capsys, bundled_db_master, "--dataset", "mtbench", "--from-run", "bundled:mtbench:full",
                   "--from-judge", "gpt-4-0613", "--target-width", "0.05")
    assert by_run["expected_width"] == by_judge["expected_width"]
    assert by_run["source"]["run_id"] == "bundled:mtbench:full"


def test_plans_beyond_the_dataset_scale_the_preview(bundled_db_master: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, bundled_db_master, "--dataset", "mtbench", "--flip-rate", "0.1", "--design-effect", "1",
                "--items", "200")
    calls, cost = _preview_cost(bundled_db_master, 80, "gpt-4o-mini")
    assert cost is not None
    assert (out["calls"], out["cost_extrapolated"]) == (math.ceil(calls * 200 / 80), True)
    assert out["cost_usd"] == pytest.approx(cost * 200 / 80)
    assert "80 items" in out["cost_note"]


def test_pairs_per_item_and_calls_follow_the_run_plan(bundled_db_master: Path) -> None:
    with Store(bundled_db_master).reader() as reader:
        design = dataset_design(reader, "devbench")
        all_pairs = dataset_design(reader, "mtbench", "all")
    preview = Store(bundled_db_master).read(preview_run, RunSpec(dataset_id="devbench", protocol="pairwise-swap",
                                                     provider="simulated", model="x"), RunSettings())
    assert (preview.calls, preview.items) == (2 * design.total_pairs, design.items)
    assert design.pairs_per_item == round(design.total_pairs / design.items)
    assert (all_pairs.items, all_pairs.pairs_per_item) == (80, 31 * 30 // 2)
    assert design.items_within(None) == design.items and design.items_within(design.item_limits[4]) == 5


@pytest.mark.parametrize(("args", "message"), [
    (["--dataset", "mtbench"], "give --flip-rate and --design-effect"),
    (["--dataset", "mtbench", "--flip-rate", "0.2"], "need both"),
    (["--dataset", "mtbench", "--flip-rate", "0.2", "--design-effect", "2", "--from-run", "r"], "not both"),
    (["--dataset", "mtbench", "--flip-rate", "0", "--design-effect", "2"], "strictly between 0 and 1"),
    (["--dataset", "mtbench", "--flip-rate", "0.2", "--design-effect", "0.5"], "at least 1"),
    (["--dataset", "mtbench", "--flip-rate", "0.2", "--design-effect", "2", "--target-width", "1.5"], "target"),
    (["--dataset", "mtbench", "--flip-rate", "0.2", "--design-effect", "2", "--items", "0"], "--items"),
    (["--dataset", "nowhere", "--flip-rate", "0.2", "--design-effect", "2"], "no dataset 'nowhere'"),
    (["--dataset", "summeval", "--flip-rate", "0.2", "--design-effect", "2"], "not pairwise"),
    (["--dataset", "mtbench", "--from-run", "bundled:mtbench:full"], "name one with --from-judge"),
    (["--dataset", "mtbench", "--from-run", "nothing"], "run 'nothing'"),
    (["--dataset", "mtbench", "--from-judge", "gpt-4-0613"], "needs --study"),
    (["--dataset", "mtbench", "--from-judge", "nobody", "--study", "full"], "no classified pair"),
])
def test_bad_input_is_one_named_line(bundled_db_master: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                     message: str) -> None:
    code, out, err = _plan(capsys, bundled_db_master, *args)
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def _simulated_earlier_run(db: Path, flip_probability: np.ndarray, seed: int) -> None:
    """A judge's first repetition on MTBench's 80 items x 30 baseline pairs with known per-item flip probabilities."""
    rng = np.random.default_rng(seed)
    with Store(db).reader() as reader:
        items = reader.frame("SELECT item_id FROM items WHERE dataset_id = 'mtbench' ORDER BY seq")["item_id"]
    rows = [{"dataset_id": "mtbench", "study": "sim", "run_id": "sim", "judge": "sim-judge", "repetition": 1,
             "item_id": item, "candidate": f"c{pair}", "opponent": "vicuna-13b-v1.3",
             "original_call_id": f"{item}-{pair}-o", "swapped_call_id": f"{item}-{pair}-s",
             "classification": "primacy" if rng.random() < p else "consistent"}
            for item, p in zip(items, flip_probability, strict=True) for pair in range(30)]
    frame = pd.DataFrame(rows)  # noqa: F841 - read by DuckDB by name
    with Store(db).writer() as con:
        con.execute("INSERT INTO pair_outcomes BY NAME SELECT * FROM frame")


def test_planned_width_matches_the_realised_clustered_width(bundled_db: Path) -> None:
    """Item flip probabilities Beta(2, 8) (rate 0.2, ICC 1/11, design effect about 3.6 at 30 pairs): the plan from
    one simulated earlier run is within 15% of the mean item-bootstrap width of 100 new runs of the same design
    (the earlier run's design-effect estimate from 80 items carries most of that tolerance)."""
    rng = np.random.default_rng(11)
    a, b = 2.0, 8.0
    _simulated_earlier_run(bundled_db, rng.beta(a, b, size=80), seed=12)
    with Store(bundled_db).reader() as reader:
        design = dataset_design(reader, "mtbench")
        plan = plan_study(design, assumptions_from_judge(reader, design, "mtbench", "sim", "sim-judge"))
    realised = [clustered_rate(rng.binomial(30, rng.beta(a, b, size=80)), np.full(80, 30), resamples=400)
                for _ in range(100)]
    assert {r.method for r in realised} == {plan.interval_method}
    assert np.mean([r.width for r in realised]) == pytest.approx(plan.expected_width, rel=0.15)


def test_width_modes_in_json_and_text(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--dataset", "mtbench", "--flip-rate", "0.2", "--design-effect", "2.5", "--items", "40",
            "--target-width", "0.06", "--model", "gpt-4o")
    expected, assured = _json(capsys, bundled_db_master, *args), _json(capsys, bundled_db_master, *args,
                                                                       "--width-mode", "assurance")
    assert (expected["width_mode"], assured["width_mode"], assured["assurance"]) == ("expected", "assurance", 0.8)
    assert expected["items_needed"] == 57 < assured["items_needed"]
    assert assured["assured_width"] == expected["assured_width"] > expected["expected_width"]
    code, out, _ = _plan(capsys, bundled_db_master, *args, "--width-mode", "assurance")
    assert code == 0 and "planned as the width met with 80% assurance" in out
