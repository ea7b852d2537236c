"""CLI: report, the self-contained HTML report of one dataset for people who do not code."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgebias_core.cli.common import add_json_flag, db_path, emit, progress
from judgebias_core.report import ReportRequest, build_report, render_html
from judgebias_core.store.handle import Store


def _report(args: argparse.Namespace) -> int:
    request = ReportRequest(dataset_id=args.dataset, judges=tuple(args.judge or ()), runs=tuple(args.run or ()))
    progress(f"building the report of {args.dataset}…")
    with Store(db_path(args)).reader() as reader:
        report = build_report(reader, request)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_html(report), encoding="utf-8")
    payload = {"out": str(args.out), "dataset": args.dataset, "judges": list(request.judges),
               "runs": list(request.runs), "sections": [s.key for s in report.sections],
               "skipped": list(report.skipped), "summary": [s for sec in report.sections for s in sec.headline]}
    emit(args, payload, f"wrote {args.out} ({len(report.sections)} section(s))\n" + "\n".join(payload["summary"]))
    return 0


def report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("A plain-sentence summary, interactive charts (plotly.js embedded, no network needed), tables "
                    "with their counts, how each number was measured, and provenance.")
    parser.add_argument("--dataset", required=True, help="dataset id (see the datasets command)")
    parser.add_argument("--judge", action="append", metavar="NAME",
                        help="only this judge (repeatable); default: every judge of the dataset")
    parser.add_argument("--run", action="append", metavar="RUN_ID",
                        help="only this run (repeatable); default: every run of the dataset")
    parser.add_argument("--out", required=True, type=Path, help="the HTML file to write")
    add_json_flag(parser)
    parser.set_defaults(handler=_report)

