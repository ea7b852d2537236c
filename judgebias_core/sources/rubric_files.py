"""Rubric files (YAML or JSON): a criterion and k level descriptions, read into ``Rubric``s and store records.

Accepted shapes: one rubric, a list of rubrics, or ``{"rubrics": [...]}``. Per rubric: the criterion under
``criterion`` or ``criteria``; the levels under ``levels`` or ``score_descriptions``, as a mapping keyed by level
(integers or strings such as "1"), or a list of descriptions (levels 1..k); optional ``id``/``rubric_id``.
Levels are integers from 1 to ``MAX_LEVEL``, 2 to ``MAX_LEVELS`` of them, consecutive unless the rubric says
``gaps: true``. A key given twice (YAML or JSON) is refused rather than the last one kept.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePath
from typing import Any

import pandas as pd
import yaml

from judgebias_core.errors import NotFoundError, RowProblem, ValidationFailed
from judgebias_core.identity import stable_id
from judgebias_core.models import Rubric, RubricLevel
from judgebias_core.sources.refused_characters import control_problem
from judgebias_core.sources.upload_read import check_size, decode_text, file_problem, nested_too_deeply
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import list_rubrics, load_rubric
from judgebias_core.store.writes import StoreBatch, WriteResult, write_batch

RUBRIC_SUFFIXES = (".yaml", ".yml", ".json")
MAX_RUBRIC_BYTES = 1024 * 1024
_RUBRIC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,79}$")
MAX_LEVEL = 100
_MAX_LEVEL_DIGITS = 30
MAX_LEVELS = 20  # a permutation study shows every ordering's positions: more levels are not a rubric to test


class DuplicateKey(ValueError):
    """A mapping gives one key twice."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a mapping that gives one key twice (PyYAML keeps the last silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in seen
            except TypeError:  # YAML allows a list or mapping as a key ("? [1, 2]"); no rubric has one
                raise yaml.constructor.ConstructorError(None, None, "a key must be a number or text, not a "
                                                        f"{type(key).__name__}", key_node.start_mark) from None
            if repeated:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


