"""The headless interface: ``python -m judgebias_core``. Prints results, turns named errors into exit codes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from judgebias_core import __version__
from judgebias_core.cli.commands import COMMAND_GROUPS, COMMANDS, command_named
from judgebias_core.cli.common import db_path
from judgebias_core.errors import JudgebiasError, ValidationFailed

DB_HELP = "path of the DuckDB store file (before or after the command)"


def _accept_db_everywhere(parser: argparse.ArgumentParser) -> None:
    """Every sub-command takes --db too; left unset there, it keeps the value given before the command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                if "--db" not in sub._option_string_actions:
                    sub.add_argument("--db", default=argparse.SUPPRESS, help=DB_HELP)
                _accept_db_everywhere(sub)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The CLI's parser, every registered command listed from its record (cli/commands.py). With ``argv``, only the
    command it names gets its arguments (importing its module), every other is listed by name and help; without,
    every command gets its arguments."""
    parser = argparse.ArgumentParser(
        prog="python -m judgebias_core",
        description="judgebias: measure position bias of LLM judges, headless. Every command reads or writes "
        "the DuckDB store given by --db (default: $JUDGEBIAS_DB, else data/judgebias.duckdb).",
    )
    parser.add_argument("--db", help=DB_HELP)
    parser.add_argument("--version", action="version", version=f"judgebias {__version__}")
    root = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    groups = {name: root.add_parser(name, help=group.help).add_subparsers(
        dest=group.dest, metavar=group.metavar, required=True) for name, group in COMMAND_GROUPS.items()}
    wanted = None if argv is None else command_named(list(argv))
    for command in COMMANDS.records():
        sub = (root if command.group is None else groups[command.group]).add_parser(command.word, help=command.help)
        if argv is None or command is wanted:
            command.add_arguments(sub)
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
