"""`metrics ppi` on the bundled Auto-J pairs: the figures equal the PPI primitive on the raw bundled files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judgebias_core.cli import main
from judgebias_core.stats.ppi import prediction_powered_mean
from tests.test_metrics_agreement import run_cli
from tests.test_stats_ppi import _HUMAN, AUTOJ


def _raw_item_values() -> pd.DataFrame:
    """Per Auto-J pair (item ids as the store sorts them): response_1's human and judge values from the files."""
    pairs = pd.read_json(AUTOJ / "pairs.jsonl.gz", lines=True)
    verdicts = pd.read_json(AUTOJ / "autoj_verdicts.jsonl.gz", lines=True)
    winner = np.where(verdicts["verdict"] == "first", verdicts["first"],
                      np.where(verdicts["verdict"] == "second", verdicts["second"], "tie"))
    judge = verdicts.assign(value=pd.Series(winner).map(_HUMAN).to_numpy()).groupby("pair_id")["value"].mean()
    frame = pd.DataFrame({"human": pairs.set_index("pair_id")["human_label"].map(_HUMAN), "judge": judge})
    return frame.set_axis(frame.index.astype(str)).sort_index()


@pytest.mark.parametrize(("fraction", "seed"), [(0.1, 0), (0.25, 7)])
def test_ppi_cli_equals_the_primitive_on_the_raw_files(bundled_db_master: Path, capsys: pytest.CaptureFixture[str],
                                                       fraction: float, seed: int) -> None:
    payload = run_cli(capsys, bundled_db_master, "metrics", "ppi", "--dataset", "autoj", "--judge", "auto-j-13b",
                      "--label-fraction", str(fraction), "--seed", str(seed))
    raw = _raw_item_values()
    assert payload["candidate"] == "response_1" and payload["items"] == len(raw) == 1392
    assert payload["all_labels_human_win_rate"] == pytest.approx(raw["human"].mean())
    keep = round(fraction * len(raw))
    labelled = np.zeros(len(raw), dtype=bool)
    labelled[np.random.default_rng(seed).choice(len(raw), size=keep, replace=False)] = True
    human, judge = raw["human"].to_numpy(), raw["judge"].to_numpy()
    expected = prediction_powered_mean(human[labelled], judge[labelled], judge[~labelled])
    estimate = payload["estimate"]
    assert payload["labelled"] == keep == estimate["labelled"]
    for name in ("ppi", "human_only", "judge_only"):
        for bound in ("estimate", "low", "high"):
            assert estimate[name][bound] == pytest.approx(getattr(getattr(expected, name), bound))
    assert estimate["ppi"]["low"] < payload["all_labels_human_win_rate"] < estimate["ppi"]["high"]
    # the judge's labels are worth something: the PPI++ interval is narrower than the human-only one
    assert estimate["ppi"]["high"] - estimate["ppi"]["low"] < estimate["human_only"]["high"] - estimate["human_only"]["low"]


def test_ppi_cli_rejects_a_fraction_that_leaves_too_few_labels(bundled_db_master: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(bundled_db_master), "metrics", "ppi", "--dataset", "autoj", "--judge", "auto-j-13b",
                 "--label-fraction", "0.001"]) != 0
    assert "at least two labelled" in capsys.readouterr().err
