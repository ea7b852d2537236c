"""The upload commands of the CLI, and rubric files (YAML / JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgebias_core.cli import build_parser, main
from judgebias_core.errors import ValidationFailed
from judgebias_core.sources.rubric_files import read_rubrics, upload_rubrics
from judgebias_core.store.handle import Store
from tests.upload_helpers import fingerprint, rows

UPLOAD_KINDS = ("items", "pairs", "pairwise-log", "rubric-log", "listwise-log", "rubric")


def _run(db: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["--db", str(db), *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_every_upload_command_has_help_text() -> None:
    upload = build_parser()._subparsers._group_actions[0].choices["upload"]  # type: ignore[union-attr]
    commands = upload._subparsers._group_actions[0]
    assert set(commands.choices) == set(UPLOAD_KINDS)
    for action in commands._choices_actions:
        assert action.help
    for name in UPLOAD_KINDS:
        for argument in commands.choices[name]._actions:
            assert argument.help, f"upload {name} {argument.option_strings} has no help"


def test_pairs_then_log_through_the_cli(upload_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("id,Prompt,Response (ChatGPT),Response (Claude),Winner\n"
                     "p1,Say hi,Hi!,Hello,CHATGPT\np2,Count,1 2 3,one two,TIE\np3,Name,Ann,Bob,claude wins\n")
    status, out, _ = _run(upload_db, capsys, "upload", "pairs", "--file", str(pairs), "--dataset", "cli-pairs",
                          "--preference-map", "claude wins=Claude", "--baseline", "ChatGPT", "--dry-run", "--json")
    preview = json.loads(out)
    assert status == 0 and preview["written"] is False and preview["problems"] == []
    assert preview["candidate_columns"] == {"Response (ChatGPT)": "ChatGPT", "Response (Claude)": "Claude"}
    assert preview["preference_map"] == {"CHATGPT": "ChatGPT", "TIE": "tie", "claude wins": "Claude"}
    assert rows(upload_db, "SELECT count(*) FROM datasets WHERE dataset_id = 'cli-pairs'") == [(0,)]
    status, out, _ = _run(upload_db, capsys, "upload", "pairs", "--file", str(pairs), "--dataset", "cli-pairs",
                          "--preference-map", "claude wins=Claude", "--baseline", "ChatGPT", "--json")
    assert status == 0 and json.loads(out)["inserted"] == {"datasets": 1, "items": 3, "answers": 6, "human_labels": 3}

    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in [
        {"item": "p1", "a": "ChatGPT", "b": "Claude", "out": "[[A]]"},
        {"item": "p1", "a": "Claude", "b": "ChatGPT", "out": "[[B]]"},
        {"item": "p2", "a": "Claude", "b": "ChatGPT", "out": "no idea"},
    ]))
    status, out, _ = _run(upload_db, capsys, "upload", "pairwise-log", "--file", str(log), "--dataset", "cli-pairs",
                          "--judge", "my-judge", "--no-suggest", "--map", "item_id=item", "--map",
                          "first_candidate=a", "--map", "second_candidate=b", "--map", "raw_output=out", "--json")
    result = json.loads(out)
    assert status == 0 and result["inserted"]["judge_calls"] == 3
    assert rows(upload_db, "SELECT classification, winner FROM pair_outcomes WHERE study = ?", [result["run_id"]]) == [
        ("consistent", "ChatGPT")]
    status, out, _ = _run(upload_db, capsys, "runs", "--json")
    assert any(r["run_id"] == result["run_id"] and r["parse_failures"] == 1 for r in json.loads(out))


def test_problems_go_to_stderr_with_exit_status_2(upload_db: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("id,instruction,response\n1,,R\n1,Q,R\n")
    before = fingerprint(upload_db)
    status, out, err = _run(upload_db, capsys, "upload", "items", "--file", str(bad), "--dataset", "cli-bad", "--json")
    assert status == 2 and out == ""
    assert "row 1, column instruction: missing value" in err and "row 2, column id: duplicate item id '1'" in err
    assert fingerprint(upload_db) == before
    bad.write_bytes("id,instruction\n1,café\n".encode("latin-1"))
    status, _, err = _run(upload_db, capsys, "upload", "items", "--file", str(bad), "--dataset", "cli-bad")
    assert status == 2 and "error: bad.csv has 1 problem: row 1" in err and "at line 2 is not UTF-8" in err
    bad.write_text("instruction,response\nQ,R\n")
    status, _, err = _run(upload_db, capsys, "upload", "items", "--file", str(bad), "--dataset", "Not An Id")
    assert status == 2 and "dataset_id: String should match pattern" in err


RUBRIC_YAML = b"""
rubrics:
  - id: helpfulness-3
    criteria: How helpful is the response?
    score_descriptions:
      1: Not helpful.
      "2": Somewhat helpful.
      3: Very helpful.
  - criterion: Is it polite?
    levels: [Rude., Neutral., Polite., Very polite.]
"""


def test_rubric_files_take_both_spellings_and_keys() -> None:
    first, second = read_rubrics(RUBRIC_YAML, "r.yaml")
    assert (first.rubric_id, first.k, first.scores) == ("helpfulness-3", 3, (1, 2, 3))
    assert first.levels[1].description == "Somewhat helpful."
    assert second.k == 4 and second.rubric_id.startswith("upload-") and second.criterion == "Is it polite?"
    as_json = json.dumps({"criterion": "How helpful is the response?",
                          "levels": {"1": "Not helpful.", "2": "Somewhat helpful.", "3": "Very helpful."}}).encode()
    [same] = read_rubrics(as_json, "r.json")
    assert same.levels == first.levels


def test_rubric_problems_are_listed_together() -> None:
    data = b'[{"criteria": "", "levels": {"a": "x", "2": ""}}, {"criterion": "ok", "levels": {"1": "x"}}, 7]'
    with pytest.raises(ValidationFailed) as caught:
        read_rubrics(data, "r.json")
    assert [(p.row, p.column) for p in caught.value.problems] == [
        (1, "criterion"), (1, "levels"), (1, "levels"), (2, "levels"), (3, None)]
    with pytest.raises(ValidationFailed, match="unparseable YAML"):
        read_rubrics(b"criterion: [unclosed", "r.yaml")


def test_rubric_upload_then_scores_on_it(upload_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rubrics.yaml"
    path.write_bytes(RUBRIC_YAML)
    status, out, _ = _run(upload_db, capsys, "upload", "rubric", "--file", str(path), "--json")
    assert status == 0 and json.loads(out)["inserted"] == {"rubrics": 2, "rubric_levels": 7}
    assert sum(upload_rubrics(Store.open(upload_db), RUBRIC_YAML, "rubrics.yaml")[1].inserted.values()) == 0
    with pytest.raises(ValidationFailed, match="already stored with another criterion"):
        upload_rubrics(Store.open(upload_db), RUBRIC_YAML.replace(b"Not helpful.", b"Useless."), "rubrics.yaml")
    items = tmp_path / "items.csv"
    items.write_text("instruction,response,rater_a\nQ1,R1,3\nQ2,R2,4\n")
    status, _, err = _run(upload_db, capsys, "upload", "items", "--file", str(items), "--dataset", "cli-items",
                          "--rubric", "helpfulness-3", "--rater-column", "rater_a=ann")
    assert status == 2 and "row 2, column rater_a: score 4 is not a level of rubric 'helpfulness-3' (1, 2, 3)" in err
