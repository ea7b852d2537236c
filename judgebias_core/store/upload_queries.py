"""Reads an upload needs before it writes: the target dataset, its items and candidates, rubric levels."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pandas as pd

from judgebias_core.store.connection import connect


@dataclass(frozen=True)
class DatasetRecord:
    dataset_id: str
    kind: str
    origin: str
    content_hash: str | None
    baseline_candidate: str | None


def dataset_record(path: str | os.PathLike[str], dataset_id: str) -> DatasetRecord | None:
    """The dataset's row, or None when the store has no such dataset."""
    with connect(path, read_only=True) as con:
        rows = con.execute(
            "SELECT dataset_id, kind, origin, content_hash, baseline_candidate FROM datasets WHERE dataset_id = ?",
            [dataset_id],
        ).fetchall()
    return DatasetRecord(*rows[0]) if rows else None


def dataset_items(path: str | os.PathLike[str], dataset_id: str) -> pd.DataFrame:
    """item_id and default rubric_id of every item of a dataset."""
    with connect(path, read_only=True) as con:
        return con.execute(
            "SELECT item_id, rubric_id FROM items WHERE dataset_id = ? ORDER BY seq", [dataset_id]
        ).df()


def dataset_answer_candidates(path: str | os.PathLike[str], dataset_id: str) -> pd.DataFrame:
    """(item_id, candidate) of every stored candidate answer of a dataset."""
    with connect(path, read_only=True) as con:
        return con.execute(
            "SELECT item_id, candidate FROM answers WHERE dataset_id = ?", [dataset_id]
        ).df()


def rubric_level_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """(rubric_id, level) of every stored rubric."""
    with connect(path, read_only=True) as con:
        return con.execute("SELECT rubric_id, level FROM rubric_levels ORDER BY rubric_id, level").df()


def run_exists(path: str | os.PathLike[str], run_id: str) -> bool:
    with connect(path, read_only=True) as con:
        return bool(con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchall()[0][0])
