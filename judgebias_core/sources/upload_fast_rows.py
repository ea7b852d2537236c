"""Column-wise validation that lets the rows of a large upload skip pydantic, with the same result.

A row model of upload_validate is, field by field, a cell validator (``BeforeValidator``) on a plain type, a dict
of such cells, or a default; plus whole-row checks (``model_validator(mode="after")``). ``split_rows`` runs, column
by column, a fast check for the common plain cells (non-blank text, a blank where optional, an int or integral
float in range) and the model's own cell validators for the rest, then the whole-row checks; a row where any of
them objects is left to the full model, which reports every problem with its row and column exactly as before.
Rows that pass get the values the full model would give them (the same validator functions, or checks that
produce what they produce), without building and dumping a model instance per row.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from typing import Any, get_args, get_origin

import numpy as np
from pydantic import BaseModel
from pydantic_core import PydanticCustomError

_REFUSED = object()  # a cell the fast path does not settle: its row takes the full path
CellCheck = Callable[[Any], Any]


def _blank(value: Any) -> bool:
    return value is None or (type(value) is float and math.isnan(value)) or (type(value) is str and not value.strip())


def _optional(check: CellCheck, default: Any = None) -> CellCheck:
    def optional(value: Any) -> Any:
        return default if _blank(value) else check(value)

    return optional


def _integer(value: Any) -> Any:
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return _REFUSED


def _repetition(most: int) -> CellCheck:
    def repetition(value: Any) -> Any:
        number = _integer(value)
        return number if number is not _REFUSED and 1 <= number <= most else _REFUSED

    return repetition


class _TextColumn:
    """The fast check of a text cell type, also applied to a whole column at once (``column``)."""

    def __init__(self, strip: bool, optional: bool) -> None:
        self.strip, self.optional = strip, optional

    def __call__(self, value: Any) -> Any:
        return self.column([value])[0]

    def column(self, values: list[Any]) -> list[Any]:
        """The check over a whole column, inlined (the common cell, text, costs no function call)."""
        blank = None if self.optional else _REFUSED
        if self.strip:
            return [((t if (t := v.strip()) else blank) if type(v) is str else self._other(v)) for v in values]
        return [((v if v.strip() else blank) if type(v) is str else self._other(v)) for v in values]

    def _other(self, value: Any) -> Any:
        """A cell that is not text: a number as upload_validate writes it (4.0 as "4"), a blank, or refused."""
        if type(value) is int:
            return str(value)
        if type(value) is float:
            if math.isnan(value):
                return None if self.optional else _REFUSED
            if math.isfinite(value):
                return str(int(value)) if value.is_integer() else str(value)
        return None if self.optional and value is None else _REFUSED


def fast_checks(aliases: dict[str, Any], max_integer: int) -> dict[Any, CellCheck]:
    """The fast check of each plain cell type, keyed by its validator function (from the ``Annotated`` aliases
    of upload_validate: Text, Ident, OptText, OptIdent, OptInt, Repetition)."""
    checks: dict[str, CellCheck] = {"Text": _TextColumn(False, False), "Ident": _TextColumn(True, False),
                                    "OptText": _TextColumn(False, True), "OptIdent": _TextColumn(True, True),
                                    "OptInt": _optional(_integer),
                                    "Repetition": _optional(_repetition(max_integer), 1)}
    return {_validator(aliases[name]): check for name, check in checks.items()}


def _validator(annotation: Any) -> Any:
    """The function of an ``Annotated[..., BeforeValidator(f)]`` alias (None for anything else)."""
    return next((m.func for m in getattr(annotation, "__metadata__", ()) if hasattr(m, "func")), None)


def _guarded(validate: CellCheck) -> CellCheck:
    """A model's own cell validator, a refusal instead of its error."""
    def check(value: Any) -> Any:
        try:
            return validate(value)
        except (PydanticCustomError, ValueError, TypeError):
            return _REFUSED

    return check


def _field_check(field: Any, checks: dict[Any, CellCheck]) -> CellCheck | None:
    own = next((m.func for m in field.metadata if hasattr(m, "func")), None)
    if own is not None:
        return checks.get(own) or _guarded(own)
    if get_origin(field.annotation) is dict:
        key, value = get_args(field.annotation)
        inner = _validator(value)
        if key is not str or inner is None:
            return None
        cell = checks.get(inner) or _guarded(inner)

        def each(cells: Any) -> Any:
            if type(cells) is not dict:
                return _REFUSED
            if not cells:
                return {}
            out = {k: cell(v) for k, v in cells.items()}
            refused = any(v is _REFUSED for v in out.values()) or not all(type(k) is str for k in out)
            return _REFUSED if refused else out

        return each
    return None


def _same(value: Any) -> Any:
    return value


def _row_checks(model: type[BaseModel]) -> list[Callable[[Any], Any]] | None:
    """The model's whole-row checks (None when it has validators the fast path does not run)."""
    decorators = model.__pydantic_decorators__
    if decorators.field_validators or decorators.root_validators or decorators.validators:
        return None
    found = list(decorators.model_validators.values())
    if any(d.info.mode != "after" for d in found):
        return None
    return [d.func for d in found]


def split_rows(records: Sequence[dict[str, Any]], model: type[BaseModel],
               checks: dict[Any, CellCheck]) -> tuple[dict[str, list[Any]], np.ndarray]:
    """Every field's column of values as the full model would give them, and which rows those are valid for
    (the others are left to the full model; their entries in the columns mean nothing)."""
    fields = model.model_fields
    field_checks = {name: _field_check(field, checks) for name, field in fields.items()}
    row_checks = _row_checks(model)
    if row_checks is None or any(check is None for check in field_checks.values()):
        return {name: [None] * len(records) for name in fields}, np.zeros(len(records), dtype=bool)
    columns: dict[str, list[Any]] = {}
    ok = np.ones(len(records), dtype=bool)
    for name, check in field_checks.items():
        assert check is not None
        default = _REFUSED if fields[name].is_required() else fields[name].get_default(call_default_factory=True)
        fresh = copy.copy if isinstance(default, dict | list) else _same  # no default shared between rows
        if isinstance(check, _TextColumn) and all(name in r for r in records):
            columns[name] = check.column([r[name] for r in records])
        else:
            columns[name] = [check(r[name]) if name in r else fresh(default) for r in records]
        ok &= np.fromiter((v is not _REFUSED for v in columns[name]), dtype=bool, count=len(records))
    if row_checks:
        names = list(fields)
        for index in np.flatnonzero(ok).tolist():
            if not _passes(model, {n: columns[n][index] for n in names}, row_checks):
                ok[index] = False
    return columns, ok


def _passes(model: type[BaseModel], row: dict[str, Any], row_checks: list[Callable[[Any], Any]]) -> bool:
    instance = model.model_construct(**row)
    try:
        for check in row_checks:
            check(instance)
    except (PydanticCustomError, ValueError):
        return False
    return True
