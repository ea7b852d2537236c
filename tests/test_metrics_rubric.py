"""Rubric position bias: hand-computed toy runs (tests/rubric_toy_store.py), the CLI contract, properties."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, spearmanr

from judgebias_core.analyses.rubric import probe_recommendation, rubric_report, run_score_position
from judgebias_core.cli import build_parser, main
from judgebias_core.errors import InvalidArgument, NotFoundError
from judgebias_core.metrics import rubric_bootstrap
from judgebias_core.metrics.bias_cost import bias_costs, rank_by_bias_cost
from judgebias_core.metrics.rubric import (
    exposure_counts,
    ordering_key,
    position_share,
    score_position_table,
    within_item_spread,
)
from judgebias_core.metrics.rubric_correlation import correlation_estimate, row_pearson, row_spearman
from judgebias_core.protocols.orderings import balanced_orderings, is_balanced, latin_square_orderings
from judgebias_core.sources.bundled import import_bundled
from judgebias_core.stats import resampling
from judgebias_core.store.handle import Store
from judgebias_core.store.rubric_queries import (
    analysable_run_ids,
    comparable_run_ids,
    list_rubric_runs,
    repeat_run_choices,
    rubric_labels,
)
from judgebias_core.store.writes import StoreBatch, write_batch
from tests.rubric_toy_store import repeat_calls, write_toy_store
from tests.store_helpers import read

LABELS = np.array([1.0, 2.0, 3.0, 2.5])  # i1..i4: mean of the raters


@pytest.fixture(scope="module")
def toy_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rubric") / "toy.duckdb"
    write_toy_store(path)
    return path


@pytest.fixture(scope="module")
def toy_report(toy_db: Path):
    return read(rubric_report, toy_db, "toy-perm", "toy-repeat")


def frac(value: float) -> Fraction:
    return Fraction(value).limit_denominator(1000)


# --- hand-computed known answers ---------------------------------------------------------------------------------

def test_counts_and_balance(toy_report) -> None:
    assert (toy_report.k, toy_report.trials, toy_report.parsed, toy_report.parse_failures) == (3, 24, 23, 1)
    # The six orderings are a balanced set, but one failed reply leaves the parsed exposures unbalanced: the shares
    # are exposure-weighted (every ordering counts equally), which the six orderings that kept trials allow.
    assert toy_report.exposure.design_balanced is True and toy_report.balanced is False
    assert toy_report.exposure.weighting == "orderings-equal"
    assert toy_report.exposure.max_deviation == pytest.approx(abs(7 / 23 - 1 / 3))
    # Weighted: (1,3,2) kept 3 trials (weight 23/18 each), the others 4 (23/24): position 1 holds i1, i2 in every
    # ordering and i3, i4 in two orderings other than (1,3,2): (2 * 23/18 + 14 * 23/24) / 23 = 25/36.
    assert toy_report.position_tests.share(1) == pytest.approx(25 / 36)
    assert toy_report.position.shares[0] == pytest.approx(16 / 23)  # the raw count share stays alongside
    assert toy_report.run.simulated and toy_report.run.params == {"temperature": 0.0, "toy": True}


def test_position_share_uses_the_stored_position(toy_report) -> None:
    # i1, i2 always pick position 1 (12); i3 answers 3 (2 per position); i4 answers 2 (2, 2, 1 after the failure).
    # Re-deriving positions from the canonical ordering would instead give the score counts (4, 9, 10).
    share = toy_report.position
    assert share.counts == (16, 4, 3) and share.n == 23
    assert [frac(s) for s in share.shares] == [Fraction(16, 23), Fraction(4, 23), Fraction(3, 23)]
    assert all(lo <= s <= hi for s, lo, hi in zip(share.shares, share.ci_low, share.ci_high, strict=True))


def test_score_position_table(toy_report) -> None:
    table = toy_report.score_position
    assert table.counts == ((4, 0, 0), (6, 2, 1), (6, 2, 2))
    assert [[frac(v) for v in row] for row in table.rows] == [
        [1, 0, 0], [Fraction(2, 3), Fraction(2, 9), Fraction(1, 9)], [Fraction(3, 5), Fraction(1, 5), Fraction(1, 5)]
    ]


def test_bias_cost_of_every_ordering(toy_report) -> None:
    # |P - 1/3| in 45ths: score 1 [30, 15, 15], score 2 [15, 5, 10], score 3 [12, 6, 6].
    expected = {(1, 2, 3): 41, (2, 3, 1): 36, (3, 1, 2): 37, (3, 2, 1): 32, (2, 1, 3): 36, (1, 3, 2): 46}
    got = {o.ordering: o.bias_cost for o in toy_report.orderings}
    assert got == pytest.approx({key: value / 45 for key, value in expected.items()})
    assert toy_report.recommended.ordering == (3, 2, 1)
    assert toy_report.recommended.bias_cost == pytest.approx(32 / 45)
    assert toy_report.correlation_rank((3, 2, 1)) == 5


def test_probe_run_and_never_chosen_score(toy_db: Path) -> None:
    # The probe only ever chose scores 1 and 2 at position 1: P rows [1,0,0], [1,0,0], score 3 never chosen (P = 0).
    probe = read(run_score_position, toy_db, "toy-probe")
    assert probe.table.rows[2] is None and probe.parsed == 2
    report = read(rubric_report, toy_db, "toy-perm", probe_run_id="toy-probe")
    costs = {o.ordering: o.bias_cost for o in report.orderings}
    assert costs[(3, 1, 2)] == pytest.approx(1.0) and costs[(3, 2, 1)] == pytest.approx(1.0)
    assert costs[(1, 2, 3)] == pytest.approx(4 / 3) and costs[(2, 1, 3)] == pytest.approx(4 / 3)
    # (3,1,2) and (3,2,1) tie for the lowest cost: naming one would be a tie-break, so nothing is recommended.
    assert report.recommended is None and report.probe_run_id == "toy-probe"
    assert report.bias_cost.tied_lowest == 2 and "share the lowest" in (report.bias_cost.reason or "")
    ranking = read(probe_recommendation, toy_db, "toy-probe", "all").ranking
    assert [c.rank for c in ranking] == [1, 1, 3, 3, 3, 3]
    result = read(probe_recommendation, toy_db, "toy-probe", "run", run_id="toy-perm")
    assert result.recommended is None and result.ranking[0].ordering == (3, 1, 2)


def test_per_ordering_correlations_and_ranks(toy_report) -> None:
    by_ordering = {o.ordering: o for o in toy_report.orderings}
    canonical = by_ordering[(1, 2, 3)]
    assert canonical.canonical and canonical.n == 4
    assert canonical.pearson == pytest.approx(pearsonr([1, 1, 3, 2], LABELS).statistic)
    assert canonical.spearman == pytest.approx(spearmanr([1, 1, 3, 2], LABELS).statistic)
    failed = by_ordering[(1, 3, 2)]  # i4 failed to parse under (1, 3, 2)
    assert (failed.trials, failed.parsed, failed.n) == (4, 3, 3)
    assert failed.pearson == pytest.approx(pearsonr([1, 1, 3], LABELS[:3]).statistic)
    assert {o: r.rank for o, r in by_ordering.items()} == {
        (1, 2, 3): 1, (1, 3, 2): 2, (2, 1, 3): 3, (2, 3, 1): 3, (3, 1, 2): 5, (3, 2, 1): 5}


def test_permutation_vs_repeat(toy_report) -> None:
    human = toy_report.human
    assert human.label_source == "human" and human.resamples == 2000 and human.seed == 0
    permutation_means, repeat_means = [2, 2, 3, 2], [1, 1.5, 3, 2.5]
    assert human.permutation.pearson == pytest.approx(pearsonr(permutation_means, LABELS).statistic)
    assert human.repeat.pearson == pytest.approx(pearsonr(repeat_means, LABELS).statistic)
    assert human.repeat.spearman == pytest.approx(spearmanr(repeat_means, LABELS).statistic)
    assert human.difference.pearson == pytest.approx(human.permutation.pearson - human.repeat.pearson)
    for estimate in (human.permutation, human.repeat, human.difference):
        assert estimate.n == 4 and estimate.pearson_ci[0] <= estimate.pearson_ci[1]
    # Within-item SD (ddof 0): permutation i1, i2 = sd(1,2,3,3,2,1) = sqrt(2/3), i3 = i4 = 0; repeat 0, .5, 0, .5.
    assert toy_report.spread_permutation.mean_sd == pytest.approx(np.sqrt(2 / 3) / 2)
    assert toy_report.spread_repeat.mean_sd == pytest.approx(0.25)


def test_bootstrap_is_seeded() -> None:
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=30), rng.normal(size=30)
    first, again, other = (correlation_estimate(x, y, 500, seed) for seed in (0, 0, 1))
    assert first == again and first.pearson_ci != other.pearson_ci


def test_bootstrap_matches_resampling_item_indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Counts over distinct value rows are the same bootstrap as resampling items; compare with the plain one.
    rng = np.random.default_rng(3)
    labels = rng.integers(1, 6, size=(60, 3)).mean(axis=1)
    scores = np.clip(np.round(labels + rng.normal(0, 1, size=60)), 1, 5)
    estimate = correlation_estimate(scores, labels, 2000, 0)
    index = rng.integers(0, 60, size=(20_000, 60))
    plain_pearson = row_pearson(scores[index], labels[index])
    plain_spearman = row_spearman(scores[index], labels[index])
    assert estimate.pearson_ci == pytest.approx(tuple(np.nanpercentile(plain_pearson, [2.5, 97.5])), abs=0.03)
    assert estimate.spearman_ci == pytest.approx(tuple(np.nanpercentile(plain_spearman, [2.5, 97.5])), abs=0.03)
    monkeypatch.setattr(resampling, "CELLS_PER_BLOCK", 100)  # many small blocks, one seeded stream
    blocked = correlation_estimate(scores, labels, 2000, 0)
    assert blocked.pearson_ci == pytest.approx(estimate.pearson_ci, abs=1e-12)
    assert blocked.spearman_ci == pytest.approx(estimate.spearman_ci, abs=1e-12)


def _pearson_of_average_ranks(weights: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Reference for weighted_spearman: each distinct row's average rank within each resample, then the weighted
    Pearson of those ranks over every row (the bootstrap's former, slower computation)."""
    def ranks(values: np.ndarray) -> np.ndarray:
        levels, level_of = np.unique(values, return_inverse=True)
        per_level = np.stack([weights[:, level_of == level].sum(axis=1) for level in range(len(levels))], axis=1)
        return (np.cumsum(per_level, axis=1) - per_level + (per_level + 1) / 2)[:, level_of]

    rank_x, rank_y = ranks(x), ranks(y)
    total = weights.sum(axis=1)
    sum_x, sum_y = (weights * rank_x).sum(axis=1), (weights * rank_y).sum(axis=1)
    var_x = (weights * rank_x**2).sum(axis=1) - sum_x**2 / total
    var_y = (weights * rank_y**2).sum(axis=1) - sum_y**2 / total
    covariance = (weights * rank_x * rank_y).sum(axis=1) - sum_x * sum_y / total
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((var_x <= 1e-9) | (var_y <= 1e-9), np.nan, covariance / np.sqrt(var_x * var_y))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 3), st.integers(0, 3)), min_size=2, max_size=12),
       st.integers(0, 2**32 - 1))
