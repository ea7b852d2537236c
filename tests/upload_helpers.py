"""Shared pieces of the upload tests: a writable store per test module, store fingerprints, real-data files."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from judgebias_core.store.connection import connect

DATA = Path(__file__).resolve().parents[1] / "data"
TABLES = ("datasets", "items", "answers", "human_labels", "rubrics", "rubric_levels", "judges", "runs",
          "judge_calls", "pair_outcomes")


def fingerprint(path: Path) -> dict[str, int]:
    """Row counts of every table an upload can write."""
    with connect(path, read_only=True) as con:
        return {table: int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]) for table in TABLES}


def rows(path: Path, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    with connect(path, read_only=True) as con:
        return con.execute(sql, params or []).fetchall()


def real_table(relative: str) -> pd.DataFrame:
    """A bundled real-data file (gzipped JSON Lines) as a frame."""
    return pd.read_json(DATA / relative, lines=True, dtype=False, compression="gzip")


def as_bytes(frame: pd.DataFrame, kind: str) -> bytes:
    """The frame written as an upload file of the given kind (csv, jsonl, parquet, xlsx)."""
    if kind == "csv":
        return frame.to_csv(index=False).encode("utf-8")
    if kind == "jsonl":
        return frame.to_json(orient="records", lines=True, force_ascii=False).encode("utf-8")
    buffer = io.BytesIO()
    if kind == "parquet":
        frame.to_parquet(buffer, index=False)
    else:
        frame.to_excel(buffer, index=False)
    return buffer.getvalue()
