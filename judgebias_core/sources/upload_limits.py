"""How large an uploaded table may be, from the configuration, and the refusals when it is larger.

Every limit is checked before the file is fully parsed: the byte size first, then what each format tells cheaply
(a CSV's header, a JSON row's keys while reading, a Parquet footer, an XLSX's zip directory and sheet extent), so a
small file that expands to gigabytes is refused before it is expanded. Limits come from environment variables (a
served dashboard sets them for its process; a visitor cannot move them), with defaults safe for a shared server.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from judgebias_core.errors import InvalidArgument, UploadLimitExceeded

MIB = 1024 * 1024


@dataclass(frozen=True)
class UploadLimits:
    """The largest upload accepted; ``expanded_bytes`` bounds what a compressed file (Parquet, XLSX) unpacks to."""

    max_bytes: int = 50 * MIB
    max_rows: int = 200_000
    max_columns: int = 500
    max_cells: int = 5_000_000
    max_expanded_bytes: int = 256 * MIB
    max_nesting: int = 32

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> UploadLimits:
        """The defaults, each replaced by its environment variable when set (a positive whole number)."""
        environ = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for field in fields(cls):
            variable = setting_name(field.name)
            text = environ.get(variable, "").replace("_", "").replace(",", "").strip()
            if not text:
                continue
            if not text.isdigit() or int(text) < 1:
                raise InvalidArgument(f"{variable} must be a positive whole number, not {environ[variable]!r}")
            values[field.name] = int(text)
        return cls(**values)


def setting_name(limit: str) -> str:
    """The environment variable that sets a limit: ``max_rows`` -> ``JUDGEBIAS_UPLOAD_MAX_ROWS``."""
    return f"JUDGEBIAS_UPLOAD_{limit.upper()}"


def _amount(limit: str, value: int) -> str:
    if limit.endswith("bytes"):
        return f"{value / MIB:,.1f} MB" if value >= MIB else f"{value:,} bytes"
    unit = {"max_rows": "row", "max_columns": "column", "max_cells": "cell", "max_nesting": "level"}[limit]
    return f"{value:,} {unit}{'' if value == 1 else 's'}"


def refuse(limits: UploadLimits, limit: str, found: int, what: str, at_least: bool = False) -> UploadLimitExceeded:
    """The named refusal of a file whose ``what`` (e.g. "the file has", "the sheet spans") exceeds ``limit``."""
    allowed = getattr(limits, limit)
    return UploadLimitExceeded(
        found=f"{what} {'at least ' if at_least else ''}{_amount(limit, found)}",
        limit=_amount(limit, allowed), setting=setting_name(limit))


def check_limit(limits: UploadLimits, limit: str, found: int, what: str, at_least: bool = False) -> None:
    """Raise the named refusal when ``found`` exceeds the configured ``limit``."""
    if found > getattr(limits, limit):
        raise refuse(limits, limit, found, what, at_least)


def check_shape(limits: UploadLimits, rows: int, columns: int, what: str = "the file has") -> None:
    """Columns, rows and cells (rows x columns) against their limits, columns first (the cheapest to know)."""
    check_limit(limits, "max_columns", columns, what)
    check_limit(limits, "max_rows", rows, what)
    check_limit(limits, "max_cells", rows * columns, what)