def test_weighted_spearman_is_spearman_of_the_expanded_sample(rows: list[tuple[int, int, int]], seed: int) -> None:
    """Per-level rank sums give scipy's Spearman of the items the counts stand for (rows repeated by weight)."""
    x, y = np.array([r[0] for r in rows], float) / 2, np.array([r[1] for r in rows], float)
    weights = np.random.default_rng(seed).integers(0, 4, size=(3, len(rows))).astype(float)
    weights[:, 0] += 1  # at least one item per resample
    weights = np.vstack([weights, np.array([r[2] for r in rows], float) + 1])
    rho = rubric_bootstrap.weighted_spearman(weights, x, y)
    via_ranks = _pearson_of_average_ranks(weights, x, y)
    for row, expected_by_ranks in zip(range(len(weights)), via_ranks, strict=True):
        expanded = np.repeat(np.arange(len(rows)), weights[row].astype(int))
        ex, ey = x[expanded], y[expanded]
        if np.ptp(ex) == 0 or np.ptp(ey) == 0:
            assert np.isnan(rho[row]) and np.isnan(expected_by_ranks)
        else:
            assert rho[row] == pytest.approx(spearmanr(ex, ey).statistic, abs=1e-9)
            assert rho[row] == pytest.approx(expected_by_ranks, abs=1e-12)


