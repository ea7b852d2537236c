"""CLI: upload items, pairs, judge logs and rubrics from files (validated in full; written all or nothing)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgebias_core.cli.common import CommandGroups, add_json_flag, emit, open_store, progress, read_input_file
from judgebias_core.errors import InvalidArgument, invalid_argument
from judgebias_core.sources.rubric_files import upload_rubrics
from judgebias_core.sources.upload import (
    UploadPreview,
    prepare_upload,
    suggest_spec,
    write_upload,
)
from judgebias_core.sources.upload_mapping import (
    FIELDS,
    KIND_LABELS,
    LOG_KINDS,
    LOG_OUTCOMES,
    UploadKind,
    candidate_from_header,
)
from judgebias_core.sources.upload_read import read_table
from judgebias_core.sources.upload_spec import LOG_PARSERS, UploadSpec

_MAPPING_HELP = "FIELD=COLUMN: read FIELD from COLUMN (repeatable; overrides the suggestion from header names; " \
                "FIELD= with no column unmaps it). Fields: {fields}"


def _pairs(values: list[str] | None, option: str, allow_bare: bool = False) -> dict[str, str]:
    """KEY=VALUE options as a dict; a bare KEY (when allowed) maps to None-like ''."""
    result: dict[str, str] = {}
    for value in values or []:
        key, sep, target = value.partition("=")
        if not key or (not sep and not allow_bare):
            raise InvalidArgument(f"{option} expects KEY=VALUE, got {value!r}")
        result[key] = target if sep else ""
    return result


def _settings(args: argparse.Namespace, kind: UploadKind) -> dict[str, Any]:
    settings: dict[str, Any] = {"dataset_name": args.name or "", "description": args.description or ""}
    if args.licence:
        settings["licence"] = args.licence
    if kind == "items":
        raters = _pairs(args.rater_column, "--rater-column", allow_bare=True)
        settings["rater_columns"] = {column: rater or column for column, rater in raters.items()}
        settings["rubric_id"] = args.rubric
    if kind == "pairs":
        if args.candidate_column:
            named = _pairs(args.candidate_column, "--candidate-column", allow_bare=True)
            settings["candidate_columns"] = {c: n or candidate_from_header(c) or c for c, n in named.items()}
        if args.candidate_name_column:
            settings["name_columns"] = _pairs(args.candidate_name_column, "--candidate-name-column")
            settings["candidate_columns"] = {}
        settings["preference_map"] = _pairs(args.preference_map, "--preference-map")
        settings["baseline_candidate"] = args.baseline
    if kind in LOG_KINDS:
        settings.update(judge=args.judge, parser=args.parser)
    if kind in ("pairwise-log", "listwise-log"):
        settings["original_first"] = args.original_first
    if kind == "pairwise-log":
        settings["options"] = args.options
    if kind == "listwise-log":
        settings["allow_none"] = args.allow_none
    if kind == "rubric-log":
        settings["rubric_id"] = args.rubric
    return {key: value for key, value in settings.items() if value is not None}


def _preview_payload(preview: UploadPreview) -> dict[str, Any]:
    spec = preview.spec
    return {
        "dataset": spec.dataset_id, "kind": spec.kind, "file": preview.file_name, "rows": preview.rows,
        "run_id": preview.run_id, "content_hash": preview.content_hash, "already_stored": preview.already_stored,
        "mapping": spec.columns, "candidate_columns": spec.candidate_columns, "name_columns": spec.name_columns,
        "rater_columns": spec.rater_columns, "preference_map": spec.preference_map, "counts": preview.counts,
        "problems": [{"row": p.row, "column": p.column, "reason": p.reason} for p in preview.problems],
    }


def _upload(args: argparse.Namespace) -> int:
    kind: UploadKind = args.kind
    data = read_input_file(args.file)
    frame = read_table(data, args.file)
    explicit = _pairs(args.map, "--map")
    try:
        if args.no_suggest:
            spec = UploadSpec(kind=kind, dataset_id=args.dataset, columns={f: c for f, c in explicit.items() if c},
                              **_settings(args, kind))
        else:
            spec = suggest_spec(frame, kind, args.dataset, **_settings(args, kind))
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
    emit(args, payload, f"{kind} upload to {spec.dataset_id}: {result.inserted}{note}"
         + (f"; run {result.run_id}" if result.run_id else ""))
    return 0


def _upload_rubric(args: argparse.Namespace) -> int:
    data = read_input_file(args.file)
    rubrics, result = upload_rubrics(open_store(args), data, Path(args.file).name, args.dataset)
    rows = [{"rubric_id": r.rubric_id, "criterion": r.criterion, "k": r.k, "levels": list(r.scores)} for r in rubrics]
    emit(args, {"rubrics": rows, "inserted": result.inserted},
         "\n".join(f"{r['rubric_id']}: k={r['k']} {r['criterion']}" for r in rows) + f"\ninserted: {result.inserted}")
    return 0


def _add_common(parser: argparse.ArgumentParser, kind: UploadKind) -> None:
    parser.add_argument("--file", required=True, help="CSV, TSV, JSON Lines, JSON, Parquet or XLSX file")
    needs = "an existing dataset (the log's items must be in it)" if kind.endswith("log") else "a new dataset id"
    parser.add_argument("--dataset", required=True, help=f"{needs}: lower-case letters, digits, '.', '_', '-'")
    fields = ", ".join(f.name + ("*" if f.required else "") for f in FIELDS[kind])
    parser.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                        help=_MAPPING_HELP.format(fields=fields + " (* required)"))
    parser.add_argument("--no-suggest", action="store_true", help="use only --map (no suggestions from headers)")
    parser.add_argument("--name", help="dataset name shown in the app (new datasets)")
    parser.add_argument("--description", help="dataset description (new datasets)")
    parser.add_argument("--licence", help="licence of the uploaded data (new datasets)")
    parser.add_argument("--dry-run", action="store_true", help="validate and preview; write nothing")
    add_json_flag(parser)
    parser.set_defaults(handler=_upload, kind=kind)


def register(groups: CommandGroups) -> None:
    upload = groups.root.add_parser(
        "upload", help="upload items, pairs, judge logs or rubrics from a file (all rows valid or nothing written)",
        description="Every problem (row, column, reason) is reported at once on stderr with exit status 2; "
        "nothing is written unless the whole file is valid. Uploading the same file with the same settings twice "
        "changes nothing.",
    ).add_subparsers(dest="upload_kind", metavar="KIND", required=True)

    items = upload.add_parser("items", help=KIND_LABELS["items"])
    _add_common(items, "items")
    items.add_argument("--rater-column", action="append", metavar="COLUMN[=RATER]",
                       help="a column of human scores, one per rater (repeatable); RATER defaults to the column name")
    items.add_argument("--rubric", help="rubric id the scores are levels of (upload it first with 'upload rubric')")

    pairs = upload.add_parser("pairs", help=KIND_LABELS["pairs"])
    _add_common(pairs, "pairs")
    pairs.add_argument("--candidate-column", action="append", metavar="COLUMN[=NAME]",
                       help='an answer column, one per candidate (repeatable); NAME defaults to the name in the header '
                            '("Response (ChatGPT)" -> ChatGPT)')
    pairs.add_argument("--candidate-name-column", action="append", metavar="ANSWER_COLUMN=NAME_COLUMN",
                       help="an answer column and the column naming its candidate on each row (repeatable)")
    pairs.add_argument("--preference-map", action="append", metavar="VALUE=CANDIDATE|tie",
                       help="what a preference value means: a candidate name or 'tie' (with name columns, an answer "
                            "column); values equal to a candidate's name need no mapping")
    pairs.add_argument("--baseline", help="baseline candidate (its first-slot order is a pair's original order)")

    logs = {}
    for kind in LOG_KINDS:
        parsers = LOG_PARSERS[kind]
        logs[kind] = upload.add_parser(kind, help=KIND_LABELS[kind])
        _add_common(logs[kind], kind)
        logs[kind].add_argument("--judge", help="judge name for every row (when the file has no judge column)")
        logs[kind].add_argument("--parser", choices=parsers,
                                help=f"how to read the {LOG_OUTCOMES[kind]} from raw replies (default {parsers[0]}); "
                                     "unparseable replies are kept with parse status 'failed'")
    logs["pairwise-log"].add_argument("--options", type=int, choices=(2, 3), default=3,
                                      help="3 if the judge could answer tie (C), 2 if not")
    logs["pairwise-log"].add_argument(
        "--original-first", metavar="CANDIDATE",
        help="the call with CANDIDATE in the first slot is a pair's original order (default: the dataset's "
             "baseline); pairs without it take the order seen first in the file as original")
    logs["listwise-log"].add_argument(
        "--original-first", metavar="CANDIDATE",
        help="the first order of a candidate set with CANDIDATE in the first slot is its original order (default: "
             "the dataset's baseline); sets without it take the order seen first in the file; the others are "
             "labelled rotation-k (the original shifted by k) or permutation")
    logs["listwise-log"].add_argument("--allow-none", action="store_true",
                                      help="the judge could answer 'no clear winner' ([[NONE]], or the pick none)")
    logs["rubric-log"].add_argument("--rubric", help="rubric id for every trial (default: each item's own rubric)")

    rubric = upload.add_parser("rubric", help="a YAML or JSON rubric file: criterion and k level descriptions")
    rubric.add_argument("--file", required=True, help="YAML or JSON; criterion under 'criterion' or 'criteria', "
                                                      "levels under 'levels' or 'score_descriptions'")
    rubric.add_argument("--dataset", help="dataset the rubric belongs to (optional)")
    add_json_flag(rubric)
    rubric.set_defaults(handler=_upload_rubric)