# Integers in base 10 only: YAML 1.1 also reads 0x10 as 16, 010 as 8 and 1:30 as 90; those stay text here (and are
# then refused as levels that are not integers).
_INT_TAG = "tag:yaml.org,2002:int"
_UniqueKeyLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != _INT_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_UniqueKeyLoader.add_implicit_resolver(_INT_TAG, re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = next((key for key in keys if keys.count(key) > 1), None)
    if repeated is not None:
        raise DuplicateKey(f"duplicate key {repeated!r}")
    return dict(pairs)


def _parse_document(text: str, suffix: str) -> Any:
    try:
        if suffix == ".json":
            return json.loads(text, object_pairs_hook=_unique_pairs)
        return yaml.load(text, Loader=_UniqueKeyLoader)
    except RecursionError:
        raise ValidationFailed([nested_too_deeply()]) from None
    except (ValueError, yaml.YAMLError) as error:
        where = getattr(error, "problem_mark", None)
        line = where.line + 1 if where is not None else getattr(error, "lineno", None)
        raise file_problem(f"unparseable {'JSON' if suffix == '.json' else 'YAML'}: "
                           f"{getattr(error, 'problem', None) or error}", row=line) from error


def _entries(document: Any) -> list[Any]:
    if isinstance(document, dict) and isinstance(document.get("rubrics"), list):
        return list(document["rubrics"])
    if isinstance(document, list):
        return document
    return [document]


def _level(key: Any) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    if isinstance(key, float) and key.is_integer():
        return int(key)
    text = str(key).strip()
    if not re.fullmatch(r"[+-]?\d+", text):
        return None
    # int() refuses more than 4,300 digits; any level that long is out of range anyway: a number just past the range
    # says so (and _shown_level abbreviates it) instead of spending time on it.
    return int(text) if len(text.lstrip("+-")) <= _MAX_LEVEL_DIGITS else (MAX_LEVEL + 1) * (-1 if text[0] == "-" else 1)


def _shown_level(key: Any, level: int) -> str:
    """A level as the message shows it: its first digits when it is long."""
    text = str(key).strip() if not isinstance(key, int) else str(level)
    return text if len(text) <= _MAX_LEVEL_DIGITS else f"{text[:12]}..."


def _level_problems(levels: list[tuple[Any, RubricLevel]], gaps: bool, where: str) -> list[str]:
    values = sorted(lv.level for _, lv in levels)
    if len(values) > MAX_LEVELS:
        return [f"{where}: {len(values)} levels; a rubric has at most {MAX_LEVELS}"]
    problems = [f"{where}: level {_shown_level(key, lv.level)} is out of range (1 to {MAX_LEVEL})"
                for key, lv in sorted(levels, key=lambda pair: pair[1].level) if not 1 <= lv.level <= MAX_LEVEL]
    if not problems and not gaps and values != list(range(values[0], values[0] + len(values))):
        problems.append(f"{where}: levels {', '.join(map(str, values))} have gaps; give consecutive levels, or "
                        "set gaps: true")
    return problems


def _text_problems(entry: dict[Any, Any], where: str) -> list[RowProblem]:
    texts = [("criterion", entry.get("criterion", entry.get("criteria"))), ("id", entry.get("id")),
             ("source", entry.get("source"))]
    raw_levels = entry.get("levels", entry.get("score_descriptions"))
    if isinstance(raw_levels, dict | list):
        texts += [("levels", text) for text in (raw_levels.values() if isinstance(raw_levels, dict) else raw_levels)]
    return [RowProblem(None, column, f"{where}: {reason}") for column, text in texts
            if isinstance(text, str) and (reason := control_problem(text))]


def _one(entry: Any, number: int) -> tuple[Rubric | None, list[RowProblem]]:
    where = f"rubric {number}"
    if not isinstance(entry, dict):
        return None, [RowProblem(number, None, f"{where}: expected a mapping with a criterion and levels")]
    problems = [RowProblem(number, p.column, p.reason) for p in _text_problems(entry, where)]
    criterion = entry.get("criterion", entry.get("criteria"))
    if not isinstance(criterion, str) or not criterion.strip():
        problems.append(RowProblem(number, "criterion",
                                   f"{where}: missing criterion (under 'criterion' or 'criteria')"))
    raw_levels = entry.get("levels", entry.get("score_descriptions"))
    if isinstance(raw_levels, list):
        raw_levels = dict(enumerate(raw_levels, start=1))
    if not isinstance(raw_levels, dict) or len(raw_levels) < 2:
        problems.append(RowProblem(number, "levels", f"{where}: give at least two levels (under 'levels' or "
                                                     "'score_descriptions'), keyed by level"))
        return None, problems
    keyed: list[tuple[Any, RubricLevel]] = []
    for key, description in raw_levels.items():
        level = _level(key)
        if level is None:
            problems.append(RowProblem(number, "levels", f"{where}: level {key!r} is not an integer (base 10)"))
        elif not isinstance(description, str) or not description.strip():
            problems.append(RowProblem(number, "levels", f"{where}: level {_shown_level(key, level)} has no "
                                                         "description"))
        else:
            keyed.append((key, RubricLevel(level, description.strip())))
    levels = [lv for _, lv in keyed]
    if len({lv.level for lv in levels}) < len(levels):
        problems.append(RowProblem(number, "levels", f"{where}: a level is given twice"))
    elif levels and not problems:
        problems += [RowProblem(number, "levels", reason)
                     for reason in _level_problems(keyed, entry.get("gaps") is True, where)]
    given_id = entry.get("rubric_id", entry.get("id"))
    if given_id is not None and not _RUBRIC_ID.match(str(given_id)):
        problems.append(RowProblem(number, "id", f"{where}: id {given_id!r} may hold only letters, digits, "
                                                 "'.', '_', ':' or '-'"))
    if problems or not isinstance(criterion, str):  # a non-text criterion is among the problems
        return None, problems
    ordered = tuple(sorted(levels, key=lambda lv: lv.level))
    rubric_id = str(given_id) if given_id is not None else (
        "upload-" + stable_id(criterion.strip(), [(lv.level, lv.description) for lv in ordered])[:12])
    return Rubric(rubric_id, criterion.strip(), ordered, source=str(entry.get("source", ""))), []


def read_rubrics(data: bytes, file_name: str) -> list[Rubric]:
    """Every rubric in a YAML or JSON file; raises ``ValidationFailed`` listing every problem."""
    suffix = PurePath(file_name).suffix.lower()
    if suffix not in RUBRIC_SUFFIXES:
        raise file_problem(f"unsupported rubric file type {suffix or '(none)'!r}: use YAML or JSON")
    check_size(data, MAX_RUBRIC_BYTES)
    document = _parse_document(decode_text(data), suffix)
    rubrics, problems = [], []
    for number, entry in enumerate(_entries(document), start=1):
        rubric, found = _one(entry, number)
        problems += found
        if rubric is not None:
            rubrics.append(rubric)
    ids = [r.rubric_id for r in rubrics]
    problems += [RowProblem(None, "id", f"rubric id {i!r} appears twice") for i in sorted({i for i in ids
                                                                                         if ids.count(i) > 1})]
    if problems:
        raise ValidationFailed(problems, file_name)
    return rubrics


def rubrics_batch(rubrics: list[Rubric], file_name: str, dataset_id: str | None = None) -> StoreBatch:
    """Store records of uploaded rubrics (optionally tied to a dataset)."""
    heads = pd.DataFrame([{"rubric_id": r.rubric_id, "criterion": r.criterion, "k": r.k,
                           "source": r.source or f"upload: {file_name}", "dataset_id": dataset_id} for r in rubrics])
    levels = pd.DataFrame([{"rubric_id": r.rubric_id, "level": lv.level, "description": lv.description}
                           for r in rubrics for lv in r.levels])
    return StoreBatch(rubrics=heads, rubric_levels=levels)


def upload_rubrics(store: Store, data: bytes, file_name: str,
                   dataset_id: str | None = None) -> tuple[list[Rubric], WriteResult]:
    """Read a rubric file and store its rubrics in one transaction (an id already stored is left as it was)."""
    rubrics = read_rubrics(data, file_name)
    clashes = []
    with store.reader() as reader:  # one read for every id; only ids already stored are compared one by one
        stored_ids = set(list_rubrics(reader)["rubric_id"])
        for rubric in (r for r in rubrics if r.rubric_id in stored_ids):
            try:
                stored = load_rubric(reader, rubric.rubric_id)
            except NotFoundError:
                continue
            if (stored.criterion, stored.levels) != (rubric.criterion, rubric.levels):
                clashes.append(RowProblem(None, "id", f"rubric id {rubric.rubric_id!r} is already stored with "
                                                      "another criterion or levels; give this rubric another id"))
    if clashes:
        raise ValidationFailed(clashes, file_name)
    return rubrics, write_batch(store, rubrics_batch(rubrics, file_name, dataset_id))
