"""The CLI lists its commands without importing them: the index matches the modules, --help stays light."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judgebias_core.cli import build_parser, main
from judgebias_core.cli.commands import COMMANDS, Command, command_named

HEAVY = ("scipy", "statsmodels", "plotly", "pandas")
CLI = Path(__file__).resolve().parents[1] / "judgebias_core" / "cli"


def test_every_record_names_an_arguments_function_and_every_such_function_has_a_record() -> None:
    named = {(c.module, str(c.arguments).partition(":")[2]) for c in COMMANDS.records()}
    defined = {(f"judgebias_core.cli.{path.stem}", name) for path in CLI.glob("*_commands.py")
               for name in dir(importlib.import_module(f"judgebias_core.cli.{path.stem}"))
               if name.endswith("_arguments")}
    assert named == defined
    assert len(set(COMMANDS.names())) == len(COMMANDS.records())


@pytest.mark.parametrize("command", COMMANDS.records(), ids=lambda c: c.name.replace(" ", "-"))
def test_a_command_line_imports_its_module_and_parses_as_the_full_parser(command: Command) -> None:
    words = command.name.split()
    assert command_named(["--db", "x.duckdb", *words, "--json"]) is command
    lazy, full = build_parser(words), build_parser()

    def usage(parser: argparse.ArgumentParser) -> str:
        for word in words:
            action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            parser = action.choices[word]
        return parser.format_help()

    assert usage(lazy) == usage(full)


def _echo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--word", required=True)
    parser.set_defaults(handler=lambda args: print(f"echo {args.word}"))


@pytest.mark.parametrize("name", ["echo-twice", "metrics echo-twice"])
def test_a_registered_command_is_listed_by_help_and_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with COMMANDS.registered(Command(name, _echo_arguments, "say a word back (a test's fake command)")):
        with pytest.raises(SystemExit):
            main([*name.split()[:-1], "--help"])
        assert "echo-twice" in capsys.readouterr().out
        assert main([*name.split(), "--word", "hello"]) == 0
        assert capsys.readouterr().out == "echo hello\n"
    assert name not in COMMANDS.names()


@pytest.mark.parametrize("argv", [["--help"], ["metrics", "--help"], ["no-such-command"], []])
def test_help_and_argument_errors_import_nothing_heavy(argv: list[str]) -> None:
    script = ("import json, sys\nfrom judgebias_core.cli import main\ntry:\n    main(sys.argv[1:])\n"
              "except SystemExit:\n    pass\n"
              f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
