"""Property tests: random bytes, wrong columns and random cells never crash an upload, and a refused upload
never writes."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from judgebias_core.errors import ValidationFailed
from judgebias_core.sources.rubric_files import upload_rubrics
from judgebias_core.sources.upload import prepare_upload, upload_file
from judgebias_core.sources.upload_kind import UPLOAD_KINDS
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.store.handle import Store
from tests.upload_helpers import fingerprint

SUFFIXES = ("csv", "tsv", "jsonl", "json", "parquet", "xlsx")
# Examples that reach the store cost a few connections each: fewer of them than of the byte-level ones.
PROPERTY_SETTINGS = settings(max_examples=25, deadline=None,
                             suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
STORE_SETTINGS = settings(PROPERTY_SETTINGS, max_examples=10)
TARGETS = {"items": "prop-items", "pairs": "prop-pairs", "pairwise-log": "mtbench", "rubric-log": "summeval",
           "listwise-log": "mtbench"}


def _refused_without_writing(path: Path, data: bytes, name: str, spec: UploadSpec) -> None:
    before = fingerprint(path)
    try:
        upload_file(Store.open(path), data, name, spec)
    except ValidationFailed as error:
        assert error.problems, "a refusal lists at least one problem"
        assert all(p.reason for p in error.problems)
        assert fingerprint(path) == before
    # An upload may also be valid (random cells can be); it then wrote at most its own rows.


@PROPERTY_SETTINGS
@given(data=st.binary(max_size=600), suffix=st.sampled_from(SUFFIXES), kind=st.sampled_from(UPLOAD_KINDS.names()))
def test_random_bytes_never_crash_and_never_write(upload_db: Path, data: bytes, suffix: str, kind: str) -> None:
    required = {f.name: f.name for f in UPLOAD_KINDS.get(kind).fields if f.required}
    spec = UploadSpec(kind=kind, dataset_id=TARGETS[kind], columns=required)
    before = fingerprint(upload_db)
    try:
        upload_file(Store.open(upload_db), data, f"random.{suffix}", spec)
    except ValidationFailed as error:
        assert error.problems
    assert fingerprint(upload_db) == before


@PROPERTY_SETTINGS
@given(data=st.binary(max_size=400), suffix=st.sampled_from(("yaml", "yml", "json")))
def test_random_rubric_files_never_crash_and_never_write(upload_db: Path, data: bytes, suffix: str) -> None:
    before = fingerprint(upload_db)
    try:
        upload_rubrics(Store.open(upload_db), data, f"random.{suffix}")
    except ValidationFailed as error:
        assert error.problems
        assert fingerprint(upload_db) == before


header_names = st.text(alphabet="abcdefgh_ ", min_size=1, max_size=8).map(str.strip).filter(bool)


@STORE_SETTINGS
@given(kind=st.sampled_from(UPLOAD_KINDS.names()), columns=st.lists(header_names, min_size=1, max_size=5, unique=True),
       mapped=st.lists(header_names, min_size=1, max_size=4), rows=st.integers(1, 4))
def test_wrong_columns_are_problems_not_crashes(upload_db: Path, kind: str, columns: list[str], mapped: list[str],
                                                rows: int) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    writer.writerows([[f"v{r}{c}" for c in range(len(columns))] for r in range(rows)])
    fields = list(UPLOAD_KINDS.get(kind).field_names)
    spec = UploadSpec(kind=kind, dataset_id=TARGETS[kind],
                      columns={fields[i % len(fields)]: name for i, name in enumerate(mapped)})
    preview = prepare_upload(Store.open(upload_db), out.getvalue().encode(), "wrong.csv", spec)
    missing = set(spec.columns.values()) - set(columns)
    if missing:
        assert {p.column for p in preview.problems} >= missing
    _refused_without_writing(upload_db, out.getvalue().encode(), "wrong.csv", spec)


cells = st.one_of(st.none(), st.integers(-3, 9).map(str), st.sampled_from(["", " ", "[1, 2]", "x", "3.0", "[[A]]",
                                                                           "[RESULT] 4", "tie", "A"]),
                  st.text(max_size=6))


@STORE_SETTINGS
@given(kind=st.sampled_from(UPLOAD_KINDS.names()), grid=st.lists(st.lists(cells, min_size=7, max_size=7), min_size=1,
                                                         max_size=5))
@example(kind="pairs", grid=[[None] * 7])  # found by Hypothesis: an answer column named like a key column
@example(kind="listwise-log", grid=[["81", "gpt-4,claude-v1,llama-13b", "j", "[[B]]", None, "1", None],
                                   ["81", "[1, 2]", "j", None, "A", "x", None]])  # one valid call, one refused
def test_random_cells_under_the_right_headers_never_crash(upload_db: Path, kind: str,
                                                          grid: list[list[str | None]]) -> None:
    fields = list(UPLOAD_KINDS.get(kind).field_names)[:7]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(fields)
    writer.writerows([row[: len(fields)] for row in grid])
    settings_by_kind = {"items": {"rubric_id": "summeval-coherence"}, "pairs": {},
                        "pairwise-log": {}, "rubric-log": {}, "listwise-log": {}}
    dataset_id = TARGETS[kind] + ("-cells" if kind in ("items", "pairs") else "")
    spec = UploadSpec(kind=kind, dataset_id=dataset_id, columns={f: f for f in fields},
                      **settings_by_kind[kind])
    if kind == "pairs":
        spec = spec.model_copy(update={"columns": {f: f for f in fields if f != "preference"},
                                       "candidate_columns": {"task": "t", "item_id": "i"}})
    _refused_without_writing(upload_db, out.getvalue().encode(), "cells.csv", spec)
