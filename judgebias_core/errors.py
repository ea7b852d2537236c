"""Named exceptions. The library raises them; the CLI and the pages turn them into messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from judgebias_core.text import counted

if TYPE_CHECKING:
    from pydantic import ValidationError


class JudgebiasError(Exception):
    """Base class of every error judgebias raises on purpose."""


class StoreBusyError(JudgebiasError):
    """The DuckDB file stayed locked by another process for longer than the retry budget."""


class SchemaError(JudgebiasError):
    """The store's schema is newer than this version of judgebias understands."""


class StoreError(JudgebiasError):
    """The store file cannot be used: it is not a judgebias store, or it is damaged (truncated, overwritten)."""


class StoreWriteError(StoreError):
    """A run's store writer could not write a batch of replies within its retry budget (a full disk, a damaged or
    unavailable store): the run stopped as interrupted; the replies are safe in its journal and a resume stores
    them."""


class ForeignRunFolder(JudgebiasError):
    """A run folder (journals, progress) was written for another store than the one a run was started on: its
    replies are not adopted silently (``adopt-run-folder`` imports them deliberately)."""


class StoreReadOnlyError(StoreError):
    """The store file may be read but not written by this user (no write permission, or a read-only disk)."""


class StoreDiskFullError(StoreError):
    """The disk holding the store has no space left for a write (the write was rolled back)."""


class NotFoundError(JudgebiasError):
    """A dataset, judge, run or item that was asked for is not in the store."""


class InvalidArgument(JudgebiasError):
    """An argument is well-formed but does not make sense for the data (e.g. wrong dataset kind)."""


def invalid_argument(error: ValidationError, what: str | None = None) -> InvalidArgument:
    """Settings pydantic refused, as the error the CLI and pages show: every problem as ``field: message``."""
    problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors(include_url=False))
    return InvalidArgument(f"{what}: {problems}" if what else problems)


@dataclass(frozen=True)
class RowProblem:
    """One problem found in an uploaded file: where it is and what is wrong."""

    row: int | None  # 1-based data row (header excluded); None for file-level problems
    column: str | None
    reason: str


class ValidationFailed(JudgebiasError):
    """An input file has problems; nothing was written. Lists every problem found."""

    def __init__(self, problems: list[RowProblem], what: str = "file") -> None:
        self.problems = problems
        shown = "; ".join(
            f"row {p.row if p.row is not None else '-'}, column {p.column or '-'}: {p.reason}"
            for p in problems[:5]
        )
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"{what} has {counted(len(problems), 'problem')}: {shown}{more}")


class UploadLimitExceeded(ValidationFailed):
    """An upload is larger than a configured limit (bytes, rows, columns, cells, expanded size or nesting). It is
    refused before it is fully read; the message names the limit and the setting that changes it."""

    def __init__(self, found: str, limit: str, setting: str, what: str = "file") -> None:
        self.found, self.limit, self.setting = found, limit, setting
        reason = f"{found}; the limit is {limit} (an operator can change it with the environment variable {setting})"
        super().__init__([RowProblem(None, None, reason)], what)

    def named(self, what: str) -> UploadLimitExceeded:
        """The same refusal, about the file called ``what``."""
        return UploadLimitExceeded(self.found, self.limit, self.setting, what)


class ProviderError(JudgebiasError):
    """A judge provider could not be used (missing key, bad configuration)."""


class MissingApiKey(ProviderError):
    """The environment variable that holds a provider's API key is not set."""

    def __init__(self, variable: str) -> None:
        self.variable = variable
        super().__init__(f"set the environment variable {variable} (or the Streamlit secret of that name)")


class ExportUnavailable(JudgebiasError):
    """A file export cannot be produced here (e.g. no Chrome/Chromium for static chart images)."""


class JudgeCallError(ProviderError):
    """One judge call failed. ``retryable`` errors (429, 5xx, timeouts, malformed bodies) may be tried again."""

    def __init__(self, message: str, retryable: bool, retry_after: float | None = None,
                 timed_out: bool = False) -> None:
        self.retryable = retryable
        self.retry_after = retry_after
        self.timed_out = timed_out  # no reply within the timeout: the server may still be computing it
        super().__init__(message)


class BatchAdoptionError(JudgebiasError):
    """A resumed batch run cannot tell which provider batch (if any) it submitted before it stopped, or the batch it
    adopted turned out to hold other requests: nothing is submitted again without ``--resubmit``."""
