"""The CLI lists its commands without importing them: the index matches the modules, --help stays light."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from typing import Any

import pytest

from judgebias_core.cli import COMMAND_MODULES, build_parser, modules_for
from judgebias_core.cli.command_index import COMMAND_INDEX
from judgebias_core.cli.common import CommandGroups

HEAVY = ("scipy", "statsmodels", "plotly", "pandas")


class _Recorder:
    """Stands in for a sub-parser group and records what a command module registers."""

    def __init__(self, group: str, rows: list[tuple[str, str, str, str]], module: list[str]) -> None:
        self.group, self.rows, self.module = group, rows, module
        self._real = argparse.ArgumentParser().add_subparsers()

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        self.rows.append((self.group, name, self.module[0], kwargs.get("help", "")))
        return self._real.add_parser(name, **kwargs)


def test_the_index_is_what_the_command_modules_register() -> None:
    rows: list[tuple[str, str, str, str]] = []
    module = [""]
    groups = CommandGroups(*(_Recorder(g, rows, module) for g in ("root", "metrics", "export")))
    for name in COMMAND_MODULES:
        module[0] = name
        importlib.import_module(f"judgebias_core.cli.{name}").register(groups)
    assert sorted(rows) == sorted(tuple(c) for c in COMMAND_INDEX)


@pytest.mark.parametrize("command", COMMAND_INDEX, ids=lambda c: f"{c.group}-{c.name}")
def test_a_command_line_imports_its_module_and_parses_as_the_full_parser(command: Any) -> None:
    words = [command.name] if command.group == "root" else [command.group, command.name]
    assert modules_for(["--db", "x.duckdb", *words, "--json"]) == {command.module}
    lazy, full = build_parser(words), build_parser()

    def usage(parser: argparse.ArgumentParser) -> str:
        for word in words:
            action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            parser = action.choices[word]
        return parser.format_help()

    assert usage(lazy) == usage(full)


@pytest.mark.parametrize("argv", [["--help"], ["metrics", "--help"], ["no-such-command"], []])
def test_help_and_argument_errors_import_nothing_heavy(argv: list[str]) -> None:
    script = ("import json, sys\nfrom judgebias_core.cli import main\ntry:\n    main(sys.argv[1:])\n"
              "except SystemExit:\n    pass\n"
              f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
