"""CLI: upload items, pairs, judge logs and rubrics from files (validated in full; written all or nothing)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgebias_core.cli.common import add_json_flag, emit, open_store, progress, read_input_file
from judgebias_core.errors import invalid_argument
from judgebias_core.sources.rubric_files import upload_rubrics
from judgebias_core.sources.upload import (
    UploadPreview,
    prepare_upload,
    suggest_spec,
    write_upload,
)
from judgebias_core.sources.upload_kind import UPLOAD_KINDS, UploadKind, key_value_pairs
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_spec import UploadSpec

_MAPPING_HELP = "FIELD=COLUMN: read FIELD from COLUMN (repeatable; overrides the suggestion from header names; " \
                "FIELD= with no column unmaps it). Fields: {fields}"


def _settings(args: argparse.Namespace, upload_kind: UploadKind) -> dict[str, Any]:
    settings: dict[str, Any] = {"dataset_name": args.name or "", "description": args.description or ""}
    if args.licence:
        settings["licence"] = args.licence
    for option in upload_kind.options:  # in order: a later option may replace what an earlier one set
        settings.update(option.settings(getattr(args, option.dest)))
    return {key: value for key, value in settings.items() if value is not None}


def _preview_payload(preview: UploadPreview) -> dict[str, Any]:
    spec = preview.spec
    return {
        "dataset": spec.dataset_id, "kind": spec.upload_kind, "file": preview.file_name, "rows": preview.rows,
        "run_id": preview.run_id, "content_hash": preview.content_hash, "already_stored": preview.already_stored,
        "mapping": spec.columns, "candidate_columns": spec.candidate_columns, "name_columns": spec.name_columns,
        "rater_columns": spec.rater_columns, "preference_map": spec.preference_map, "counts": preview.counts,
        "problems": [{"row": p.row, "column": p.column, "reason": p.reason} for p in preview.problems],
    }


def _upload(args: argparse.Namespace) -> int:
    upload_kind = UPLOAD_KINDS.get(args.upload_kind)
    data = read_input_file(args.file)
    frame = read_table(data, args.file)
    explicit = key_value_pairs(args.map, "--map")
    try:
        if args.no_suggest:
            spec = UploadSpec(upload_kind=upload_kind.name, dataset_id=args.dataset,
                              columns={f: c for f, c in explicit.items() if c}, **_settings(args, upload_kind))
        else:
            spec = suggest_spec(frame, upload_kind.name, args.dataset, **_settings(args, upload_kind))
            columns = dict(spec.columns) | explicit
            spec = spec.model_copy(update={"columns": {f: c for f, c in columns.items() if c}})
    except ValidationError as error:
        raise invalid_argument(error) from error
    store = open_store(args)
    preview = prepare_upload(store, data, Path(args.file).name, spec)
    payload = _preview_payload(preview)
    if args.dry_run or preview.problems:
        if preview.problems:
            write_upload(store, preview)  # raises ValidationFailed: every problem to stderr, exit status 2
        payload["written"] = False
        payload["preview"] = preview.stored.head(5).astype(str).to_dict("records")
        emit(args, payload, f"{preview.rows} row(s) valid; nothing written (--dry-run). Tables: {preview.counts}")
        return 0
    result = write_upload(store, preview)
    payload.update(written=True, inserted=result.inserted)
    note = " (already stored: nothing new)" if result.already_stored else ""
    progress(f"{spec.dataset_id}: {sum(result.inserted.values())} new rows{note}")
    emit(args, payload, f"{upload_kind.name} upload to {spec.dataset_id}: {result.inserted}{note}"
         + (f"; run {result.run_id}" if result.run_id else ""))
    return 0


def _upload_rubric(args: argparse.Namespace) -> int:
    data = read_input_file(args.file)
    rubrics, result = upload_rubrics(open_store(args), data, Path(args.file).name, args.dataset)
    rows = [{"rubric_id": r.rubric_id, "criterion": r.criterion, "k": r.k, "levels": list(r.scores)} for r in rubrics]
    emit(args, {"rubrics": rows, "inserted": result.inserted},
         "\n".join(f"{r['rubric_id']}: k={r['k']} {r['criterion']}" for r in rows) + f"\ninserted: {result.inserted}")
    return 0


def _add_kind(upload: Any, upload_kind: UploadKind) -> None:
    """``upload KIND``: the options every kind has, then the kind's own."""
    parser = upload.add_parser(upload_kind.name, help=upload_kind.label)
    parser.add_argument("--file", required=True, help="CSV, TSV, JSON Lines, JSON, Parquet or XLSX file")
    needs = "a new dataset id" if upload_kind.creates_dataset else "an existing dataset (the log's items must be in it)"
    parser.add_argument("--dataset", required=True, help=f"{needs}: lower-case letters, digits, '.', '_', '-'")
    fields = ", ".join(f.name + ("*" if f.required else "") for f in upload_kind.fields)
    parser.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                        help=_MAPPING_HELP.format(fields=fields + " (* required)"))
    parser.add_argument("--no-suggest", action="store_true", help="use only --map (no suggestions from headers)")
    parser.add_argument("--name", help="dataset name shown in the app (new datasets)")
    parser.add_argument("--description", help="dataset description (new datasets)")
    parser.add_argument("--licence", help="licence of the uploaded data (new datasets)")
    parser.add_argument("--dry-run", action="store_true", help="validate and preview; write nothing")
    add_json_flag(parser)
    parser.set_defaults(handler=_upload)  # args.upload_kind: the sub-command's name, the kind's
    for option in upload_kind.options:
        parser.add_argument(option.flag, help=option.help, **option.arguments)


def upload_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Every problem (row, column, reason) is reported at once on stderr with exit status 2; "
        "nothing is written unless the whole file is valid. Uploading the same file with the same settings twice "
        "changes nothing.")
    upload = parser.add_subparsers(dest="upload_kind", metavar="KIND", required=True)
    for upload_kind in UPLOAD_KINDS.records():
        _add_kind(upload, upload_kind)

    rubric = upload.add_parser("rubric", help="a YAML or JSON rubric file: criterion and k level descriptions")
    rubric.add_argument("--file", required=True, help="YAML or JSON; criterion under 'criterion' or 'criteria', "
                                                      "levels under 'levels' or 'score_descriptions'")
    rubric.add_argument("--dataset", help="dataset the rubric belongs to (optional)")
    add_json_flag(rubric)
    rubric.set_defaults(handler=_upload_rubric)
