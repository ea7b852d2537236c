"""What an upload kind is (one ``UploadKind`` record), and the registry of them.

Each built-in kind lives in one module of ``sources/upload_kinds/`` defining ``UPLOAD_KIND``; the core
(``sources/upload.py``), the CLI's ``upload`` command and the Data page's Upload tab derive everything kind-specific
from the records: the fields and their header synonyms, the row model, the checks and the batch written, the dataset
kind, the parsers, the CLI options, the settings the page asks for. Adding a kind is one module plus one record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from judgebias_core.errors import InvalidArgument, RowProblem
from judgebias_core.registry import Registry
from judgebias_core.sources.upload_mapping import FieldSpec
from judgebias_core.sources.upload_spec import UploadSpec
from judgebias_core.sources.upload_validate import UploadRow
from judgebias_core.store.upload_queries import StoreContext
from judgebias_core.store.writes import StoreBatch


@dataclass(frozen=True)
class UploadRows:
    """What a kind's checks start from: the valid rows (with their 1-based ``row``), every row as mapped (checks
    that concern invalid rows too read these), the settings, what the store holds, and the upload's identity."""

    upload_kind: UploadKind
    valid: pd.DataFrame
    records: list[dict[str, Any]]
    spec: UploadSpec
    context: StoreContext
    file_name: str
    content_hash: str
    run_id: str | None  # judge logs: the run the calls are stored as

    @property
    def parser(self) -> str:
        """The parser reading raw replies: the one chosen, else the kind's default."""
        return self.spec.parser or (self.upload_kind.parsers[0] if self.upload_kind.parsers else "")


# A kind's checks and its store rows: every problem found (a row, a column, what is wrong), and the batch written
# when there is none. A batch may be left empty when a file-level problem makes the rows meaningless.
CheckAndBuild = Callable[[UploadRows], tuple[StoreBatch, list[RowProblem]]]
# Per-row values read from several columns (rater scores, candidate answers), by the name the row model gives them.
NestedCells = Callable[[pd.DataFrame, UploadSpec], dict[str, list[dict[str, Any]]]]
# Settings suggested from the file itself (beyond the column mapping), and a suggested spec refined by its values.
SuggestSettings = Callable[[pd.DataFrame, "UploadKind"], dict[str, Any]]
RefineSpec = Callable[[pd.DataFrame, UploadSpec], UploadSpec]


def key_value_pairs(values: list[str] | None, option: str, allow_bare: bool = False) -> dict[str, str]:
    """KEY=VALUE options as a dict; a bare KEY (when allowed) maps to ''."""
    result: dict[str, str] = {}
    for value in values or []:
        key, sep, target = value.partition("=")
        if not key or (not sep and not allow_bare):
            raise InvalidArgument(f"{option} expects KEY=VALUE, got {value!r}")
        result[key] = target if sep else ""
    return result


def _as_setting(name: str) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {name: value}


@dataclass(frozen=True)
class UploadOption:
    """One CLI option of a kind's ``upload`` command. ``arguments`` are argparse's (``metavar``, ``choices``,
    ``type``, ``action``, ``default``); ``to_settings`` turns the parsed value into spec settings (by default the
    setting named like the option); a value of None sets nothing."""

    flag: str
    help: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    to_settings: Callable[[Any], dict[str, Any]] | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    def settings(self, value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        return (self.to_settings or _as_setting(self.dest))(value)


@dataclass(frozen=True)
class UploadKind:
    """One kind of upload, complete: what its file holds, how its rows are checked, what it writes.

    ``creates_dataset``: the upload is a new dataset of ``dataset_kind`` (item ids numbered 1, 2, ... when the file
    has none, repeated ids refused, the dataset id must be free); otherwise it is a judge log on an existing dataset
    of ``dataset_kind``, stored as one run. ``settings`` names the spec settings the Data page asks for, in order
    (``ui/upload_widgets.py`` has one widget per setting name)."""

    name: str
    label: str
    fields: tuple[FieldSpec, ...]
    row_model: type[UploadRow]
    dataset_kind: str  # pairwise | pointwise
    creates_dataset: bool
    check_and_build: CheckAndBuild
    preview_table: str  # the table the preview shows first: what the user's rows become
    outcome: str | None = None  # logs: the parsed-value field that may stand in for the raw reply
    parsers: tuple[str, ...] = ()  # logs: the parsers reading raw replies; the first is the default
    reads_levels: bool = False  # the checks need every rubric's levels
    nested: NestedCells | None = None
    suggest: SuggestSettings | None = None
    refine: RefineSpec | None = None
    options: tuple[UploadOption, ...] = ()  # the CLI's options beyond the common ones
    settings: tuple[str, ...] = ()
    analysis_protocol: str | None = None  # logs: the protocol whose page analyses the uploaded run
    order_note: str = ""  # logs: how the calls' orders are labelled (shown under the preview)

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


UPLOAD_KINDS: Registry[UploadKind] = Registry("upload kind", tuple(
    f"judgebias_core.sources.upload_kinds.{module}"
    for module in ("items", "pairs", "pairwise_log", "rubric_log", "listwise_log")), "UPLOAD_KIND")


def log_options(outcome: str, parsers: tuple[str, ...]) -> tuple[UploadOption, ...]:
    """The CLI options every judge-log kind has: one judge for the whole file, and the parser of raw replies."""
    return (
        UploadOption("--judge", "judge name for every row (when the file has no judge column)"),
        UploadOption("--parser", f"how to read the {outcome} from raw replies (default {parsers[0]}); unparseable "
                                 "replies are kept with parse status 'failed'", {"choices": parsers}),
    )


CheckLog = Callable[..., tuple[pd.DataFrame, list[RowProblem]]]
BuildLog = Callable[[pd.DataFrame, UploadSpec, str, str, str, str], StoreBatch]


def log_check_and_build(check: CheckLog, build: BuildLog) -> CheckAndBuild:
    """A judge log's steps: ``check`` the calls against the target dataset, then ``build`` its run; nothing is
    built when a problem concerns the whole file (the dataset is missing or of another kind)."""
    def check_and_build(rows: UploadRows) -> tuple[StoreBatch, list[RowProblem]]:
        calls, problems = check(rows.valid, rows.records, rows.spec, rows.context,
                                dataset_kind=rows.upload_kind.dataset_kind, parser=rows.parser)
        if any(p.row is None for p in problems) or rows.run_id is None:
            return StoreBatch(), problems
        return build(calls, rows.spec, rows.run_id, rows.file_name, rows.content_hash, rows.parser), problems

    return check_and_build
