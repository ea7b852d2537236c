"""All-pairs uploads: a pair's candidate and opponent follow a rule on names, so file order changes no metric."""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from judgebias_core.analyses.pairwise import pairwise_metrics, unit_metrics
from judgebias_core.sources.upload import suggest_spec, upload_file
from judgebias_core.sources.upload_read import read_table
from judgebias_core.store.handle import Store
from tests.upload_helpers import rows

CANDIDATES = ("alpaca-13b", "claude-v1", "chatglm-6b", "dolly-v2-12b")  # none is MTBench's baseline
VERDICTS = "ABCAABBCACBBAACB"


def _log(reverse: bool) -> bytes:
    lines = []
    letters = itertools.cycle(VERDICTS)
    for item in ("81", "82", "83"):
        for first, second in itertools.combinations(CANDIDATES, 2):
            lines += [(item, first, second, next(letters)), (item, second, first, next(letters))]
    if reverse:  # the mirror of every pair now comes first in the file
        lines = lines[::-1]
    return ("item,first,second,judge,verdict\n" + "".join(f"{i},{a},{b},j,{v}\n" for i, a, b, v in lines)).encode()


def _upload(path: Path, data: bytes, name: str) -> str:
    spec = suggest_spec(read_table(data, name), "pairwise-log", "mtbench")
    result = upload_file(Store.open(path), data, name, spec)
    assert result.run_id is not None
    return result.run_id


def test_the_same_upload_in_two_file_orders_gives_identical_metrics(upload_db: Path) -> None:
    forward, backward = _upload(upload_db, _log(False), "forward.csv"), _upload(upload_db, _log(True), "backward.csv")
    labels = "SELECT first_candidate, second_candidate, order_label FROM judge_calls WHERE run_id = ? ORDER BY ALL"
    assert rows(upload_db, labels, [forward]) != rows(upload_db, labels, [backward])  # the files did differ
    with Store(upload_db).reader() as reader:
        units = [unit_metrics(reader, "mtbench", run) for run in (forward, backward)]
        judged = [pairwise_metrics(reader, "mtbench", study=run) for run in (forward, backward)]
    pd.testing.assert_frame_equal(*units)
    assert len(units[0]) == 3  # one unit per candidate that is not the first name of its pairs, one task
    one, other = (vars(r[0]) for r in judged)
    assert {k: v for k, v in one.items() if k != "study"} == {k: v for k, v in other.items() if k != "study"}
    # The rule: the name that sorts first is the opponent.
    oriented = rows(upload_db, "SELECT DISTINCT opponent < candidate FROM pair_outcomes WHERE study IN (?, ?)",
                    [forward, backward])
    assert oriented == [(True,)]


def test_a_declared_reference_is_the_opponent_of_its_pairs(upload_db: Path) -> None:
    data = _log(True)
    spec = suggest_spec(read_table(data, "ref.csv"), "pairwise-log", "mtbench", original_first="dolly-v2-12b")
    run = upload_file(Store.open(upload_db), data, "ref.csv", spec).run_id
    opponents = rows(upload_db, "SELECT candidate, opponent FROM pair_outcomes WHERE study = ? AND "
                                "'dolly-v2-12b' IN (candidate, opponent) GROUP BY ALL ORDER BY ALL", [run])
    assert {opponent for _, opponent in opponents} == {"dolly-v2-12b"} and len(opponents) == 3
