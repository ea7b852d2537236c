"""The headless interface: ``python -m judgebias_core``. Prints results, turns named errors into exit codes."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from judgebias_core import __version__
from judgebias_core.cli.common import CommandGroups
from judgebias_core.errors import JudgebiasError, NotFoundError, StoreBusyError, ValidationFailed

# Each module defines register(groups: CommandGroups). Listed here so every command has one home.
COMMAND_MODULES: tuple[str, ...] = (
    "data_commands",
    "upload_commands",
    "pairwise_commands",
    "rubric_commands",
    "judges_commands",
    "stepwise_commands",
    "run_commands",
    "report_commands",
    "transfer_commands",
    "plan_commands",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m judgebias_core",
        description="judgebias: measure position bias of LLM judges, headless. Every command reads or writes "
        "the DuckDB store given by --db (default: $JUDGEBIAS_DB, else data/judgebias.duckdb).",
    )
    parser.add_argument("--db", help="path of the DuckDB store file")
    parser.add_argument("--version", action="version", version=f"judgebias {__version__}")
    root = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    metrics = root.add_parser("metrics", help="compute bias and agreement metrics").add_subparsers(
        dest="metric", metavar="METRIC", required=True
    )
    export = root.add_parser("export", help="export stored data to files").add_subparsers(
        dest="export_what", metavar="WHAT", required=True
    )
    groups = CommandGroups(root=root, metrics=metrics, export=export)
    for name in COMMAND_MODULES:  # a listed module that is missing fails here, loudly
        importlib.import_module(f"judgebias_core.cli.{name}").register(groups)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ValidationFailed as error:
        print(f"error: {error}", file=sys.stderr)
        for problem in error.problems:
            print(f"  row {problem.row if problem.row is not None else '-'}, column {problem.column or '-'}: "
                  f"{problem.reason}", file=sys.stderr)
        return 2
    except (NotFoundError, StoreBusyError, JudgebiasError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
