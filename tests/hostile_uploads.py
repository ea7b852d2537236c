"""Hostile upload files for every upload kind and format: each must be refused with one clear line, exit 2.

Every case targets the small datasets ``prepare_targets`` stores (so a case fails only for what makes it hostile):
a pairwise dataset with candidates alpha, beta and gamma, a pointwise one, and a 3-level rubric.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

DEEP = 200_000
PAIRS_DATASET = "hx-pairs"
ITEMS_DATASET = "hx-items"
RUBRIC_ID = "hx-r3"
TARGET_PAIRS = ("id,prompt,Response (alpha),Response (beta),Response (gamma)\n"
                "p1,Say hi,Hi,Hello,Hey\np2,Count,1 2 3,one two three,I II III\n")
TARGET_RUBRIC = (f"id: {RUBRIC_ID}\ncriterion: Is it right?\nlevels:\n  1: Wrong.\n  2: Partly right.\n"
                 "  3: Right.\n")
TARGET_ITEMS = "id,instruction,response\ni1,Q1,R1\ni2,Q2,R2\n"


@dataclass(frozen=True)
class HostileFile:
    """One hostile upload: the CLI arguments after ``upload``, the file, and what stderr must say."""

    name: str
    command: tuple[str, ...]  # e.g. ("pairwise-log", "--dataset", "hx-pairs", "--judge", "j")
    file_name: str
    data: bytes
    expected: str  # a part of the one error line


def _frame_bytes(frame: pd.DataFrame, kind: str) -> bytes:
    buffer = io.BytesIO()
    if kind == "parquet":
        frame.to_parquet(buffer, index=False)
    elif kind == "xlsx":
        frame.to_excel(buffer, index=False)
    elif kind == "jsonl":
        return frame.to_json(orient="records", lines=True, force_ascii=True).encode()
    else:
        return frame.to_csv(index=False).encode()
    return buffer.getvalue()


def _lines(*records: dict[str, object] | str) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records).encode()


def _deep_json(value: str = "1") -> str:
    return "[" * DEEP + value + "]" * DEEP


ITEMS = ("items", "--dataset", "hx-new-items")
PAIRS = ("pairs", "--dataset", "hx-new-pairs")
PAIR_LOG = ("pairwise-log", "--dataset", PAIRS_DATASET, "--judge", "hx-judge")
RUBRIC_LOG = ("rubric-log", "--dataset", ITEMS_DATASET, "--judge", "hx-judge")
LIST_LOG = ("listwise-log", "--dataset", PAIRS_DATASET, "--judge", "hx-judge")
RUBRIC = ("rubric",)
_CALL = {"item_id": "p1", "first_candidate": "alpha", "second_candidate": "beta", "verdict": "A"}
_TRIAL = {"item_id": "i1", "ordering": "1,2,3", "score": 2}
_LIST_CALL = {"item_id": "p1", "slots": "alpha,beta,gamma", "pick": "A"}
_ITEM = {"id": "n1", "instruction": "Q", "response": "R"}
_PAIR = {"id": "n1", "prompt": "Q", "Response (alpha)": "a", "Response (beta)": "b"}


def _rubric(levels: str, extra: str = "") -> bytes:
    return f"id: hx-bad\ncriterion: Is it right?\n{extra}levels:\n{levels}".encode()


def hostile_files() -> list[HostileFile]:
    control = "bad\x00text"
    escape = "bad\x1b[31mred"
    big_level = "  1: Low.\n  100000000000000000000: High.\n"
    return [
        # Nesting: a whole document, one row of JSON Lines, one cell holding JSON.
        HostileFile("items-json-deep", ITEMS, "items.json", _deep_json().encode(), "nested too deeply"),
        HostileFile("items-jsonl-deep", ITEMS, "items.jsonl", _lines(_ITEM, '{"id": "n2", "instruction": '
                                                                     + _deep_json() + "}"),
                    "row 2, column -: nested too deeply"),
        HostileFile("items-csv-deep-cell", ITEMS + ("--rubric", RUBRIC_ID), "items.csv",
                    f"instruction,response,scores\nQ,R,\"{'[' * DEEP}\"\n".encode(),
                    "row 1, column scores: nested too deeply"),
        HostileFile("pairs-jsonl-deep", PAIRS, "pairs.jsonl",
                    _lines(_PAIR, _PAIR | {"id": "n2"}, '{"id": ' + _deep_json() + "}"), "row 3, column -: nested too"),
        HostileFile("pairwise-log-json-deep", PAIR_LOG, "log.json", _deep_json().encode(), "nested too deeply"),
        HostileFile("listwise-log-csv-deep-slots", LIST_LOG, "log.csv",
                    f"item_id,slots,pick\np1,\"alpha,beta,gamma\",A\np1,\"{'[' * DEEP}\",A\n".encode(),
                    "column slots: nested too deeply"),
        HostileFile("rubric-log-jsonl-deep", RUBRIC_LOG, "log.jsonl", _lines(_TRIAL, '{"ordering": '
                                                                             + _deep_json() + "}"),
                    "row 2, column -: nested too deeply"),
        HostileFile("rubric-yaml-deep", RUBRIC, "r.yaml", _deep_json().encode(), "nested too deeply"),
        HostileFile("rubric-json-deep", RUBRIC, "r.json", _deep_json().encode(), "nested too deeply"),
        # Integers that do not fit.
        HostileFile("pairwise-log-csv-repetition", PAIR_LOG, "log.csv",
                    _frame_bytes(pd.DataFrame([_CALL | {"repetition": "99999999999"}]), "csv"),
                    "row 1, column repetition: repetition 99999999999 is out of range"),
        HostileFile("pairwise-log-xlsx-repetition", PAIR_LOG, "log.xlsx",
                    _frame_bytes(pd.DataFrame([_CALL | {"repetition": 2**31}]), "xlsx"),
                    "row 1, column repetition: repetition 2147483648 is out of range"),
        HostileFile("rubric-log-jsonl-repetition", RUBRIC_LOG, "log.jsonl",
                    _lines(_TRIAL | {"repetition": 10**20}), "row 1, column repetition: repetition 1000000"),
        HostileFile("listwise-log-parquet-repetition", LIST_LOG, "log.parquet",
                    _frame_bytes(pd.DataFrame([_LIST_CALL | {"repetition": 2**40}]), "parquet"),
                    "row 1, column repetition: repetition 1099511627776 is out of range"),
        HostileFile("rubric-level-1e20", RUBRIC, "r.yaml", _rubric(big_level), "level 100000000000000000000 is "
                                                                                "out of range"),
        HostileFile("rubric-level-2-31", RUBRIC, "r.json",
                    json.dumps({"criterion": "c", "levels": {"1": "a", str(2**31): "b"}}).encode(),
                    "level 2147483648 is out of range"),
        # NUL and control characters, the same policy in every format.
        HostileFile("items-parquet-nul", ITEMS, "items.parquet",
                    _frame_bytes(pd.DataFrame([_ITEM | {"response": control}]), "parquet"),
                    "row 1, column response: control character U+0000"),
        HostileFile("items-jsonl-nul", ITEMS, "items.jsonl", _lines(_ITEM, _ITEM | {"id": "n2", "instruction":
                                                                                     control}),
                    "row 2, column instruction: control character U+0000"),
        HostileFile("items-csv-nul", ITEMS, "items.csv", f"instruction,response\nQ,R\nQ2,{control}\n".encode(),
                    "row 2, column response: control character U+0000"),
        HostileFile("pairs-xlsx-escape", PAIRS, "pairs.csv",
                    _frame_bytes(pd.DataFrame([_PAIR | {"prompt": escape}]), "csv"),
                    "row 1, column prompt: control character U+001B"),
        HostileFile("pairwise-log-parquet-nul", PAIR_LOG, "log.parquet",
                    _frame_bytes(pd.DataFrame([_CALL | {"raw_output": control}]), "parquet"),
                    "row 1, column raw_output: control character U+0000"),
        HostileFile("listwise-log-jsonl-escape-in-list", LIST_LOG, "log.jsonl",
                    _lines(_LIST_CALL | {"slots": ["alpha", "beta", "gam\x1bma"]}),
                    "row 1, column slots: control character U+001B"),
        HostileFile("rubric-json-nul", RUBRIC, "r.json",
                    json.dumps({"criterion": "c", "levels": {"1": "a", "2": control}}).encode(),
                    "control character U+0000"),
        HostileFile("items-header-nul", ITEMS, "items.jsonl", _lines(_ITEM | {"re\x00sponse": "x"}),
                    "control character U+0000 in a column name"),
        # NaN and infinity where a verdict or score is expected.
        HostileFile("pairwise-log-jsonl-nan-verdict", PAIR_LOG, "log.jsonl",
                    _lines(_CALL, '{"item_id": "p1", "first_candidate": "beta", "second_candidate": "alpha", '
                                  '"verdict": NaN}'),
                    "row 2, column verdict: missing value"),
        HostileFile("pairwise-log-jsonl-inf-verdict", PAIR_LOG, "log.jsonl",
                    _lines('{"item_id": "p1", "first_candidate": "beta", "second_candidate": "alpha", '
                           '"verdict": Infinity}'),
                    "row 1, column verdict: inf is not a finite value"),
        # Encoding: the data row, not the file line.
        HostileFile("items-csv-latin1", ITEMS, "items.csv", "instruction,response\nQ,R\nQ2,café\n".encode("latin-1"),
                    "row 2, column -: wrong encoding: byte 0xe9 at line 3"),
        HostileFile("pairwise-log-jsonl-latin1", PAIR_LOG, "log.jsonl",
                    _lines(_CALL) + b"\n\n" + json.dumps(_CALL | {"verdict": "B"}).encode().replace(b"B", b"\xe9"),
                    "row 2, column -: wrong encoding: byte 0xe9 at line 3"),
        # Rubric levels.
        HostileFile("rubric-duplicate-key", RUBRIC, "r.yaml", _rubric("  1: Low.\n  2: Mid.\n  2: High.\n"),
                    "duplicate key 2"),
        HostileFile("rubric-level-zero", RUBRIC, "r.yaml", _rubric("  0: Low.\n  1: High.\n"),
                    "level 0 is out of range"),
        HostileFile("rubric-level-negative", RUBRIC, "r.yaml", _rubric("  -1: Low.\n  1: High.\n"),
                    "level -1 is out of range"),
        HostileFile("rubric-gaps", RUBRIC, "r.yaml", _rubric("  1: Low.\n  3: Mid.\n  5: High.\n"),
                    "levels 1, 3, 5 have gaps"),
        HostileFile("rubric-one-level", RUBRIC, "r.yaml", _rubric("  1: Only.\n"), "give at least two levels"),
        HostileFile("rubric-1000-levels", RUBRIC, "r.json",
                    json.dumps({"criterion": "c", "levels": [f"level {n}" for n in range(1, 1001)]}).encode(),
                    "1000 levels; a rubric has at most"),
        *_unencodable_and_odd_files(),
    ]


def _xlsx_with(cell_xml: bytes, frame: pd.DataFrame) -> bytes:
    """An XLSX of ``frame`` whose cell holding the text PLACEHOLDER is written as ``cell_xml`` in the sheet's XML
    (what a spreadsheet program, not openpyxl, may write: raw control characters, formulas without a saved value)."""
    source = zipfile.ZipFile(io.BytesIO(_frame_bytes(frame, "xlsx")))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name.startswith("xl/worksheets/"):
                data = re.sub(rb'<c r="([A-Z]+[0-9]+)" t="inlineStr"><is><t>PLACEHOLDER</t></is></c>',
                              lambda m: b'<c r="' + m.group(1) + b'"' + cell_xml + b"</c>", data)
            target.writestr(name, data)
    return out.getvalue()


def _unencodable_and_odd_files() -> list[HostileFile]:
    """Cases the attack campaign of issue 27 found ending in a traceback, or read wrongly."""
    surrogate = "Q\\ud800"  # a JSON escape of a lone surrogate: valid JSON, text no store can hold
    return [
        HostileFile("items-json-lone-surrogate", ITEMS, "items.json",
                    ('[{"id": "n1", "instruction": "' + surrogate + '", "response": "R"}]').encode(),
                    "row 1, column instruction: lone surrogate U+D800"),
        HostileFile("items-jsonl-lone-surrogate", ITEMS, "items.jsonl",
                    _lines(_ITEM, '{"id": "n2", "instruction": "Q", "response": "R\\udfff"}'),
                    "row 2, column response: lone surrogate U+DFFF"),
        HostileFile("pairwise-log-jsonl-lone-surrogate-judge", PAIR_LOG, "log.jsonl",
                    _lines(_CALL | {"raw_output": "ok"}, '{"item_id": "p1", "first_candidate": "beta", '
                           '"second_candidate": "alpha", "verdict": "B", "raw_output": "\\ud83d"}'),
                    "row 2, column raw_output: lone surrogate U+D83D"),
        HostileFile("rubric-yaml-lone-surrogate", RUBRIC, "r.yaml", _rubric('  1: "Low \\ud800"\n  2: High.\n'),
                    "levels: rubric 1: lone surrogate U+D800"),
        HostileFile("rubric-json-lone-surrogate-key", RUBRIC, "r.json",
                    b'{"criterion": "c", "levels": {"1": "a", "2": "b"}, "source": "\\udc80"}',
                    "source: rubric 1: lone surrogate U+DC80"),
        HostileFile("items-parquet-binary-column", ITEMS, "items.parquet",
                    _frame_bytes(pd.DataFrame([_ITEM | {"response": b"\xff\xfebinary"}]), "parquet"),
                    "row 1, column response: binary data, not text"),
        HostileFile("rubric-yaml-unhashable-key", RUBRIC, "r.yaml", _rubric("  ? [1, 2]\n  : Low.\n  3: High.\n"),
                    "a key must be a number or text"),
        HostileFile("rubric-yaml-4300-digit-level", RUBRIC, "r.yaml",
                    _rubric(f'  1: Low.\n  ? {"9" * 4300}\n  : High.\n'), "level 999999999999... is out of range"),
        HostileFile("rubric-json-4300-digit-level", RUBRIC, "r.json",
                    json.dumps({"criterion": "c", "levels": {"1": "a", "9" * 4300: "b"}}).encode(),
                    "level 999999999999... is out of range"),
        HostileFile("rubric-yaml-hex-level", RUBRIC, "r.yaml", _rubric("  1: Low.\n  0x2: High.\n"),
                    "level '0x2' is not an integer (base 10)"),
        HostileFile("pairwise-log-jsonl-hex-repetition", PAIR_LOG, "log.jsonl", _lines(_CALL | {"repetition": "0x10"}),
                    "row 1, column repetition: '0x10' is not an integer"),
        HostileFile("items-xlsx-formula-without-value", ITEMS, "items.xlsx",
                    _xlsx_with(b"><f>LEN(B2)</f><v/>", pd.DataFrame([_ITEM | {"response": "PLACEHOLDER"}])),
                    "row 1, column response: a formula (=LEN(B2)) without a saved value"),
        HostileFile("items-xlsx-nul", ITEMS, "items.xlsx",
                    _xlsx_with(b' t="inlineStr"><is><t>bad\x00text</t></is>',
                               pd.DataFrame([_ITEM, _ITEM | {"id": "n2", "instruction": "PLACEHOLDER"}])),
                    "row 2, column instruction: control character U+0000"),
        HostileFile("items-xlsx-escape-reference", ITEMS, "items.xlsx",
                    _xlsx_with(b' t="inlineStr"><is><t>bad&#27;[31mred</t></is>',
                               pd.DataFrame([_ITEM | {"response": "PLACEHOLDER"}])),
                    "row 1, column response: control character U+001B"),
    ]


def prepare_targets(main: object, db: Path, folder: Path) -> None:
    """Store the datasets and the rubric the hostile logs refer to (through the CLI, as a user would)."""
    run = main  # the CLI's main(argv) -> exit status
    for name, text, argv in (
        ("rubric.yaml", TARGET_RUBRIC, ("rubric",)),
        ("pairs.csv", TARGET_PAIRS, ("pairs", "--dataset", PAIRS_DATASET)),
        ("items.csv", TARGET_ITEMS, ("items", "--dataset", ITEMS_DATASET, "--rubric", RUBRIC_ID)),
    ):
        path = folder / name
        path.write_text(text)
        assert run(["--db", str(db), "upload", *argv, "--file", str(path)]) == 0  # type: ignore[operator]
