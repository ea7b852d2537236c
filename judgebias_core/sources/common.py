"""Helpers shared by the bundled importer and the upload importer."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import pandas as pd

from judgebias_core.identity import model_family


def call_ids(frame: pd.DataFrame, columns: Iterable[str]) -> pd.Series:
    """Deterministic call ids from the given key columns of every row."""
    names = list(columns)
    keys = frame[names[0]].astype(str).fillna("")
    for name in names[1:]:  # column-wise concatenation: far faster than joining row by row
        keys = keys + "\x1f" + frame[name].astype(str).fillna("")
    return keys.map(lambda key: hashlib.sha256(key.encode("utf-8")).hexdigest()[:24])


def join_turns(turns: Iterable[str | None] | None) -> str:
    """All turns of a multi-turn text together, as lengths and displays use them."""
    if turns is None:
        return ""
    return "\n\n".join(turn for turn in turns if turn)


def judges_frame(names: Iterable[str], provider: str, simulated: bool = False, description: str = "") -> pd.DataFrame:
    unique = sorted(set(names))
    return pd.DataFrame(
        {
            "judge": unique,
            "provider": provider,
            "family": [model_family(name) for name in unique],
            "simulated": simulated,
            "description": description,
        }
    )
