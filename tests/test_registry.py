"""The one registration mechanism (judgebias_core/registry.py): built-ins load lazily, in order, through the same
path as anything registered later; a missing built-in fails loudly; names are unique."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass

import pytest

from judgebias_core.registry import DuplicateRecord, Registry, UnknownRecord


@dataclass(frozen=True)
class Thing:
    name: str
    value: int = 0


@pytest.fixture
def built_in_module(monkeypatch: pytest.MonkeyPatch) -> str:
    module = types.ModuleType("fake_built_in_thing")
    module.THING = Thing("first", 1)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_built_in_thing", module)
    return "fake_built_in_thing"


def test_built_ins_come_first_then_what_was_registered(built_in_module: str) -> None:
    registry: Registry[Thing] = Registry("thing", (built_in_module,), "THING")
    registry.register(Thing("later", 2))  # before the first lookup: joins after the built-ins
    assert registry.names() == ("first", "later")
    assert registry.get("later").value == 2
    assert "first" in registry and "missing" not in registry


def test_unknown_and_duplicate_names_are_named(built_in_module: str) -> None:
    registry: Registry[Thing] = Registry("thing", (built_in_module,), "THING")
    with pytest.raises(UnknownRecord, match="unknown thing 'nope'; known: first"):
        registry.get("nope")
    with pytest.raises(DuplicateRecord, match="'first' is registered already"):
        registry.register(Thing("first"))


def test_registered_for_a_block_only(built_in_module: str) -> None:
    registry: Registry[Thing] = Registry("thing", (built_in_module,), "THING")
    with registry.registered(Thing("fake", 3)) as fake:
        assert registry.get("fake") is fake
    assert registry.names() == ("first",)


def test_a_listed_module_without_its_record_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fake_empty_module", types.ModuleType("fake_empty_module"))
    registry: Registry[Thing] = Registry("thing", ("fake_empty_module",), "THING")
    with pytest.raises(ImportError, match="defines no THING"):
        registry.names()


def test_a_built_in_module_may_declare_several_records_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("fake_several_things")
    module.THINGS = (Thing("one", 1), Thing("two", 2))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_several_things", module)
    registry: Registry[Thing] = Registry("thing", ("fake_several_things",), "THINGS")
    assert registry.names() == ("one", "two")
