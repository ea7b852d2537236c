"""Row validation of uploads with pydantic, lazily: every bad row is reported with its column and reason."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Annotated, Any, ClassVar

import numpy as np
import pandas as pd
from pydantic import BaseModel, BeforeValidator, ConfigDict, TypeAdapter, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from judgebias_core.errors import RowProblem
from judgebias_core.sources.upload_fast_rows import fast_checks, split_rows
from judgebias_core.sources.upload_read import MAX_NESTING

_INTEGER = re.compile(r"^[+-]?\d+(?:\.0*)?$")
MIN_LISTWISE_SLOTS = 3  # fewer is a pairwise call: upload it as a pairwise log
MAX_STORE_INTEGER = 2**31 - 1  # the store's INTEGER columns (repetition, levels, positions)
_MAX_DIGITS = 30  # longer digit strings are refused before int() reads them (it refuses 4,300+ digits itself)


def clean_cell(value: Any) -> Any:
    """A file's cell as validation sees it: blanks and NaN become None, 4.0 becomes 4, arrays become lists."""
    if type(value) is str:  # most cells: answered first
        return value if value.strip() else None
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return int(value) if value.is_integer() else value
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _missing() -> PydanticCustomError:
    return PydanticCustomError("missing_value", "missing value (this field is required)")


def _not_integer(value: Any) -> PydanticCustomError:
    return PydanticCustomError("not_integer", "{value} is not an integer", {"value": repr(value)})


def _text(value: Any) -> str:
    if isinstance(value, list | dict):
        raise PydanticCustomError("not_text", "expected text, got a {kind}", {"kind": type(value).__name__})
    if isinstance(value, float) and not math.isfinite(value):  # JSON's NaN is a blank; Infinity is refused
        raise PydanticCustomError("not_finite", "{value} is not a finite value", {"value": repr(value)})
    return value if isinstance(value, str) else str(value)


def _ident(value: Any) -> str:
    return _text(value).strip()


def _integer(value: Any) -> int:
    if isinstance(value, bool | list | dict | float):
        raise _not_integer(value)
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if not _INTEGER.match(text):
        raise _not_integer(value)
    digits = text.split(".")[0]
    if len(digits.lstrip("+-")) > _MAX_DIGITS:
        raise PydanticCustomError("int_range", "{value} is out of range (an integer of at most {digits} digits)",
                                  {"value": f"{digits[:12]}...", "digits": _MAX_DIGITS})
    return int(digits)


