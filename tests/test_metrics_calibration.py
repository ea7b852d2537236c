"""Calibration against human labels: Auto-J known answers, hand-made pairwise and rubric cases, properties."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.analyses.calibration import calibration, calibration_choices, disagreeing_pairs, disagreeing_trials
from judgebias_core.cli import main
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE
from judgebias_core.metrics.calibration import (
    ORIGINAL_FIRST,
    ORIGINAL_SECOND,
    PairwiseCalibration,
    RubricCalibration,
    agreement_table,
)
from judgebias_core.store.calibration_queries import calibration_targets
from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch
from tests.store_helpers import read

RATINGS = {"i1": (1, 1, 2), "i2": (2, 3, 3), "i3": (5, 4, 5), "i4": (2, 2, 2), "i5": (4, 3, 4), "i6": (3, 3, 1)}
SCORES = {"i1": (1, 2), "i2": (3, 3), "i3": (4, 5), "i4": (2, None), "i5": (4, 2), "i6": (3, 3)}
# pair -> (human label, original-order verdict, swapped-order verdict); original order puts r1 first
PAIRS = {"p1": ("r1", "A", "B"), "p2": ("r2", "B", "B"), "p3": ("tie", "C", "C"), "p4": ("r1", "A", None)}


def run_cli(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> dict:
    capsys.readouterr()
    assert main(["--db", str(db), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _run(run_id: str, dataset: str, protocol: str) -> pd.DataFrame:
    return pd.DataFrame([{"run_id": run_id, "dataset_id": dataset, "study": run_id, "origin": "engine",
                          "protocol": protocol, "provider": "simulated", "judge": "hand-judge",
                          "status": "finished"}])


def write_rubric_case(path: Path, label_source: str = "human") -> None:
    """Six items, three raters each, a judge scoring each item twice (one reply unparsed)."""
    calls = pd.DataFrame([
        {"call_id": f"c-{item}-{rep}", "run_id": "hand-run", "dataset_id": "hand", "study": "hand-run",
         "judge": "hand-judge", "item_id": item, "kind": "rubric", "repetition": rep, "ordering": [1, 2, 3, 4, 5],
         "rubric_id": "hand-k5", "score": score, "parse_status": "ok" if score else "failed", "parser": "prometheus"}
        for item, scores in SCORES.items() for rep, score in enumerate(scores, start=1)
    ])
    write_batch(Store.open(path), StoreBatch(
        datasets=pd.DataFrame([{"dataset_id": "hand", "name": "hand", "kind": "pointwise", "source": "test",
                                "licence": "MIT", "origin": "upload"}]),
        rubrics=pd.DataFrame([{"rubric_id": "hand-k5", "criterion": "quality", "k": 5, "dataset_id": "hand"}]),
        rubric_levels=pd.DataFrame([{"rubric_id": "hand-k5", "level": lv, "description": f"level {lv}"}
                                    for lv in range(1, 6)]),
        items=pd.DataFrame([{"dataset_id": "hand", "item_id": item, "seq": i, "question": f"question {item}",
                             "response": f"response {item}", "rubric_id": "hand-k5"}
                            for i, item in enumerate(RATINGS)]),
        human_labels=pd.DataFrame([{"dataset_id": "hand", "item_id": item, "rater": f"r{i}",
                                    "rater_group": "expert", "label_source": label_source, "rubric_id": "hand-k5",
                                    "score": float(score)}
                                   for item, scores in RATINGS.items() for i, score in enumerate(scores)]),
        runs=_run("hand-run", "hand", "rubric-repeat"), judge_calls=calls,
    ))


def write_pair_case(path: Path, judges: tuple[str, ...] = ("hand-judge",), names: dict[str, str] | None = None) -> None:
    """Four labelled pairs; every judge in ``judges`` answers as PAIRS says; ``names`` renames r2 per item."""
    names = names or {}
    rows = []
    for judge, (item, (_, original, swapped)) in ((j, p) for j in judges for p in PAIRS.items()):
        other = names.get(item, "r2")
        for order, first, second, verdict in (("original", "r1", other, original), ("swapped", other, "r1", swapped)):
            rows.append({"call_id": f"{judge}-{item}-{order}", "run_id": "pair-run", "dataset_id": "hand-pairs",
                         "study": "pair-run", "judge": judge, "item_id": item, "kind": "pairwise",
                         "repetition": 1, "options": 3, "slots": [first, second], "first_candidate": first,
                         "second_candidate": second, "order_label": order, "verdict": verdict,
                         "parse_status": "ok" if verdict else "failed", "parser": "mtbench"})
    write_batch(Store.open(path), StoreBatch(
        datasets=pd.DataFrame([{"dataset_id": "hand-pairs", "name": "hand pairs", "kind": "pairwise",
                                "source": "test", "licence": "MIT", "origin": "upload", "baseline_candidate": "r1"}]),
        items=pd.DataFrame([{"dataset_id": "hand-pairs", "item_id": item, "seq": i, "question": f"q {item}"}
                            for i, item in enumerate(PAIRS)]),
        answers=pd.DataFrame([{"dataset_id": "hand-pairs", "item_id": item, "candidate": c, "answer": f"{c} {item}"}
                              for item in PAIRS for c in ("r1", names.get(item, "r2"))]),
        human_labels=pd.DataFrame([{"dataset_id": "hand-pairs", "item_id": item, "rater": "person",
                                    "rater_group": "human", "label_source": "human", "rubric_id": "",
                                    "preference": names.get(item, "r2") if label == "r2" else label}
                                   for item, (label, _, _) in PAIRS.items()]),
        runs=_run("pair-run", "hand-pairs", "pairwise-swap"), judge_calls=pd.DataFrame(rows),
    ))


def test_ensemble_and_per_item_candidate_names(fresh_db: Path) -> None:
    write_pair_case(fresh_db, judges=("j1", "j2", "j3"), names={"p2": "model-x", "p3": "model-y"})
    single = read(calibration, fresh_db, "hand-pairs", "j1")
    ensemble = read(calibration, fresh_db, "hand-pairs", ENSEMBLE_JUDGE)
    # candidate names differ between items: labels become slots of the original order
    assert single.original.labels == [ORIGINAL_FIRST, ORIGINAL_SECOND, "tie"]
    assert single.swap_aggregated.confusion == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    # three judges that agree everywhere: their majority vote is each of them
    for name in ("original", "swapped", "swap_aggregated"):
        mine, theirs = getattr(ensemble, name), getattr(single, name)
        assert (mine.n, mine.accuracy, mine.confusion) == (theirs.n, theirs.accuracy, theirs.confusion)
    assert ensemble.both_orders_correct == single.both_orders_correct == 2
    choices = read(calibration_choices, fresh_db)
    assert set(choices["judge"]) == {"j1", "j2", "j3", ENSEMBLE_JUDGE}


def _kappa_by_hand(human: list[int], judge: list[int], levels: list[int], quadratic: bool = False) -> float:
    table = np.zeros((len(levels), len(levels)))
    for h, j in zip(human, judge, strict=True):
        table[levels.index(h), levels.index(j)] += 1
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    grid = np.subtract.outer(np.arange(len(levels)), np.arange(len(levels)))
    weights = grid.astype(float) ** 2 if quadratic else (grid != 0).astype(float)
    return 1 - (weights * table).sum() / (weights * expected).sum()


def test_autoj_known_answers(bundled_db_master: Path) -> None:
    result = read(calibration, bundled_db_master, "autoj", "auto-j-13b", "full")
    assert isinstance(result, PairwiseCalibration)
    assert (result.consistent_pairs, result.pairs) == (1161, 1392)
    assert result.position_consistency == pytest.approx(0.8341, abs=5e-5)
    assert result.both_orders_correct == 765
    assert result.both_orders_correct_rate == pytest.approx(0.5496, abs=5e-5)
    assert result.original.labels == ["response_1", "response_2", "tie"]
    assert (result.original.n, round(result.original.accuracy * 1392)) == (1392, 835)
    assert round(result.swapped.accuracy * 1392) == 844
    human_rows = [sum(row) for row in result.swap_aggregated.confusion]
    assert human_rows == [520, 499, 373]  # the published human label counts


def test_cli_calibration_contract_pairwise(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    payload = run_cli(capsys, bundled_db_master, "metrics", "calibration", "--dataset", "autoj",
                      "--judge", "auto-j-13b")
    for order in ("original", "swapped", "swap_aggregated"):
        assert {"n", "accuracy", "kappa", "confusion"} <= set(payload[order])
        assert len(payload[order]["confusion"]) == 3 and all(len(r) == 3 for r in payload[order]["confusion"])
    assert payload["both_orders_correct"] == 765
    assert payload["position_consistency"] == pytest.approx(1161 / 1392)


def test_hand_made_pairs(fresh_db: Path) -> None:
    write_pair_case(fresh_db)
    result = read(calibration, fresh_db, "hand-pairs", "hand-judge")
    assert (result.original.n, result.original.accuracy) == (4, 1.0)
    assert (result.swapped.n, result.swapped.accuracy) == (3, pytest.approx(2 / 3))
    assert (result.swap_aggregated.n, result.swap_aggregated.accuracy) == (3, pytest.approx(2 / 3))
    # p2 flipped with the order: it counts as a tie, so the human r2 row has its one pair in the tie column
    assert result.swap_aggregated.confusion == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    assert (result.both_orders_correct, result.pairs, result.failed_pairs) == (2, 4, 1)
    assert result.position_consistency == pytest.approx(2 / 3)
    wrong = read(disagreeing_pairs, fresh_db, "hand-pairs", "hand-judge")
    assert set(wrong["item_id"]) == {"p2", "p4"}


def test_hand_made_rubric_trials(fresh_db: Path) -> None:
    write_rubric_case(fresh_db)
    result = read(calibration, fresh_db, "hand", "hand-judge", "hand-run")
    assert isinstance(result, RubricCalibration)
    parsed = [(item, s) for item, scores in SCORES.items() for s in scores if s is not None]
    medians = {item: int(np.median(r)) for item, r in RATINGS.items()}
    means = {item: float(np.mean(r)) for item, r in RATINGS.items()}
    judge = [s for _, s in parsed]
    human = [medians[item] for item, _ in parsed]
    assert (result.n, result.items, result.failed, result.label_source) == (11, 6, 1, "human")
    assert result.kappa == pytest.approx(_kappa_by_hand(human, judge, [1, 2, 3, 4, 5]))
    assert result.weighted_kappa == pytest.approx(_kappa_by_hand(human, judge, [1, 2, 3, 4, 5], quadratic=True))
    assert result.pearson.statistic == pytest.approx(np.corrcoef(judge, [means[i] for i, _ in parsed])[0, 1])
    frame = pd.DataFrame({"j": judge, "h": [means[i] for i, _ in parsed]})
    assert result.spearman.statistic == pytest.approx(frame["j"].rank().corr(frame["h"].rank()))
    assert result.pearson.ci_low < result.pearson.statistic < result.pearson.ci_high
    # rows: median 1 (i1: 1, 2), 2 (i4: 2), 3 (i2, i6: 3 four times), 4 (i5: 4, 2), 5 (i3: 4, 5)
    assert result.confusion == [[1, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 4, 0, 0], [0, 1, 0, 1, 0],
                                [0, 0, 0, 1, 1]]
    wrong = read(disagreeing_trials, fresh_db, "hand", "hand-judge", "hand-run")
    assert len(wrong) == sum(h != j for h, j in zip(human, judge, strict=True))


def test_reference_judge_labels_are_named_as_such(fresh_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_rubric_case(fresh_db, label_source="reference-judge")
    targets = read(calibration_targets, fresh_db)
    assert targets["label_source"].tolist() == ["reference-judge"]
    payload = run_cli(capsys, fresh_db, "metrics", "calibration", "--dataset", "hand", "--judge", "hand-judge")
    assert payload["label_source"] == "reference-judge"
    assert payload["n"] == 11
    for key in ("kappa", "weighted_kappa", "pearson", "spearman", "kendall"):
        assert isinstance(payload[key], float)
        assert payload[f"{key}_ci_low"] <= payload[key] <= payload[f"{key}_ci_high"]
        assert payload[f"{key}_ci"] == [payload[f"{key}_ci_low"], payload[f"{key}_ci_high"]]
    assert len(payload["confusion"]) == 5


def test_demo_rubric_run_calibrates_against_summeval_experts(bundled_db_master: Path) -> None:
    targets = read(calibration_targets, bundled_db_master)
    rubric = targets[targets["kind"] == "pointwise"]
    if rubric.empty:
        pytest.skip("the first-launch store holds no rubric run on labelled items")
    row = rubric.iloc[0]
    result = read(calibration, bundled_db_master, row["dataset_id"], row["judge"], row["study"])
    assert isinstance(result, RubricCalibration)
    assert result.n + result.failed == row["calls"]
    assert -1 <= result.kappa <= 1 and -1 <= result.pearson.statistic <= 1


labels = st.sampled_from(["r1", "r2", "tie"])


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(labels, labels), min_size=1, max_size=60))
def test_agreement_table_properties(rows: list[tuple[str, str]]) -> None:
    human, judge = pd.Series([r[0] for r in rows]), pd.Series([r[1] for r in rows])
    table = agreement_table(human, judge, ["r1", "r2", "tie"])
    assert table.n == len(rows) == int(np.asarray(table.confusion).sum())
    assert 0 <= table.accuracy <= 1
    for score in table.per_class:
        for value in (score.precision, score.recall):
            assert np.isnan(value) or 0 <= value <= 1
    perfect = agreement_table(human, human, ["r1", "r2", "tie"])
    assert perfect.accuracy == 1
    assert np.isnan(perfect.kappa) or perfect.kappa == pytest.approx(1)
