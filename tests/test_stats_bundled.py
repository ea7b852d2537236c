"""The stats primitives on the bundled MTBench swap pairs, read with plain pandas (not the store): the figures the
gate and pages will show once they are wired in."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judgebias_core.stats.clustered import clustered_rate
from judgebias_core.stats.position_test import position_test

MTBENCH = Path(__file__).resolve().parents[1] / "data" / "judging-the-judges" / "mtbench_judgments.jsonl.gz"
BASELINE = "vicuna-13b-v1.3"
_VERDICT = re.compile(r"\[\[([ABCD])\]\]")  # the authors' rule: the first match


def _pairs(judge: str) -> pd.DataFrame:
    calls = pd.read_json(MTBENCH, lines=True)
    calls = calls[(calls["study"] == "full") & (calls["judge"] == judge)]
    verdict = calls["raw_output"].map(lambda text: m.group(1) if (m := _VERDICT.search(text or "")) else None)
    calls = calls.assign(verdict=verdict, candidate=np.where(calls["first"] == BASELINE, calls["second"], calls["first"]))
    key = ["item_id", "candidate"]
    original = calls[calls["first"] == BASELINE].set_index(key)["verdict"]
    swapped = calls[calls["second"] == BASELINE].set_index(key)["verdict"]
    pairs = pd.concat({"original": original, "swapped": swapped}, axis=1).reset_index()
    return pairs[pairs["original"].isin(["A", "B", "C"]) & pairs["swapped"].isin(["A", "B", "C"])]


def test_gpt4_mtbench_flip_rate_clustered_bound_exceeds_the_wilson_one() -> None:
    pairs = _pairs("gpt-4-0613")
    consistent = {("A", "B"), ("B", "A"), ("C", "C")}
    flipped = [(o, s) not in consistent for o, s in zip(pairs["original"], pairs["swapped"])]
    per_item = pairs.assign(flip=flipped).groupby("item_id")["flip"].agg(["sum", "size"])
    result = clustered_rate(per_item["sum"].to_numpy(), per_item["size"].to_numpy())
    assert (result.events, result.pairs, result.items) == (443, 2400, 80)
    assert result.method == "studentized-item-bootstrap" and result.design_effect == pytest.approx(2.35, abs=0.01)
    # gate --max-flip-rate 0.205 passes on Wilson's upper bound and fails on the clustered one
    assert result.iid.high < 0.205 < result.high
    test = position_test(pairs["item_id"].astype(str).tolist(), pairs["original"].tolist(), pairs["swapped"].tolist())
    assert test.items == 80 and test.p_value > 0.05 and test.design_effect > 2
