"""Chance-corrected judge agreement on the bundled store: Cohen's kappa per pair, Krippendorff's alpha, the
effective number of judges and the leave-one-out ensemble, read through ``metrics agreement --json``."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as statsmodels_kappa

from judgebias_core.cli import main
from judgebias_core.metrics.agreement import majority_vote, verdict_table
from judgebias_core.store.agreement_queries import pairwise_calls
from tests.app_helpers import open_page
from tests.store_helpers import read


def _kappa_by_statsmodels(first: list[str], second: list[str]) -> float:
    table = pd.crosstab(pd.Series(first), pd.Series(second))
    labels = sorted(set(table.index) | set(table.columns))
    return float(statsmodels_kappa(table.reindex(index=labels, columns=labels, fill_value=0).to_numpy()).kappa)


def _shared_verdicts(db: Path, a: str, b: str, without_ties: bool) -> tuple[list[str], list[str]]:
    """Both judges' parsed verdicts on the MTBench 'full' calls both parsed, straight from SQL."""
    tie_filter = "AND x.verdict <> 'C' AND y.verdict <> 'C'" if without_ties else ""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT x.verdict, y.verdict FROM judge_calls x JOIN judge_calls y USING (dataset_id, study, item_id, "
            "first_candidate, second_candidate, repetition) WHERE x.dataset_id = 'mtbench' AND x.study = 'full' "
            f"AND x.judge = ? AND y.judge = ? AND x.parse_status = 'ok' AND y.parse_status = 'ok' {tie_filter}",
            [a, b]).fetchall()
    return [r[0] for r in rows], [r[1] for r in rows]


@pytest.fixture(scope="module")
def mtbench_agreement(bundled_db_master: Path) -> dict:
    """``metrics agreement --json`` on MTBench 'full', run once in process for the module."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", str(bundled_db_master), "metrics", "agreement", "--dataset", "mtbench",
                     "--study", "full", "--json"]) == 0
    return json.loads(out.getvalue())


def test_pair_kappa_equals_scikit_learn_over_the_calls_agreement_counts(bundled_db_master: Path,
                                                                        mtbench_agreement: dict) -> None:
    for pair in mtbench_agreement["pairs"]:
        for field, without_ties, n in (("kappa", False, pair["n"]), ("kappa_without_ties", True,
                                                                    pair["n_without_ties"])):
            first, second = _shared_verdicts(bundled_db_master, pair["a"], pair["b"], without_ties)
            estimate = pair[field]
            assert estimate["units"] == n == len(first)
            assert estimate["estimate"] == pytest.approx(_kappa_by_statsmodels(first, second))
            assert estimate["method"] == "item-bootstrap" and estimate["items"] == 80
            assert estimate["low"] < estimate["estimate"] < estimate["high"]


def test_alpha_and_effective_judges_are_reported(mtbench_agreement: dict) -> None:
    alpha = mtbench_agreement["krippendorff_alpha"]
    assert alpha["items"] == 80 and alpha["method"] == "item-bootstrap"
    assert alpha["low"] < alpha["estimate"] < alpha["high"]
    # three judges whose pairwise kappas lie between 0.3 and 0.45: alpha sits among them
    kappas = [p["kappa"]["estimate"] for p in mtbench_agreement["pairs"]]
    assert min(kappas) - 0.05 < alpha["estimate"] < max(kappas) + 0.05
    effective = mtbench_agreement["effective_judges"]
    assert 1 <= effective["effective"] <= 3 and len(effective["judges"]) == 3
    k, r = 3, effective["mean_correlation"]
    assert effective["effective"] == pytest.approx(k / (1 + (k - 1) * r))


def test_ensemble_rows_are_leave_one_out(bundled_db_master: Path, mtbench_agreement: dict) -> None:
    table = verdict_table(read(pairwise_calls, bundled_db_master, "mtbench", ["full"]))
    for row in mtbench_agreement["ensemble_pairs"]:
        judge = row["a"]
        others = majority_vote(table.drop(columns=[judge]))
        parsed = table[judge].notna()
        scored = parsed & others.notna()
        assert row["n"] == int(scored.sum())
        assert row["agreement"] == pytest.approx(float((table[judge][scored] == others[scored]).mean()))
        assert row["without_majority"] == pytest.approx(float(others[parsed].isna().mean()))
    gpt4 = next(r for r in mtbench_agreement["ensemble_pairs"] if r["a"] == "gpt-4-0613")
    assert gpt4["agreement"] == pytest.approx(0.7265, abs=5e-5)  # not 0.806: its own vote is left out
    assert "leave-one-out" in mtbench_agreement["ensemble_comparison"]


def test_cli_text_names_kappa_and_alpha(bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--db", str(bundled_db_master), "metrics", "agreement", "--dataset", "mtbench", "--study",
                 "full"]) == 0
    text = capsys.readouterr().out
    assert "kappa 0.3431 [" in text and "Krippendorff's alpha (nominal) 0.3745" in text


def test_judges_page_heatmap_switches_to_kappa(app_env: Path) -> None:
    at = open_page("judges.py")
    pairs = at.dataframe[0].value
    assert {"kappa", "kappa low", "kappa high", "no majority among the others"} <= set(pairs.columns)
    next(r for r in at.radio if r.label == "Heatmap shows").set_value("Cohen's kappa").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "item-bootstrap" in captions and "leave-one-out" in captions
    assert any(m.label.startswith("Krippendorff") for m in at.metric)
