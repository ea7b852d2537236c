"""Uploads of list-wise judge logs: calls stored as the engine stores them, list-wise metrics on them by hand,
every problem listed, failures kept, idempotent, and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import binomtest, norm

from judgebias_core.analyses.pairwise import listwise_metrics
from judgebias_core.cli import main
from judgebias_core.errors import ValidationFailed
from judgebias_core.sources.upload import UploadResult, prepare_upload, suggest_spec, upload_file
from judgebias_core.sources.upload_listwise_checks import pick_verdict
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.store.handle import Store
from judgebias_core.store.pairwise_queries import pairwise_scope
from judgebias_core.store.queries import list_runs
from tests.store_helpers import read
from tests.upload_helpers import fingerprint, rows

G, C, L, A = "gpt-4", "claude-v1", "llama-13b", "alpaca-13b"  # mtbench candidates with an answer to every item
GCL = [[G, C, L], [C, L, G], [L, G, C]]  # the three cyclic orders of one candidate set
GCLA = [[G, C, L, A], [C, L, A, G], [L, A, G, C], [A, G, C, L]]


def _slots(order: list[str], as_json: bool) -> str:
    """A slots cell of the CSV: a JSON list or comma-separated names (both formats in one file)."""
    return '"' + json.dumps(order).replace('"', '""') + '"' if as_json else '"' + ",".join(order) + '"'


# (item, repetition, slots, raw reply, given pick): the pick names a slot by letter, number or candidate name.
CALLS: list[tuple[str, int, list[str], str, str]] = [
    ("81", 1, GCL[0], "The first is best. [[A]]", ""),  # gpt-4 in every order: consistent
    ("81", 1, GCL[1], "", "C"),
    ("81", 1, GCL[2], "", G),
    ("82", 1, GCL[0], "", "A"),  # always the first slot: primacy (first picks 3, later 0)
    ("82", 1, GCL[1], "", "1"),
    ("82", 1, GCL[2], "[[a]]", ""),
    ("83", 1, GCL[0], "", "c"),  # always the last slot: recency (first 0, later 3)
    ("83", 1, GCL[1], "", "3"),
    ("83", 1, GCL[2], "Verdict: [[C]]", ""),
    ("85", 1, GCL[0], "", "B"),  # one reply without a verdict: the group failed
    ("85", 1, GCL[1], "I prefer the second answer.", ""),
    ("85", 1, GCL[2], "", "B"),
    ("86", 1, GCL[0], "", "A"),  # gpt-4, llama-13b, gpt-4: inconsistent with 1 first pick of 3 = 1/p: undirected
    ("86", 1, GCL[1], "", "B"),
    ("86", 1, GCL[2], "", "B"),
    ("81", 2, GCL[0], "", "A"),  # repetition 2: primacy (first 3, later 0)
    ("81", 2, GCL[1], "", "A"),
    ("81", 2, GCL[2], "", "A"),
    ("84", 1, GCLA[0], "", "A"),  # p = 4: gpt-4, llama-13b, llama-13b, alpaca-13b: first 3 of 4 > 1/4: primacy
    ("84", 1, GCLA[1], "", "B"),
    ("84", 1, GCLA[2], "", "A"),
    ("84", 1, GCLA[3], "[[A]]", ""),
]
LOG = ("question_id,candidates,judge,reply,choice,rep\n" + "".join(
    f"{item},{_slots(order, n % 2 == 0)},lw-judge,{reply},{pick},{rep}\n"
    for n, (item, rep, order, reply, pick) in enumerate(CALLS))).encode()


def _spec(data: bytes, name: str, **settings: object) -> UploadSpec:
    return suggest_spec(read_table(data, name), "listwise-log", "mtbench", **settings)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def uploaded(upload_db: Path) -> UploadResult:
    return upload_file(Store.open(upload_db), LOG, "listwise.csv", _spec(LOG, "listwise.csv"))


def _wilson(successes: int, trials: int) -> tuple[float, float]:
    z = norm.ppf(0.975)
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return centre - half, centre + half


def test_columns_are_suggested_from_the_header() -> None:
    assert _spec(LOG, "listwise.csv").columns == {"item_id": "question_id", "slots": "candidates", "judge": "judge",
                                                  "raw_output": "reply", "pick": "choice", "repetition": "rep"}


def test_calls_are_stored_as_the_engine_stores_list_wise_calls(upload_db: Path, uploaded: UploadResult) -> None:
    assert uploaded.inserted == {"judges": 1, "runs": 1, "judge_calls": len(CALLS)}
    stored = rows(upload_db, "SELECT item_id, repetition, slots, first_candidate, second_candidate, options, "
                             "order_label, verdict, parse_status, parser FROM judge_calls WHERE run_id = ? "
                             "AND item_id IN ('81', '84') ORDER BY repetition, item_id, order_label",
                  [uploaded.run_id])
    assert stored[:3] == [
        ("81", 1, GCL[0], G, C, None, "original", "A", "ok", "listwise"),
        ("81", 1, GCL[1], C, L, None, "rotation-1", "C", "ok", "pre-parsed"),
        ("81", 1, GCL[2], L, G, None, "rotation-2", "B", "ok", "pre-parsed"),  # the pick named gpt-4: slot B
    ]
    assert [(r[0], r[6], r[7]) for r in stored[3:]] == [
        ("84", "original", "A"), ("84", "rotation-1", "B"), ("84", "rotation-2", "A"), ("84", "rotation-3", "A"),
        ("81", "original", "A"), ("81", "rotation-1", "A"), ("81", "rotation-2", "A")]
    assert rows(upload_db, "SELECT DISTINCT kind, rubric_id, ordering, score, chosen_position FROM judge_calls "
                           "WHERE run_id = ?", [uploaded.run_id]) == [("listwise", None, None, None, None)]
    run = Store(upload_db).read(list_runs).set_index("run_id").loc[uploaded.run_id]
    assert (run["origin"], run["protocol"], run["study"], run["judge"]) == (
        "upload", "listwise", uploaded.run_id, "lw-judge")
    scope = read(pairwise_scope, upload_db)
    assert set(scope.loc[scope["study"] == uploaded.run_id, "kind"]) == {"listwise"}  # the Pairwise bias page's filter


def test_listwise_metrics_match_the_hand_count(upload_db: Path, uploaded: UploadResult) -> None:
    results = {(r.repetition, r.options): r for r in read(listwise_metrics, upload_db, "mtbench", study=uploaded.run_id)}
    assert set(results) == {(1, 3), (2, 3), (1, 4)}
    three = results[(1, 3)]
    # items 81 consistent, 82 primacy, 83 recency, 85 failed, 86 undirected
    assert (three.groups, three.failed_groups, three.consistent, three.primacy, three.recency, three.undirected) == (
        5, 1, 1, 1, 1, 1)
    assert three.position_consistency == pytest.approx(1 / 4) and three.flip_rate == pytest.approx(3 / 4)
    assert (three.flip_rate_ci_low, three.flip_rate_ci_high) == pytest.approx(_wilson(3, 4))
    # first-slot picks of the inconsistent groups: 3 (82) + 0 (83) + 1 (86); later: 0 + 3 + 2
    assert (three.first_slot_picks, three.later_slot_picks) == (4, 5)
    assert three.first_slot_share == pytest.approx(4 / 9)
    assert three.binomial_p == pytest.approx(binomtest(4, 9, 1 / 3).pvalue)
    second = results[(2, 3)]
    assert (second.groups, second.primacy, second.first_slot_picks, second.later_slot_picks) == (1, 1, 3, 0)
    four = results[(1, 4)]
    assert (four.groups, four.primacy, four.first_slot_picks, four.later_slot_picks) == (1, 1, 3, 1)
    assert four.expected_first_slot_share == pytest.approx(1 / 4)


def test_unparseable_replies_and_bad_picks_are_kept_as_failed(upload_db: Path, uploaded: UploadResult) -> None:
    assert rows(upload_db, "SELECT raw_output, verdict, parse_status, parser, error FROM judge_calls "
                           "WHERE run_id = ? AND parse_status != 'ok'", [uploaded.run_id]) == [
        ("I prefer the second answer.", None, "failed", "listwise", "no [[letter]] in the reply")]
    data = (f"item_id,slots,judge,reply,pick\n"
            f"81,{_slots(GCL[0], False)},j,[[D]],\n"
            f"81,{_slots(GCL[1], False)},j,[[NONE]],\n"
            f"81,{_slots(GCL[2], False)},j,,D\n"
            f"82,{_slots(GCL[0], False)},j,,{A}\n"
            f"82,{_slots(GCL[1], False)},j,,none\n").encode()
    result = upload_file(Store.open(upload_db), data, "fails.csv", _spec(data, "fails.csv"))
    wanted = "a pick (a slot letter A-C, a slot number 1-3, a candidate in the slots; 'no clear winner' is not " \
             "allowed here)"
    assert rows(upload_db, "SELECT item_id, raw_output, verdict, parse_status, parser, error FROM judge_calls "
                           "WHERE run_id = ? ORDER BY item_id, order_label", [result.run_id]) == [
        ("81", "[[D]]", None, "failed", "listwise", "slot D does not exist (only 3 candidates)"),
        ("81", "[[NONE]]", None, "failed", "listwise", "'no clear winner' was not allowed"),
        ("81", None, None, "failed", "pre-parsed", f"'D' is not {wanted}"),
        ("82", None, None, "failed", "pre-parsed", f"'{A}' is not {wanted}"),
        ("82", None, None, "failed", "pre-parsed", f"'none' is not {wanted}"),
    ]
    allowed = upload_file(Store.open(upload_db), data, "fails.csv", _spec(data, "fails.csv", allow_none=True))
    assert allowed.run_id != result.run_id
    assert rows(upload_db, "SELECT verdict, parser FROM judge_calls WHERE run_id = ? AND parse_status = 'ok' "
                           "ORDER BY parser", [allowed.run_id]) == [("none", "listwise"), ("none", "pre-parsed")]


def test_picks_name_one_slot_or_fail() -> None:
    slots = ["x", "B", "y"]
    assert [pick_verdict(p, slots, False)[0] for p in ("a", "3", "y", " x ", "none")] == ["A", "C", "C", "A", None]
    assert pick_verdict("none", slots, True) == ("none", "")
    # "B" is slot B and the candidate in slot B: one meaning; "b" is slot B only. A name in another slot than
    # its letter is refused, never guessed.
    assert pick_verdict("B", slots, False) == ("B", "")
    assert pick_verdict("C", ["C", "x", "y"], False) == (None, "one pick (it could mean slot A or C)")


def test_every_problem_is_listed_and_nothing_written(upload_db: Path) -> None:
    lines = [
        {"item_id": "nope", "slots": GCL[0], "judge": "j", "pick": "A"},
        {"item_id": "81", "slots": [G, C, "gpt-5"], "judge": "j", "pick": "A"},
        {"item_id": "81", "slots": [G, G, C], "judge": "j", "pick": "A"},
        {"item_id": "81", "slots": f"{G},{C}", "judge": "j", "pick": "A"},
        {"item_id": "81", "slots": GCL[1], "judge": "j", "pick": ["A"]},
        {"item_id": "81", "slots": GCL[2], "judge": "j", "pick": "A", "repetition": 0},
        {"item_id": "82", "slots": GCL[0], "judge": "j", "pick": None},
        {"item_id": "83", "slots": GCL[0], "judge": "j", "pick": "A"},
        {"item_id": "83", "slots": GCL[0], "judge": "j", "pick": "B"},
    ]
    data = "\n".join(json.dumps(line) for line in lines).encode()
    before = fingerprint(upload_db)
    with pytest.raises(ValidationFailed) as caught:
        upload_file(Store.open(upload_db), data, "bad.jsonl", _spec(data, "bad.jsonl"))
    assert {(p.row, p.column, p.reason) for p in caught.value.problems} == {
        (1, "item_id", "item 'nope' is not in dataset 'mtbench'"),
        (2, "slots", "candidate 'gpt-5' has no answer to item '81' in 'mtbench'"),
        (3, "slots", "candidate 'gpt-4' appears in more than one slot"),
        (4, "slots", "2 candidate(s) in the slots; a list-wise call shows 3 or more"),
        (5, "pick", "expected text, got a list"),
        (6, "repetition", "repetition 0 must be 1 or more"),
        (7, "pick", "missing value: give the raw reply or the pick"),
        (9, None, f'duplicate call (same item, slots, judge and repetition) \'83 / {json.dumps(GCL[0])} / j / 1\' '
                  "(first on row 8)"),
    }
    assert fingerprint(upload_db) == before
    pointwise = prepare_upload(Store.open(upload_db), data, "bad.jsonl", _spec(data, "bad.jsonl").model_copy(
        update={"dataset_id": "summeval"}))
    assert (pointwise.problems[0].row, pointwise.problems[0].reason) == (
        None, "dataset 'summeval' is pointwise; this log needs a pairwise dataset")


def test_the_same_file_again_changes_nothing(upload_db: Path, uploaded: UploadResult) -> None:
    before = fingerprint(upload_db)
    again = upload_file(Store.open(upload_db), LOG, "listwise.csv", _spec(LOG, "listwise.csv"))
    assert again.run_id == uploaded.run_id and again.already_stored
    assert sum(again.inserted.values()) == 0 and fingerprint(upload_db) == before


def test_listwise_log_through_the_cli(upload_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(json.dumps({"item": "90", "shown": order, "best": order.index(G) + 1, "rep": 1})
                             for order in GCL))
    argv = ["--db", str(upload_db), "upload", "listwise-log", "--dataset", "mtbench", "--file", str(log),
            "--judge", "cli-lw", "--map", "item_id=item", "--map", "pick=best", "--json"]
    assert main([*argv, "--dry-run"]) == 0
    preview = json.loads(capsys.readouterr().out)
    assert preview["written"] is False and preview["problems"] == [] and preview["counts"]["judge_calls"] == 3
    assert preview["mapping"] == {"item_id": "item", "slots": "shown", "pick": "best", "repetition": "rep"}
    assert rows(upload_db, "SELECT count(*) FROM judge_calls WHERE judge = 'cli-lw'") == [(0,)]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["written"] is True and result["inserted"]["judge_calls"] == 3
    assert main(["--db", str(upload_db), "metrics", "listwise", "--dataset", "mtbench", "--study", result["run_id"],
                 "--json"]) == 0
    [metrics] = json.loads(capsys.readouterr().out)
    assert (metrics["judge"], metrics["groups"], metrics["consistent"]) == ("cli-lw", 1, 1)
    log.write_text(json.dumps({"item": "90", "shown": [G, C], "best": 1}))
    assert main(argv) == 2
    assert "row 1, column shown: 2 candidate(s) in the slots" in capsys.readouterr().err