def test_unknown_run_and_mismatched_probe(toy_db: Path, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        read(rubric_report, toy_db, "no-such-run")
    with pytest.raises(InvalidArgument):
        bias_costs(read(run_score_position, toy_db, "toy-perm").table, [(1, 2, 3, 4)])
    with pytest.raises(InvalidArgument, match="resample"):
        read(rubric_report, toy_db, "toy-perm", "toy-repeat", resamples=0)
    # A repeat run on other items cannot be compared against the same labels.
    path = tmp_path / "other.duckdb"
    path.write_bytes(toy_db.read_bytes())
    calls = pd.DataFrame(repeat_calls())
    write_batch(Store.open(path), StoreBatch(
        runs=pd.DataFrame([{"run_id": "elsewhere", "dataset_id": "other-set", "study": "elsewhere", "origin": "upload",
                            "protocol": "rubric-repeat", "provider": "upload", "status": "complete",
                            "rubric_id": "toy-k3"}]),
        judge_calls=calls.assign(call_id="x" + calls["call_id"], run_id="elsewhere", dataset_id="other-set")))
    with pytest.raises(InvalidArgument, match="other-set"):
        read(rubric_report, path, "toy-perm", "elsewhere")


def test_run_choices(toy_db: Path) -> None:
    runs = read(list_rubric_runs, toy_db)
    assert analysable_run_ids(runs) == ["toy-perm", "toy-probe", "toy-repeat"]  # permutation first, newest first
    assert repeat_run_choices(runs, "toy-perm") == ["toy-repeat"]
    assert repeat_run_choices(runs, "toy-repeat") == []
    others, peers = comparable_run_ids(runs, "toy-perm")
    assert sorted(others) == ["toy-probe", "toy-repeat"] and peers == []  # one judge only: no default peer


# --- CLI contract ------------------------------------------------------------------------------------------------

def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_metrics_rubric_json(toy_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--db", str(toy_db), "metrics", "rubric", "--run-id", "toy-perm",
                           "--repeat-run-id", "toy-repeat", "--json")
    payload = json.loads(out)
    assert code == 0
    assert (payload["k"], payload["trials"], payload["parse_failures"], payload["balanced"]) == (3, 24, 1, False)
    assert payload["exposure"]["design_balanced"] is True and payload["exposure"]["weighting"] == "orderings-equal"
    assert payload["geval"] is None and "log-probabilities" in payload["geval_reason"]
    assert payload["within_item_sd"]["ddof"] == 0
    assert payload["within_item_sd"]["permutation_detail"]["calls_per_item_min"] == 5
    assert payload["position_tests"]["correction"] == {"method": "holm", "name": "Holm correction",
                                                       "family_size": 3, "alpha": 0.05}
    assert payload["position_share"] == pytest.approx([16 / 23, 4 / 23, 3 / 23])
    assert all(sum(row) == pytest.approx(1) for row in payload["score_position"])
    canonical = next(o for o in payload["orderings"] if o["ordering"] == [1, 2, 3])
    assert set(canonical) >= {"ordering", "trials", "pearson", "spearman", "rank", "bias_cost"}
    assert canonical["bias_cost"] == pytest.approx(41 / 45) and canonical["rank"] == 1
    human = payload["human_correlation"]
    assert human["label_source"] == "human"
    for part in ("permutation", "repeat"):
        assert set(human[part]) >= {"pearson", "spearman", "pearson_ci", "spearman_ci", "n"}
        assert human[part]["n"] == 4 and len(human[part]["pearson_ci"]) == 2


def test_cli_null_row_and_probe(toy_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_cli(capsys, "--db", str(toy_db), "metrics", "rubric", "--run-id", "toy-probe", "--json")
    payload = json.loads(out)
    assert payload["score_position"][2] is None and payload["balanced"] is False
    _, out, _ = run_cli(capsys, "--db", str(toy_db), "metrics", "rubric", "--run-id", "toy-perm",
                        "--probe-run-id", "toy-probe", "--json")
    costs = {tuple(o["ordering"]): o["bias_cost"] for o in json.loads(out)["orderings"]}
    assert costs[(3, 2, 1)] == pytest.approx(1.0) and costs[(1, 2, 3)] == pytest.approx(4 / 3)
    code, out, err = run_cli(capsys, "--db", str(toy_db), "metrics", "rubric", "--run-id", "missing", "--json")
    assert code == 2 and "missing" in err and out == ""


def test_cli_commands_have_help() -> None:
    root = next(a for a in build_parser()._actions if a.dest == "command")
    for group, name in (("metrics", "rubric"), ("export", "trials")):
        group_parser = root.choices[group]
        command = next(a for a in group_parser._actions if a.choices and name in a.choices)
        assert any(c.dest == name and c.help for c in command._choices_actions)
        assert all(action.help for action in command.choices[name]._actions)


@pytest.mark.parametrize("file_format", ["csv", "jsonl", "parquet"])
def test_cli_export_trials(toy_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           file_format: str) -> None:
    out = tmp_path / f"trials.{file_format}"
    code, _, _ = run_cli(capsys, "--db", str(toy_db), "export", "trials", "--run-id", "toy-perm",
                         "--format", file_format, "--out", str(out))
    assert code == 0
    if file_format == "csv":
        frame = pd.read_csv(out)
        orderings = frame["ordering"].map(json.loads)
    elif file_format == "jsonl":
        frame = pd.read_json(out, lines=True)
        orderings = frame["ordering"]
    else:
        frame = pd.read_parquet(out)
        orderings = frame["ordering"].map(list)
    assert len(frame) == 24 and (frame["parse_status"] == "failed").sum() == 1
    assert sorted({tuple(int(s) for s in o) for o in orderings}) == sorted(balanced_orderings([1, 2, 3]))
    shown = [tuple(int(s) for s in o) for o in orderings]
    expected = [None if pd.isna(s) else o.index(int(s)) + 1 for o, s in zip(shown, frame["score"], strict=True)]
    assert [None if pd.isna(p) else int(p) for p in frame["chosen_position"]] == expected


# --- real data: labels come from the bundled SummEval experts and Prometheus' reference judge ----------------------

@pytest.fixture(scope="module")
def real_labels_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Only the two bundled rubric datasets this test needs (the full first-launch store is slower to build)."""
    path = tmp_path_factory.mktemp("rubric-real") / "real.duckdb"
    import_bundled(Store.open(path), ("summeval", "prometheus-vicuna"))
    return path


def test_labels_on_bundled_data(real_labels_db: Path) -> None:
    experts = pd.read_json(Path("data/summeval/expert_annotations.jsonl.gz"), lines=True).head(3)
    gpt4 = pd.read_json(Path("data/prometheus-rubric/vicuna.jsonl.gz"), lines=True).head(3)
    designs = latin_square_orderings(range(1, 6))
    calls = pd.DataFrame([
        {"call_id": f"real-{dataset}-{item}-{o}", "run_id": f"real-{dataset}", "dataset_id": dataset, "study": "real",
         "judge": "hand", "item_id": item, "kind": "rubric", "repetition": 1, "ordering": list(ordering),
         "rubric_id": None, "score": ordering[0], "chosen_position": 1, "parse_status": "ok", "parser": "hand"}
        for dataset, items in (("summeval", experts["item_id"]), ("prometheus-vicuna", gpt4["item_id"]))
        for item in items for o, ordering in enumerate(designs)])
    # The SummEval run names its rubric on the run; the Prometheus calls fall back to each item's own rubric.
    write_batch(Store.open(real_labels_db), StoreBatch(
        runs=pd.DataFrame([{"run_id": f"real-{d}", "dataset_id": d, "study": "real", "origin": "upload",
                            "protocol": "rubric-permutation", "provider": "upload", "judge": "hand", "status": "done",
                            "rubric_id": rubric}
                           for d, rubric in (("summeval", "summeval-coherence"), ("prometheus-vicuna", None))]),
        judge_calls=calls,
    ))
    summeval = read(rubric_report, real_labels_db, "real-summeval")
    assert summeval.human.label_source == "human" and summeval.labelled_items == 3
    assert summeval.balanced is True and summeval.position.counts == (15, 0, 0, 0, 0)
    expert_means = experts["expert_scores"].map(lambda s: np.mean(s["coherence"])).to_numpy()
    labels = read(rubric_labels, real_labels_db, "real-summeval").set_index("item_id")
    assert labels.loc[experts["item_id"], "label"].to_numpy() == pytest.approx(expert_means)
    assert (labels["raters"] == 3).all()
    prometheus = read(rubric_report, real_labels_db, "real-prometheus-vicuna")
    assert prometheus.human.label_source == "reference-judge" and prometheus.labelled_items == 3
    labels = read(rubric_labels, real_labels_db, "real-prometheus-vicuna").set_index("item_id")
    assert labels.loc[gpt4["item_id"], "label"].to_numpy() == pytest.approx(gpt4["gpt4_scores"].map(np.mean))


def test_uploaded_rubric_log_is_analysed(real_labels_db: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # A judge that always picks position 1, uploaded as a log through the CLI, then analysed through the CLI.
    path = tmp_path / "upload.duckdb"
    path.write_bytes(real_labels_db.read_bytes())
    experts = pd.read_json(Path("data/summeval/expert_annotations.jsonl.gz"), lines=True).head(4)
    log = pd.DataFrame([{"item_id": item, "judge": "always-first", "ordering": json.dumps(list(o)), "score": o[0]}
                        for item in experts["item_id"] for o in balanced_orderings(range(1, 6))])
    log_file = tmp_path / "trials.csv"
    log.to_csv(log_file, index=False)
    code, out, _ = run_cli(capsys, "--db", str(path), "upload", "rubric-log", "--file", str(log_file),
                           "--dataset", "summeval", "--json")
    assert code == 0
    run_id = json.loads(out)["run_id"]
    code, out, _ = run_cli(capsys, "--db", str(path), "metrics", "rubric", "--run-id", run_id, "--json")
    payload = json.loads(out)
    assert (code, payload["trials"], payload["balanced"]) == (0, 40, True)
    assert payload["position_share"] == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert payload["score_position"] == [[1.0, 0.0, 0.0, 0.0, 0.0]] * 5
    assert payload["human_correlation"]["label_source"] == "human"
    assert payload["human_correlation"]["permutation"]["n"] == 4


# --- properties --------------------------------------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 7), items=st.integers(1, 5))
def test_balanced_set_shows_every_score_equally_often_at_every_position(k: int, items: int) -> None:
    orderings = balanced_orderings(list(range(1, k + 1)))
    counts = exposure_counts(orderings, [items] * len(orderings))
    assert is_balanced(orderings) and len(orderings) == 2 * k
    assert (counts == 2 * items).all()


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 6), answers=st.lists(st.integers(1, 6), min_size=1, max_size=8))
def test_content_only_judge_has_uniform_position_shares_on_a_balanced_set(k: int, answers: list[int]) -> None:
    # Whatever score each item gets, if it ignores the ordering, a balanced set spreads it evenly over positions.
    orderings = balanced_orderings(list(range(1, k + 1)))
    trials = pd.DataFrame([{"item_id": f"i{i}", "ordering_key": ordering_key(o), "score": min(a, k),
                            "chosen_position": o.index(min(a, k)) + 1, "parse_status": "ok"}
                           for i, a in enumerate(answers) for o in orderings])
    share = position_share(trials, k)
    assert share.shares == pytest.approx([1 / k] * k)
    table = score_position_table(trials, range(1, k + 1))
    assert all(row is None or row == pytest.approx([1 / k] * k) for row in table.rows)


def random_trials(data: st.DataObject, k: int) -> pd.DataFrame:
    orderings = latin_square_orderings(list(range(1, k + 1))) + balanced_orderings(list(range(1, k + 1)))
    n = data.draw(st.integers(1, 60))
    picks = data.draw(st.lists(st.tuples(st.integers(0, len(orderings) - 1), st.integers(1, k),
                                         st.booleans()), min_size=n, max_size=n))
    rows = [{"item_id": f"i{i % 7}", "ordering_key": ordering_key(orderings[o]), "score": orderings[o][p - 1],
             "chosen_position": p, "parse_status": "ok" if ok else "failed"} for i, (o, p, ok) in enumerate(picks)]
    frame = pd.DataFrame(rows)
    frame.loc[frame["parse_status"] == "failed", ["score", "chosen_position"]] = np.nan
    return frame


@settings(max_examples=40, deadline=None)
@given(data=st.data(), k=st.integers(2, 6))
def test_score_position_rows_sum_to_one(data: st.DataObject, k: int) -> None:
    trials = random_trials(data, k)
    table = score_position_table(trials, range(1, k + 1))
    for row, counts in zip(table.rows, table.counts, strict=True):
        assert (row is None) == (sum(counts) == 0)
        if row is not None:
            assert sum(row) == pytest.approx(1.0)
    share = position_share(trials, k)
    assert share.n == int((trials["parse_status"] == "ok").sum())
    if share.n:
        assert sum(share.shares) == pytest.approx(1.0)
    assert np.isnan(within_item_spread(trials.iloc[0:0]).mean_sd)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), k=st.integers(2, 6))
def test_bias_cost_is_non_negative_and_zero_when_uniform(data: st.DataObject, k: int) -> None:
    trials = random_trials(data, k)
    candidates = balanced_orderings(list(range(1, k + 1)))
    assert (bias_costs(score_position_table(trials, range(1, k + 1)), candidates) >= 0).all()
    # Uniform P: every score chosen equally often at every position (each ordering answered at each position).
    uniform = pd.DataFrame([{"item_id": "i", "ordering_key": ordering_key(o), "score": o[p], "chosen_position": p + 1,
                             "parse_status": "ok"} for o in candidates for p in range(k)])
    costs = [c.bias_cost for c in rank_by_bias_cost(score_position_table(uniform, range(1, k + 1)), candidates)]
    assert costs == pytest.approx([0.0] * len(candidates))


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.tuples(st.integers(1, 5), st.floats(1, 5)), min_size=3, max_size=25))
def test_vectorised_correlations_match_scipy(values: list[tuple[int, float]]) -> None:
    x = np.array([v[0] for v in values], dtype=float)
    y = np.array([v[1] for v in values], dtype=float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert np.isnan(row_pearson(x, y))
        return
    assert float(row_pearson(x, y)) == pytest.approx(pearsonr(x, y).statistic, abs=1e-9)
    assert float(row_spearman(x, y)) == pytest.approx(spearmanr(x, y).statistic, abs=1e-9)
