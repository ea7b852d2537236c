"""Every command module is named by a command record (a missing one fails loudly) and every command says what it does."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import judgebias_core.cli as cli
from judgebias_core.cli.commands import COMMANDS, Command


def _subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, str | None]:
    """Every command path ("metrics pairwise") with its help text, through nested sub-parsers."""
    found: dict[str, str | None] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                path = f"{prefix}{name}"
                found[path] = helps.get(name)
                found |= _subcommands(sub, f"{path} ")
    return found


def test_every_command_module_is_listed_and_every_command_has_help() -> None:
    files = {p.stem for p in Path(cli.__file__).parent.glob("*_commands.py")}
    assert files == {str(c.module).removeprefix("judgebias_core.cli.") for c in COMMANDS.records()}
    commands = _subcommands(cli.build_parser())
    assert {"run", "runs", "datasets", "metrics pairwise", "metrics rubric", "report", "upload items"} <= set(commands)
    assert not [path for path, text in commands.items() if not (text and text.strip())]


def test_a_listed_module_that_is_missing_fails_loudly() -> None:
    vanished = Command("vanished", "judgebias_core.cli.vanished_commands:vanished_arguments", "a command whose "
                       "module is gone")
    with COMMANDS.registered(vanished), pytest.raises(ModuleNotFoundError, match="vanished_commands"):
        cli.build_parser()
