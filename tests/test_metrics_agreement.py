"""Agreement between judges, the majority-vote ensemble, verbosity and self-preference."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.analyses.judges import agreement_report, load_outcomes
from judgebias_core.cli import main
from judgebias_core.metrics.agreement import (
    ENSEMBLE_JUDGE,
    classify_pairs,
    disagreement_distribution,
    majority_vote,
    pairwise_agreements,
)
from judgebias_core.store.agreement_queries import pair_outcomes, pairwise_calls
from tests.store_helpers import read


def run_cli(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> dict:
    """Run the CLI in this process (a subprocess would pay the import time again) and read its JSON."""
    capsys.readouterr()
    assert main(["--db", str(db), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _independent_agreement(db: Path, dataset: str, study: str, a: str, b: str) -> tuple[int, int, int, int]:
    """Shared parsed calls and identical verdicts of two judges, with and without ties, straight from SQL."""
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT count(*), count(*) FILTER (WHERE x.verdict = y.verdict), "
            "count(*) FILTER (WHERE x.verdict <> 'C' AND y.verdict <> 'C'), "
            "count(*) FILTER (WHERE x.verdict = y.verdict AND x.verdict <> 'C') "
            "FROM judge_calls x JOIN judge_calls y USING (dataset_id, study, item_id, first_candidate, "
            "second_candidate, repetition) WHERE x.dataset_id = ? AND x.study = ? AND x.judge = ? AND y.judge = ? "
            "AND x.parse_status = 'ok' AND y.parse_status = 'ok'",
            [dataset, study, a, b],
        ).fetchall()[0]


def test_mtbench_full_agreement_matches_an_independent_count(bundled_db_master: Path) -> None:
    result = read(agreement_report, bundled_db_master, "mtbench", ["full"])
    assert set(result.judges) == {"gemini-pro", "gpt-3.5-turbo-1106", "gpt-4-0613"}
    assert result.instances == 4800
    for pair in result.pairs:
        n, same, n_no_tie, same_no_tie = _independent_agreement(bundled_db_master, "mtbench", "full", pair.a, pair.b)
        assert (pair.n, pair.n_without_ties) == (n, n_no_tie)
        assert pair.agreement == pytest.approx(same / n)
        assert pair.agreement_without_ties == pytest.approx(same_no_tie / n_no_tie)


def test_repetition_study_has_nine_judges_and_one_repetition_filter(bundled_db_master: Path) -> None:
    everything = read(agreement_report, bundled_db_master, "devbench", ["repetition"])
    second = read(agreement_report, bundled_db_master, "devbench", ["repetition"], repetition=2)
    assert len(everything.judges) == 9 and len(everything.pairs) == 36
    assert everything.instances == 3 * second.instances == 3 * 144
    # DevBench judges had two options: no tie anywhere, so both variants coincide.
    assert all(p.n == p.n_without_ties for p in second.pairs)


def test_classify_pairs_reproduces_the_store_classification(bundled_db_master: Path) -> None:
    calls = read(pairwise_calls, bundled_db_master, "mtbench", ["full"])
    mine = classify_pairs(calls).sort_values(["judge", "item_id", "candidate"]).reset_index(drop=True)
    stored = read(pair_outcomes, bundled_db_master, "mtbench", ["full"]).sort_values(
        ["judge", "item_id", "candidate"]).reset_index(drop=True)
    assert len(mine) == len(stored) == 3 * 2400
    assert (mine["classification"] == stored["classification"]).all()
    assert (mine["winner"].fillna("-") == stored["winner"].fillna("-")).all()


def test_hand_made_three_judges() -> None:
    table = pd.DataFrame({"x": ["A", "A", "C", "B", None], "y": ["A", "B", "C", "B", "A"],
                          "z": ["A", "B", "A", "C", "A"]})
    by_pair = {(p.a, p.b): p for p in pairwise_agreements(table)}
    assert (by_pair["x", "y"].n, by_pair["x", "y"].agreement) == (4, 0.75)
    # without ties: rows 0, 1, 3 for x/y (row 2 both tie) -> same on rows 0 and 3
    assert (by_pair["x", "y"].n_without_ties, by_pair["x", "y"].agreement_without_ties) == (3, pytest.approx(2 / 3))
    assert (by_pair["y", "z"].n, by_pair["y", "z"].agreement) == (5, 0.6)
    assert majority_vote(table).tolist()[:2] == ["A", "B"]
    assert pd.isna(majority_vote(table).iloc[2]) is False and majority_vote(table).iloc[2] == "C"
    assert pd.isna(majority_vote(pd.DataFrame({"x": ["A"], "y": ["B"], "z": ["C"]})).iloc[0])
    distribution = disagreement_distribution(table)
    assert distribution.instances == 4  # row 4 lacks x
    assert distribution.counts == {0: 1, 1: 3}


verdict = st.sampled_from(["A", "B", "C", None])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(verdict, verdict, verdict), min_size=1, max_size=40))
def test_agreement_properties(rows: list[tuple[str | None, ...]]) -> None:
    table = pd.DataFrame(rows, columns=["x", "y", "z"])
    for pair in pairwise_agreements(table):
        assert pair.n_without_ties <= pair.n
        if pair.n:
            assert 0 <= pair.agreement <= 1
        swapped = pairwise_agreements(table[[pair.b, pair.a]])[0]
        assert (swapped.n, swapped.n_without_ties) == (pair.n, pair.n_without_ties)
    vote = majority_vote(table)
    for (_, row), chosen in zip(table.iterrows(), vote, strict=True):
        counts = row.value_counts()
        if len(counts) and counts.iloc[0] * 2 > len(row):
            assert chosen == counts.index[0]  # a strict majority always wins
        if pd.notna(chosen):
            assert (row == chosen).sum() == counts.max()


def test_ensemble_outcomes_are_classified_pairs(bundled_db_master: Path) -> None:
    outcomes = read(load_outcomes, bundled_db_master, "mtbench", ["full"], ENSEMBLE_JUDGE)
    assert len(outcomes) == 2400
    assert set(outcomes["classification"]) <= {"consistent", "primacy", "recency", "failed"}


def test_cli_agreement_contract_with_repeatable_study(bundled_db_master: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    payload = run_cli(capsys, bundled_db_master, "metrics", "agreement", "--dataset", "mtbench", "--study", "full")
    assert len(payload["judges"]) == 3
    assert set(payload["pairs"][0]) == {"a", "b", "n", "agreement", "n_without_ties", "agreement_without_ties",
                                        "kappa", "kappa_without_ties", "without_majority"}
    assert payload["judges"] == sorted(payload["judges"]) and all(p["a"] < p["b"] for p in payload["pairs"])
    both = run_cli(capsys, bundled_db_master, "metrics", "agreement", "--dataset", "mtbench", "--study", "full",
                "--study", "repetition", "--repetition", "1")
    assert len(both["judges"]) == 12  # three judges in both studies are told apart by their study
    assert "gpt-4-0613 [full]" in both["judges"]




def test_the_agreement_heatmap_shows_no_rate_without_calls_behind_it(bundled_db_master: Path) -> None:
    """A judge against itself has no shared call: its cell stays blank instead of reading "1.00 (0)"."""
    from judgebias_core.charts.judges import agreement_heatmap

    result = read(agreement_report, bundled_db_master, "mtbench", ["full"])
    for kappa in (False, True):
        heatmap = agreement_heatmap(result, kappa=kappa).data[0]
        cells = [(z, text) for z_row, text_row in zip(heatmap.z, heatmap.text, strict=True)
                 for z, text in zip(z_row, text_row, strict=True)]
        assert not any(str(text).endswith("(0)") for _, text in cells)
        assert sum(text == "" for _, text in cells) >= len(heatmap.z)  # at least the diagonal is blank
        assert all(text.startswith(f"{z:.2f}") for z, text in cells if text)
