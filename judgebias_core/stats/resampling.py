"""The one item-resampling engine: every item (cluster) bootstrap of the package draws its items here.

An item bootstrap resample draws as many items as there are, uniformly with replacement (Davison & Hinkley 1997,
sec. 3.8; Field & Welsh 2007). Each resample is stored as how often each item was drawn (resamples x items), so any
per-item sums resample exactly by one matrix product, and every statistic of one row of figures (a flip rate, its
first-slot share, the position test, the excess over the floor) sees the same items when it uses the same seed.

The draw: ``numpy.random.default_rng(seed).integers(0, items, size=(block, items))`` counted per item with one
``bincount`` per block of at most ``CELLS_PER_BLOCK`` cells. Items that share a ``group`` (e.g. identical value
rows) can be counted per group from the same draw, which is cheaper and gives the same sums.
tests/test_resampling_engine.py checks that no other module of the package draws bootstrap items itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from judgebias_core.stats.settings import RESAMPLES, SEED

CELLS_PER_BLOCK = 4_000_000  # resamples x items drawn at once, to bound memory
# The Monte Carlo band of a bootstrap figure: the range it would take over 99% of seeds.
MC_BAND_Z = 2.5758293035489004
HOLDS, DOES_NOT_HOLD, TOO_CLOSE = "holds", "does not hold", "too close to call"


def share_call(share: float, resamples: int, threshold: float) -> tuple[float, str]:
    """The Monte Carlo half-band of ``share`` (a share of ``resamples`` bootstrap resamples: z_0.995 sqrt(s(1-s)/B),
    at least half a resample) and whether it is at least ``threshold`` whatever the seed: "holds" when the whole
    band is at or above it, "does not hold" when the whole band is below it, else "too close to call" (a decision
    inside the band would flip with the seed)."""
    if not np.isfinite(share) or resamples <= 0:
        return float("nan"), ""
    half = max(MC_BAND_Z * float(np.sqrt(share * (1 - share) / resamples)), 0.5 / resamples)
    if share - half >= threshold:
        return half, HOLDS
    if share + half < threshold:
        return half, DOES_NOT_HOLD
    return half, TOO_CLOSE


def count_blocks(n_items: int, resamples: int = RESAMPLES, seed: int = SEED,
                 group_of: np.ndarray | None = None, groups: int | None = None) -> Iterator[np.ndarray]:
    """Blocks (block x items, float) of how often each item is drawn in each resample, from one seeded stream.

    With ``group_of`` (the group of each item, 0..groups-1) the counts are summed per group (block x groups):
    the same draws, fewer columns.
    """
    rng = np.random.default_rng(seed)
    columns = n_items if group_of is None else int(groups if groups is not None else np.max(group_of) + 1)
    block = max(1, min(resamples, CELLS_PER_BLOCK // max(n_items, 1)))
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        picks = rng.integers(0, n_items, size=(size, n_items))
        if group_of is not None:
            picks = np.asarray(group_of)[picks]
        offsets = (np.arange(size, dtype=np.int64) * columns)[:, None]
        counts = np.bincount((picks + offsets).ravel(), minlength=size * columns).reshape(size, columns)
        yield counts.astype(np.float64)


@lru_cache(maxsize=4)
def _cached_counts(n_items: int, resamples: int, seed: int) -> np.ndarray:
    counts = np.concatenate(list(count_blocks(n_items, resamples, seed)))
    counts.flags.writeable = False
    return counts


def draw_counts(n_items: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """All draw counts (resamples x items, read-only): the rows of one figure's statistics share it, so the draw
    is made once per (items, resamples, seed) and kept (at most four)."""
    if n_items * resamples > CELLS_PER_BLOCK:
        return np.concatenate(list(count_blocks(n_items, resamples, seed)))
    return _cached_counts(n_items, resamples, seed)


def item_resample_sums(columns: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Per resample, the column sums over the drawn items (resamples x columns); ``columns`` is items x k."""
    values = np.asarray(columns, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n_items = len(values)
    if n_items * resamples <= CELLS_PER_BLOCK:
        return _cached_counts(n_items, resamples, seed) @ values
    return np.concatenate([counts @ values for counts in count_blocks(n_items, resamples, seed)])


def grouped_resample_sums(columns: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """:func:`item_resample_sums` counted per distinct row of ``columns`` (identical items share one count):
    the same draws and sums, cheaper when items take few distinct values (rubric scores)."""
    values = np.asarray(columns, dtype=np.float64)
    rows, row_of = np.unique(values, axis=0, return_inverse=True)
    return np.concatenate([counts @ rows for counts in
                           count_blocks(len(values), resamples, seed, row_of.ravel(), len(rows))])
