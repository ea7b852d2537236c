"""The CLI's commands: records of the one registry (judgebias_core/registry.py), the only list of commands.

A ``Command`` names a command exactly as it is typed after ``python -m judgebias_core``: ``gate``, ``run``, or a
group and a word, ``metrics pairwise``, ``export trials``. That ``name`` is unique and stable: other records refer
to a command by it (a topic's ``cli_commands``, judgebias_core/topics). The record carries the command's help line,
which ``--help`` lists without importing anything else, and ``arguments``: where the function is that adds the
command's arguments and its handler to its sub-parser, as ``"module:function"``, imported only when that command
is the one run or asked for its own help (command modules import pandas, scipy and the engine), or the function
itself (a command registered from a test).

The built-in records are ``BUILT_IN_COMMANDS`` in cli/command_index.py; ``COMMANDS.register(Command(...))`` adds
one from anywhere, and the parser (cli/__init__.py) offers it like any other.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judgebias_core.registry import Registry

if TYPE_CHECKING:
    import argparse


@dataclass(frozen=True)
class CommandGroup:
    """A first word grouping commands (``metrics``): its help, and how argparse names the word chosen under it."""

    help: str
    metavar: str
    dest: str


# In the order ``--help`` lists them, before the commands of no group.
COMMAND_GROUPS: dict[str, CommandGroup] = {
    "metrics": CommandGroup("compute bias and agreement metrics", "METRIC", "metric"),
    "export": CommandGroup("export stored data to files", "WHAT", "export_what"),
}

AddArguments = Callable[["argparse.ArgumentParser"], None]


@dataclass(frozen=True)
class Command:
    """One command: ``name`` as typed (unique), ``help`` as ``--help`` lists it, ``arguments`` as above."""

    name: str
    arguments: str | AddArguments
    help: str

    def __post_init__(self) -> None:
        words = self.name.split()
        if not 1 <= len(words) <= 2 or (len(words) == 2 and words[0] not in COMMAND_GROUPS):
            raise ValueError(f"command {self.name!r}: a command is one word or a group ({', '.join(COMMAND_GROUPS)}) "
                             "and one word")
        if isinstance(self.arguments, str) and ":" not in self.arguments:
            raise ValueError(f"command {self.name!r}: arguments are named as 'module:function'")

    @property
    def group(self) -> str | None:
        words = self.name.split()
        return words[0] if len(words) == 2 else None

    @property
    def word(self) -> str:
        return self.name.split()[-1]

    @property
    def module(self) -> str | None:
        """The module holding the command's arguments and handler (None for a function given directly)."""
        return self.arguments.partition(":")[0] if isinstance(self.arguments, str) else None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the command's arguments and handler to its sub-parser (importing its module now)."""
        if isinstance(self.arguments, str):
            module, _, function = self.arguments.partition(":")
            getattr(importlib.import_module(module), function)(parser)
        else:
            self.arguments(parser)


COMMANDS: Registry[Command] = Registry("command", ("judgebias_core.cli.command_index",), "BUILT_IN_COMMANDS")


def command_named(argv: list[str] | tuple[str, ...]) -> Command | None:
    """The command a command line names (None for ``--help``, ``--version`` or an unknown command): its first
    words, options and the value of ``--db`` left out."""
    words: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--db":
            skip = True
        elif not word.startswith("-"):
            words.append(word)
            if len(words) == 2:
                break
    typed = " ".join(words)
    named = [c for c in COMMANDS.records() if typed == c.name or typed.startswith(c.name + " ")]
    return max(named, key=lambda c: len(c.name), default=None)
