"""Adding an upload kind is one record: a fake kind registered here (and nowhere else) uploads through the core,
is a command of the CLI and a choice of the Data page, with row-level problems and nothing written on a refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from judgebias_core.cli import build_parser, main
from judgebias_core.errors import RowProblem
from judgebias_core.sources.upload import prepare_upload, suggest_spec, write_upload
from judgebias_core.sources.upload_kind import UPLOAD_KINDS, UploadKind, UploadOption, UploadRows
from judgebias_core.sources.upload_mapping import FieldSpec
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_validate import Ident, Text, UploadRow
from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch
from tests.app_helpers import open_page
from tests.upload_helpers import fingerprint, rows

NOTES = b"id,Question\nn1,What is 2+2?\nn2,Name a colour\n"
BAD_NOTES = b"id,Question\nn1,What is 2+2?\nn2,\nn1,Again\n"


class NoteRow(UploadRow):
    item_id: Ident
    question: Text


def _note_batch(rows: UploadRows) -> tuple[StoreBatch, list[RowProblem]]:
    spec, valid = rows.spec, rows.valid
    dataset = pd.DataFrame([{"dataset_id": spec.dataset_id, "name": spec.dataset_name or spec.dataset_id,
                             "kind": rows.upload_kind.dataset_kind, "source": f"upload: {rows.file_name}",
                             "licence": spec.licence, "description": spec.description or "notes",
                             "origin": "upload", "content_hash": rows.content_hash}])
    items = pd.DataFrame({"dataset_id": spec.dataset_id, "item_id": valid["item_id"], "seq": valid["row"] - 1,
                          "question": valid["question"], "turns": valid["question"].map(lambda q: [q])})
    return StoreBatch(datasets=dataset, items=items), []


NOTES_KIND = UploadKind(
    name="notes", label="Notes: one question per row (a test's fake kind)",
    fields=(FieldSpec("item_id", "Item id", False, ("id",)), FieldSpec("question", "Question", True, ("question",))),
    row_model=NoteRow, dataset_kind="pointwise", creates_dataset=True, check_and_build=_note_batch,
    preview_table="items",
    options=(UploadOption("--about", "what the notes are about (the dataset's description)",
                          to_settings=lambda text: {"description": text}),),
)


def test_a_registered_kind_uploads_through_the_core(upload_db: Path) -> None:
    with UPLOAD_KINDS.registered(NOTES_KIND):
        spec = suggest_spec(read_table(NOTES, "notes.csv"), "notes", "fake-notes")
        assert spec.columns == {"item_id": "id", "question": "Question"}
        preview = prepare_upload(Store.open(upload_db), NOTES, "notes.csv", spec)
        assert preview.ok and preview.counts == {"datasets": 1, "items": 2} and preview.stored_table == "items"
        assert write_upload(Store.open(upload_db), preview).inserted == {"datasets": 1, "items": 2}

        before = fingerprint(upload_db)
        bad = prepare_upload(Store.open(upload_db), BAD_NOTES, "bad.csv", spec.model_copy(update={"dataset_id": "fake-bad"}))
        assert [(p.row, p.column, p.reason) for p in bad.problems] == [
            (2, "Question", "missing value (this field is required)"),
            (3, "id", "duplicate item id 'n1' (first on row 1)")]
        assert bad.batch is None and fingerprint(upload_db) == before
    assert "notes" not in UPLOAD_KINDS
    assert rows(upload_db, "SELECT item_id, question FROM items WHERE dataset_id = 'fake-notes' ORDER BY seq") == [
        ("n1", "What is 2+2?"), ("n2", "Name a colour")]


def test_a_registered_kind_is_a_cli_command(upload_db: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.csv"
    notes.write_bytes(NOTES)
    with UPLOAD_KINDS.registered(NOTES_KIND):
        upload = build_parser()._subparsers._group_actions[0].choices["upload"]  # type: ignore[union-attr]
        assert "notes" in upload._subparsers._group_actions[0].choices
        status = main(["--db", str(upload_db), "upload", "notes", "--file", str(notes), "--dataset", "cli-notes",
                       "--about", "two questions", "--json"])
    out, _ = capsys.readouterr()
    assert status == 0 and json.loads(out)["inserted"] == {"datasets": 1, "items": 2}
    assert rows(upload_db, "SELECT description FROM datasets WHERE dataset_id = 'cli-notes'") == [("two questions",)]


def test_a_registered_kind_is_offered_by_the_data_page(bundled_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(bundled_db))
    with UPLOAD_KINDS.registered(NOTES_KIND):
        at = open_page("data.py")
        assert NOTES_KIND.label in at.selectbox(key="upload_kind").options
        at.selectbox(key="upload_kind").set_value("notes").run()
        at.file_uploader[0].set_value(("notes.csv", NOTES, "text/csv")).run()
        assert not at.exception
        assert {b.label: b.value for b in at.selectbox}["Question *"] == "Question"
        next(b for b in at.button if b.label == "Write to the store").click().run()
        assert not at.exception
    assert rows(bundled_db, "SELECT count(*) FROM items WHERE dataset_id = 'notes'") == [(2,)]
