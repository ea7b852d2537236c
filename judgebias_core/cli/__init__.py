"""The headless interface: ``python -m judgebias_core``. Prints results, turns named errors into exit codes."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from judgebias_core import __version__
from judgebias_core.cli.command_index import COMMAND_INDEX
from judgebias_core.cli.common import CommandGroups, db_path
from judgebias_core.errors import JudgebiasError, ValidationFailed

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
    "scorecard_commands",
)


DB_HELP = "path of the DuckDB store file (before or after the command)"


def _accept_db_everywhere(parser: argparse.ArgumentParser) -> None:
    """Every sub-command takes --db too; left unset there, it keeps the value given before the command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                if "--db" not in sub._option_string_actions:
                    sub.add_argument("--db", default=argparse.SUPPRESS, help=DB_HELP)
                _accept_db_everywhere(sub)


_GROUPS = ("metrics", "export")


def modules_for(argv: Sequence[str]) -> set[str]:
    """The command modules the command line names (none for ``--help``, ``--version`` or an unknown command)."""
    words = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--db":
            skip = True
        elif not word.startswith("-"):
            words.append(word)
            if len(words) == 2 or words[0] not in _GROUPS:
                break
    if not words:
        return set()
    if words[0] in _GROUPS:
        return {c.module for c in COMMAND_INDEX if c.group == words[0] and c.name == words[1:2][0]} \
            if len(words) == 2 else set()
    return {c.module for c in COMMAND_INDEX if c.group == "root" and c.name == words[0]}


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The CLI's parser. With ``argv``, only the module of the command it names is imported and every other
    command is listed from the index (name and help, no arguments); without, every command module registers."""
    parser = argparse.ArgumentParser(
        prog="python -m judgebias_core",
        description="judgebias: measure position bias of LLM judges, headless. Every command reads or writes "
        "the DuckDB store given by --db (default: $JUDGEBIAS_DB, else data/judgebias.duckdb).",
    )
    parser.add_argument("--db", help=DB_HELP)
    parser.add_argument("--version", action="version", version=f"judgebias {__version__}")
    root = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    metrics = root.add_parser("metrics", help="compute bias and agreement metrics").add_subparsers(
        dest="metric", metavar="METRIC", required=True
    )
    export = root.add_parser("export", help="export stored data to files").add_subparsers(
        dest="export_what", metavar="WHAT", required=True
    )
    groups = CommandGroups(root=root, metrics=metrics, export=export)
    wanted = set(COMMAND_MODULES) if argv is None else modules_for(argv)
    for name in COMMAND_MODULES:  # a listed module that is missing fails here, loudly
        if name in wanted:
            importlib.import_module(f"judgebias_core.cli.{name}").register(groups)
    subparsers = {"root": root, "metrics": metrics, "export": export}
    for command in COMMAND_INDEX:
        if command.module not in wanted:
            subparsers[command.group].add_parser(command.name, help=command.help)
    _accept_db_everywhere(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ValidationFailed as error:
        print(f"error: {error}", file=sys.stderr)
        if len(error.problems) > 1:  # one problem is all on the line above
            for problem in error.problems:
                print(f"  row {problem.row if problem.row is not None else '-'}, column {problem.column or '-'}: "
                      f"{problem.reason}", file=sys.stderr)
        return 2
    except JudgebiasError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        from judgebias_core.store.failures import store_failure  # noqa: PLC0415 - only when a command failed

        failure = store_failure(error, db_path(args))
        if failure is None:
            raise
        print(f"error: {failure}", file=sys.stderr)
        return 2
