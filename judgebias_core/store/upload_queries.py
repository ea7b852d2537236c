"""Reads an upload needs before it writes (one connection): the target dataset, its items and candidates,
rubric levels, and whether the upload's run is already stored."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from judgebias_core.store.handle import StoreReader


@dataclass(frozen=True)
class DatasetRecord:
    dataset_id: str
    dataset_kind: str  # pairwise | pointwise (the column datasets.kind)
    origin: str
    content_hash: str | None
    baseline_candidate: str | None


def _empty(*columns: str) -> pd.DataFrame:
    return pd.DataFrame(columns=list(columns))


@dataclass(frozen=True)
class StoreContext:
    """What the store already holds that an upload is checked against."""

    dataset: DatasetRecord | None
    items: pd.DataFrame = field(default_factory=lambda: _empty("item_id", "rubric_id"))
    answers: pd.DataFrame = field(default_factory=lambda: _empty("item_id", "candidate"))
    levels: pd.DataFrame = field(default_factory=lambda: _empty("rubric_id", "level"))
    run_stored: bool = False

    def rubric_levels(self, rubric_id: str) -> list[int]:
        return sorted(int(v) for v in self.levels.loc[self.levels["rubric_id"] == rubric_id, "level"])


def store_context(reader: StoreReader, dataset_id: str, *, items: bool = False, answers: bool = False,
                  levels: bool = False, run_id: str | None = None) -> StoreContext:
    """The dataset's row and, as asked, its items (id, rubric), its candidate answers (item, candidate), every
    rubric's levels, and whether ``run_id`` is stored."""
    con = reader.con
    found = con.execute(
        "SELECT dataset_id, kind, origin, content_hash, baseline_candidate FROM datasets WHERE dataset_id = ?",
        [dataset_id],
    ).fetchall()
    context = StoreContext(dataset=DatasetRecord(*found[0]) if found else None)
    if items and found:
        context = replace(context, items=con.execute(
            "SELECT item_id, rubric_id FROM items WHERE dataset_id = ? ORDER BY seq", [dataset_id]).df())
    if answers and found:
        context = replace(context, answers=con.execute(
            "SELECT item_id, candidate FROM answers WHERE dataset_id = ?", [dataset_id]).df())
    if levels:
        context = replace(context, levels=con.execute(
            "SELECT rubric_id, level FROM rubric_levels ORDER BY rubric_id, level").df())
    if run_id is not None:
        stored = con.execute("SELECT count(*) FROM runs WHERE run_id = ?", [run_id]).fetchall()[0][0]
        context = replace(context, run_stored=bool(stored))
    return context
