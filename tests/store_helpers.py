"""Call a reader-first query or analysis on a store file, the way a page or the CLI does (one snapshot)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from judgebias_core.store.handle import Store, StoreReader

T = TypeVar("T")


def read(fn: Callable[..., T], path: str | os.PathLike[str], *args: Any, **kwargs: Any) -> T:
    """``fn(reader, *args, **kwargs)`` on one reader of the store at ``path``."""
    with Store(path).reader() as reader:
        return fn(reader, *args, **kwargs)


__all__ = ["StoreReader", "read"]
