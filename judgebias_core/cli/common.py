"""Shared plumbing of the CLI commands: argument groups, store path, output."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from judgebias_core.errors import InvalidArgument, NotFoundError
from judgebias_core.store.connection import resolve_db_path
from judgebias_core.store.handle import Store


def db_path(args: argparse.Namespace) -> Path:
    """The store file: ``--db``, else $JUDGEBIAS_DB, else data/judgebias.duckdb."""
    return resolve_db_path(getattr(args, "db", None))


def open_store(args: argparse.Namespace) -> Store:
    """The command's store, opened (migrated once, created when missing): what the core functions receive."""
    return Store.open(db_path(args))


def read_input_file(name: str, option: str = "--file") -> bytes:
    """The bytes of a file the command line names; a missing, unreadable or folder path is a named error."""
    path = Path(name)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise NotFoundError(f"no file {path} (given with {option})") from None
    except IsADirectoryError:
        raise InvalidArgument(f"{path} is a folder; give a file with {option}") from None
    except OSError as error:
        raise InvalidArgument(f"cannot read {path} ({error.strerror or error}); give a readable file with "
                              f"{option}") from None


def _clean(value: Any) -> Any:
    """JSON-safe: dataclasses to dicts, NaN to null, numpy scalars to Python numbers."""
    if is_dataclass(value) and not isinstance(value, type):
        return _clean(asdict(value))
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and not isinstance(value, str | bytes):
        with contextlib.suppress(ValueError, TypeError):
            value = value.item()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


def to_json(value: Any) -> str:
    return json.dumps(_clean(value), ensure_ascii=False, indent=2, default=str)


def emit(args: argparse.Namespace, payload: Any, text: str | None = None) -> None:
    """Print ``payload`` as JSON with --json, else ``text`` (or the JSON when no text is given)."""
    if getattr(args, "json", False) or text is None:
        sys.stdout.write(to_json(payload) + "\n")
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON (fractions in [0, 1], integer counts)")


def progress(message: str) -> None:
    """Progress and notes go to stderr so stdout stays machine-readable."""
    sys.stderr.write(message.rstrip("\n") + "\n")
    sys.stderr.flush()
