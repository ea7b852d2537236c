"""The corrected family of pairwise tests, the lean it allows, and degenerate intervals kept out of the forest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from judgebias_core.analyses.pairwise import pairwise_metrics
from judgebias_core.charts.pairwise import flip_rate_forest
from judgebias_core.metrics.pairwise import pairwise_metrics_from_counts
from judgebias_core.metrics.pairwise_family import corrected_column, leans, pairwise_family
from judgebias_core.stats.position_test import position_test
from judgebias_core.store.handle import Store
from tests.store_helpers import read
from tests.test_pairwise_fairness import item_rows, unit


@pytest.fixture(scope="module")
def mtbench(bundled_db_master: Path) -> list:
    return read(pairwise_metrics, bundled_db_master, "mtbench")


def test_family_is_every_position_and_excess_test_corrected_together(mtbench: list) -> None:
    family = pairwise_family(mtbench)
    raw = [p for r in mtbench for p in (r.position_p, r.flip_rate_excess_p) if p is not None]
    assert family.family_size == len(raw) == 57  # 30 rows, 27 with a repetition floor
    holm = multipletests(raw, method="holm")[1]
    assert sorted(family.corrected) == pytest.approx(sorted(holm))
    bh = pairwise_family(mtbench, "fdr_bh")
    assert sorted(bh.corrected) == pytest.approx(sorted(multipletests(raw, method="fdr_bh")[1]))
    gemini = next(r for r in mtbench if r.judge == "gemini-pro" and r.study == "full")
    gpt4 = next(r for r in mtbench if r.judge == "gpt-4-0613" and r.study == "full")
    assert leans(gemini, family) == "second" and leans(gpt4, family) is None
    assert all(c >= p for c, p in zip(corrected_column(mtbench, family), [r.position_p for r in mtbench],
                                      strict=True))


def test_position_p_from_counts_equals_the_per_pair_test(bundled_db_master: Path, mtbench: list) -> None:
    with Store(bundled_db_master).reader() as reader:
        pairs = reader.frame("SELECT item_id, verdict_original, verdict_swapped FROM pair_outcomes WHERE "
                             "dataset_id = 'mtbench' AND study = 'full' AND judge = 'gpt-4-0613' "
                             "AND classification <> 'failed'")
    direct = position_test(pairs["item_id"].tolist(), pairs["verdict_original"].tolist(),
                           pairs["verdict_swapped"].tolist())
    gpt4 = next(r for r in mtbench if r.judge == "gpt-4-0613" and r.study == "full")
    assert gpt4.position_p == pytest.approx(direct.p_value, rel=1e-12)
    assert (gpt4.position_pick_share_low, gpt4.position_pick_share_high) == pytest.approx((direct.low, direct.high))
    assert gpt4.position_p == pytest.approx(0.2829, abs=1e-4) and gpt4.binomial_p == pytest.approx(0.0287, abs=1e-4)


def test_a_degenerate_interval_is_not_drawn() -> None:
    units = pd.DataFrame([unit("steady", f"c{i}", "t", 4, 0, 0, 0) for i in range(3)]
                         + [unit("flaky", f"c{i}", "t", 2, 1, 1, 0) for i in range(3)])
    results = pairwise_metrics_from_counts(units, item_rows(units), pd.DataFrame(), resamples=50)
    steady = next(r for r in results if r.judge == "steady")
    assert steady.flip_rate_degenerate and steady.flip_rate_decision_method == "exact-zero-events"
    band = flip_rate_forest(results).data[1]
    widths = dict(zip([r.judge for r in results], np.add(band.error_x.array, band.error_x.arrayminus), strict=True))
    assert widths["steady"] == 0 and widths["flaky"] > 0


def test_direction_sentence_reads_the_corrected_test(mtbench: list) -> None:
    from dataclasses import replace

    from judgebias_core.wording.pairwise_phrasing import direction_sentence

    family = pairwise_family(mtbench)
    gemini = next(r for r in mtbench if r.judge == "gemini-pro" and r.study == "full")
    gpt4 = next(r for r in mtbench if r.judge == "gpt-4-0613" and r.study == "full")
    assert direction_sentence(gemini, family).startswith("Almost all of those changes favour the answer shown "
                                                         "second (873 of 1,018 changes; corrected p < 0.001")
    assert "Holm correction over 57 tests shown together: unlikely to be chance" in direction_sentence(gemini, family)
    assert direction_sentence(gpt4, family).startswith("Those changes do not clearly favour either place")
    # A lean whose whole-count majority points the other way (ties weigh half in the test) says "on balance".
    mixed = replace(gemini, primacy=600, recency=418)
    assert direction_sentence(mixed, family).startswith("On balance, counting a change to or from a tie as half")
