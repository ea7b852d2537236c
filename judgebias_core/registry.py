"""The one registration mechanism: providers, topics, CLI commands and upload kinds are each a ``Registry``.

Modelled on datasette's plugins (built-ins go through the same mechanism as anything added later) and inspect_ai's
registries. A built-in lives in one module that defines one module-level record (``PROVIDER = Provider(...)``,
``TOPIC = Topic(...)``, ...), or a tuple of records when one module declares several (``COMMANDS``: the CLI's
commands, kept apart from their heavy handler modules); the registry lists those modules and imports them on the
first lookup, so importing a registry costs nothing. Anything else calls ``register(record)`` (a plugin, a test's fake). Every record has a
``name``; registration order is the order every list derived from the registry shows (the CLI's choices, the
report's sections, the page's picker).

Keeping this module free of imports beyond the standard library keeps every registry cheap to import: the CLI's
``--help`` reads the command registry without loading pandas.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, Protocol, TypeVar

from judgebias_core.errors import InvalidArgument


class Named(Protocol):
    @property
    def name(self) -> str: ...


R = TypeVar("R", bound=Named)


class UnknownRecord(InvalidArgument):
    """A lookup named nothing registered under that name."""


class DuplicateRecord(InvalidArgument):
    """A record was registered under a name that is taken."""


class Registry(Generic[R]):
    """Records of one kind, by name, in registration order.

    ``kind``: what a record is, for messages ("provider", "topic", ...). ``built_in``: the modules (full dotted
    names) each defining ``attribute``, loaded on first use; a listed module that is missing or defines no record
    fails loudly at that point, never silently (tests import every registry). ``attribute`` may hold one record or
    a tuple of records (in order)."""

    def __init__(self, kind: str, built_in: tuple[str, ...], attribute: str) -> None:
        self.kind = kind
        self.built_in = built_in
        self.attribute = attribute
        self._records: dict[str, R] = {}
        self._loaded = False

    def _all(self) -> dict[str, R]:
        if not self._loaded:
            self._loaded = True  # set first: a built-in module may itself look up the registry while importing
            added_before = dict(self._records)
            self._records.clear()
            for module_name in self.built_in:
                module = importlib.import_module(module_name)
                if not hasattr(module, self.attribute):
                    raise ImportError(f"{module_name} is listed as a built-in {self.kind} but defines no "
                                      f"{self.attribute}")
                declared = getattr(module, self.attribute)
                for record in declared if isinstance(declared, tuple) else (declared,):
                    self._add(record)
            for record in added_before.values():
                self._add(record)
        return self._records

    def _add(self, record: R) -> R:
        if record.name in self._records:
            raise DuplicateRecord(f"{self.kind} {record.name!r} is registered already")
        self._records[record.name] = record
        return record

    def register(self, record: R) -> R:
        """Add a record after the built-ins; a name that is taken is refused (``unregister`` it first)."""
        if not self._loaded:
            if record.name in self._records:
                raise DuplicateRecord(f"{self.kind} {record.name!r} is registered already")
            self._records[record.name] = record  # joins after the built-ins when they load
            return record
        return self._add(record)

    def unregister(self, name: str) -> None:
        self._all().pop(name, None)

    @contextmanager
    def registered(self, record: R) -> Iterator[R]:
        """``record`` registered for the block only (tests registering a fake)."""
        self.register(record)
        try:
            yield record
        finally:
            self.unregister(record.name)

    def get(self, name: str) -> R:
        """The record of that name; ``UnknownRecord`` naming the known ones otherwise."""
        records = self._all()
        if name not in records:
            raise UnknownRecord(f"unknown {self.kind} {name!r}; known: {', '.join(records)}")
        return records[name]

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def records(self) -> tuple[R, ...]:
        return tuple(self._all().values())

    def names(self) -> tuple[str, ...]:
        return tuple(self._all())