def _list_cell(value: Any, separators: str, expected: str, keep_blanks: bool = False) -> list[Any]:
    """A list cell's entries (cleaned): a list, a JSON list '[...]', or text split on ``separators`` (blank parts
    dropped unless ``keep_blanks``: then they are None)."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except RecursionError:
                raise PydanticCustomError("nested", "nested too deeply (lists or objects more than "
                                                    "{depth} levels deep)", {"depth": MAX_NESTING}) from None
            except ValueError as error:
                raise PydanticCustomError("not_list", "{value} is not a JSON list", {"value": repr(text)}) from error
        else:
            value = [part for part in re.split(separators, text) if keep_blanks or part]
    elif isinstance(value, int):
        value = [value]
    if not isinstance(value, list) or not value:
        raise PydanticCustomError("not_list", "expected {expected}", {"expected": expected})
    return [clean_cell(v) for v in value]


def _int_list(value: Any) -> list[int | None]:
    """A list of integers from a list, a JSON list "[3, 4, 5]" or "3,4,5" / "3 4 5"."""
    cleaned = _list_cell(value, r"[,;\s]+", "a list of integers such as [3, 4, 5] or 3,4,5")
    return [None if v is None else _integer(v) for v in cleaned]


def _name_list(value: Any) -> list[str]:
    """Candidate names in slot order from a list, a JSON list '["a", "b", "c"]' or "a,b,c" (or "a;b;c")."""
    cleaned = _list_cell(value, r"[,;]", 'a list of candidates such as ["gpt4", "claude", "llama"] or '
                                         "gpt4,claude,llama", keep_blanks=True)
    if any(name is None for name in cleaned):
        raise PydanticCustomError("blank_name", "a slot has no candidate name")
    names = [_ident(name) for name in cleaned]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise PydanticCustomError("repeated_name", "candidate {names} appears in more than one slot",
                                  {"names": ", ".join(map(repr, repeated))})
    if len(names) < MIN_LISTWISE_SLOTS:
        raise PydanticCustomError("few_slots", "{count} candidate(s) in the slots; a list-wise call shows "
                                               "{least} or more", {"count": len(names), "least": MIN_LISTWISE_SLOTS})
    return names


def readable_integer(value: Any) -> int | None:
    """The integer a cell holds, or None when it is blank or not an integer (validation reports that apart)."""
    try:
        cleaned = clean_cell(value)
        return None if cleaned is None else _integer(cleaned)
    except PydanticCustomError:
        return None


def readable_integers(value: Any) -> list[int | None] | None:
    """The integers a list cell holds (unreadable entries None), or None when the cell is not a list of them."""
    try:
        cleaned = clean_cell(value)
        return None if cleaned is None else _int_list(cleaned)
    except PydanticCustomError:
        return None


def _repetition(value: int) -> int:
    if value < 1:
        raise PydanticCustomError("repetition", "repetition {value} must be 1 or more", {"value": value})
    if value > MAX_STORE_INTEGER:
        raise PydanticCustomError("repetition", "repetition {value} is out of range (1 to {most})",
                                  {"value": value, "most": f"{MAX_STORE_INTEGER:,}"})
    return value


def _cell(parse: Callable[[Any], Any], required: bool = True, default: Any = None) -> BeforeValidator:
    """Clean the cell, then parse it; a blank cell is a 'missing value' problem unless optional."""
    def validate(value: Any) -> Any:
        value = clean_cell(value)
        if value is None:
            if required:
                raise _missing()
            return default
        return parse(value)

    return BeforeValidator(validate)


Text = Annotated[str, _cell(_text)]
Ident = Annotated[str, _cell(_ident)]
_optional_text = _cell(_text, required=False).func
OptText = Annotated[str | None, _cell(_text, required=False)]
OptIdent = Annotated[str | None, _cell(_ident, required=False)]
OptInt = Annotated[int | None, _cell(_integer, required=False)]
IntList = Annotated[list[int | None], _cell(_int_list)]
OptIntList = Annotated[list[int | None] | None, _cell(_int_list, required=False)]
NameList = Annotated[list[str], _cell(_name_list)]
# A candidate answer may be empty text where the format says so (JSON "", Parquet ""): only null is missing.
AnswerText = Annotated[str | None, BeforeValidator(lambda v: v if isinstance(v, str) else _optional_text(v))]
Repetition = Annotated[int, _cell(lambda v: _repetition(_integer(v)), required=False, default=1)]


class UploadRow(BaseModel):
    """One row of an upload as its kind's ``row_model`` validates it (fields named like the kind's fields)."""

    model_config = ConfigDict(extra="ignore")


class ItemRow(UploadRow):
    """A pointwise item: one response to score, with optional human scores."""

    item_id: Ident
    instruction: Text
    response: Text
    reference_answer: OptText = None
    candidate: OptIdent = None
    task: OptIdent = None
    rater_scores: dict[str, OptInt] = {}
    scores: OptIntList = None


class PairRow(UploadRow):
    """A pairwise item: a prompt and two or more candidate answers (keyed by their answer column)."""

    item_id: Ident
    prompt: Text
    task: OptIdent = None
    preference: OptIdent = None
    answers: dict[str, AnswerText]
    names: dict[str, OptIdent] = {}

    @model_validator(mode="after")
    def _two_named_answers(self) -> PairRow:
        given = [column for column, text in self.answers.items() if text is not None]
        if len(given) < 2:
            raise PydanticCustomError("answers", "fewer than two candidate answers in this row")
        if self.names:
            named = [self.names.get(column) for column in given]
            if any(name is None for name in named):
                raise PydanticCustomError("names", "an answer has no candidate name in its name column")
            if len(set(named)) < len(named):
                raise PydanticCustomError("names", "two answers of this row name the same candidate")
        return self


class _LogRow(UploadRow):
    """What every judge-log row holds; ``outcome`` names the parsed-value field that may replace the raw reply."""

    outcome: ClassVar[str]
    item_id: Ident
    judge: Ident
    raw_output: OptText = None
    repetition: Repetition = 1
    prompt: OptText = None

    @model_validator(mode="after")
    def _has_outcome(self) -> _LogRow:
        if self.raw_output is None and getattr(self, self.outcome) is None:
            raise PydanticCustomError("no_outcome", "missing value: give the raw reply or the {outcome}",
                                      {"outcome": self.outcome, "field": self.outcome})
        return self


class PairCallRow(_LogRow):
    """One pairwise judge call from a log."""

    outcome: ClassVar[str] = "verdict"
    first_candidate: Ident
    second_candidate: Ident
    verdict: OptIdent = None

    @model_validator(mode="after")
    def _two_candidates(self) -> PairCallRow:
        if self.first_candidate == self.second_candidate:
            raise PydanticCustomError("same_candidate", "the same candidate sits in both slots")
        return self


class RubricTrialRow(_LogRow):
    """One rubric trial from a log: the ordering shown and what the judge answered."""

    outcome: ClassVar[str] = "score"
    ordering: IntList
    score: OptIdent = None


class ListwiseCallRow(_LogRow):
    """One list-wise judge call from a log: the candidates in slot order and the pick."""

    outcome: ClassVar[str] = "pick"
    slots: NameList
    pick: OptIdent = None


ColumnOf = Callable[[tuple[Any, ...]], str | None]


_FAST_CHECKS = fast_checks({"Text": Text, "Ident": Ident, "OptText": OptText, "OptIdent": OptIdent,
                            "OptInt": OptInt, "Repetition": Repetition}, MAX_STORE_INTEGER)


def validate_rows(records: Sequence[dict[str, Any]], model: type[UploadRow],
                  column_of: ColumnOf) -> tuple[pd.DataFrame, list[RowProblem]]:
    """Validate every record; return the valid rows (with their 1-based ``row``) and one problem per error.

    ``column_of`` turns an error's location inside a record (field, key, ...) into the file's column. Rows that
    pass the column-wise validation of ``upload_fast_rows`` skip pydantic; the others are validated (and their
    problems reported) by ``model`` itself.
    """
    columns, ok = split_rows(records, model, _FAST_CHECKS)
    slow_index = np.flatnonzero(~ok).tolist()
    slow_valid, errors = _validate([records[i] for i in slow_index], model)
    problems = []
    for position, detail in errors:
        index, inner = slow_index[position], list(detail["loc"][1:])
        if not inner and "field" in detail.get("ctx", {}):  # a whole-row check that concerns one field
            inner = [detail["ctx"]["field"]]
        problems.append(RowProblem(row=index + 1, column=column_of(tuple(inner)), reason=detail["msg"]))
    for position, row in slow_valid.items():
        ok[slow_index[position]] = True
        for name, value in row.items():
            columns[name][slow_index[position]] = value
    kept = np.flatnonzero(ok).tolist()
    whole = len(kept) == len(records)
    frame = pd.DataFrame({name: values if whole else [values[i] for i in kept] for name, values in columns.items()},
                         columns=list(model.model_fields)) if kept else pd.DataFrame.from_records(
                             [], columns=list(model.model_fields))  # object columns, as before
    frame.insert(0, "row", [i + 1 for i in kept])
    return frame, sorted(problems, key=lambda p: (p.row or 0, p.column or ""))


def _validate(records: Sequence[dict[str, Any]], model: type[BaseModel]) -> tuple[
        dict[int, dict[str, Any]], list[tuple[int, Any]]]:
    """The dumped valid rows by position, and (position, error detail) per error; ``errors`` rows are left out."""
    adapter: TypeAdapter[list[BaseModel]] = TypeAdapter(list[model])  # type: ignore[valid-type]  # a model class chosen at run time
    errors: list[tuple[int, Any]] = []
    bad: set[int] = set()
    try:
        valid = adapter.validate_python(list(records))
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            errors.append((int(detail["loc"][0]), detail))
            bad.add(int(detail["loc"][0]))
        valid = adapter.validate_python([r for i, r in enumerate(records) if i not in bad])
    kept = [i for i in range(len(records)) if i not in bad]
    return dict(zip(kept, adapter.dump_python(valid), strict=True)), errors


def duplicate_problems(frame: pd.DataFrame, keys: list[str], column: str | None, what: str) -> list[RowProblem]:
    """One problem per row whose ``keys`` repeat an earlier row's."""
    if frame.empty:
        return []
    repeated = frame.duplicated(keys, keep=False)
    if not repeated.any():
        return []
    first_row = frame.groupby(keys, dropna=False)["row"].transform("min")
    dupes = frame[repeated & (frame["row"] != first_row)]
    values = dupes[keys].astype(str).agg(" / ".join, axis=1)
    return [RowProblem(int(row), column, f"duplicate {what} {value!r} (first on row {int(first)})")
            for row, value, first in zip(dupes["row"], values, first_row[dupes.index], strict=True)]
