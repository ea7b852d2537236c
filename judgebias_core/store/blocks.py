"""The store file checked block by block, below DuckDB: its length against its block count, and every block's
checksum, so that damage in a block no query reads (an index, the end of the file) is found before a write hits it.

A DuckDB file is three 4 KiB headers, then up to ``total_blocks`` blocks of ``block_size`` bytes (free blocks at
the end are cut off); each block starts with an 8-byte checksum of the rest of it (DuckDB's ``Checksum``: 5381,
xor'ed with every 8-byte word of the block times a constant). Blocks on DuckDB's free list may be zeroed (it gives their space back to the file system), so an
all-zero block counts as damage only when there are more of them than free blocks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judgebias_core.errors import StoreError
from judgebias_core.store.connection import STORE_HELP
from judgebias_core.text import counted

if TYPE_CHECKING:
    import duckdb
    import numpy as np

HEADER_BYTES = 3 * 4096
CHECKSUM_SEED = 5381
CHECKSUM_FACTOR = 0xBF58476D1CE4E5B9
# Blocks read at once (memory: this many blocks, twice).
BLOCKS_PER_READ = 32
LISTED_BLOCKS = 5


@dataclass(frozen=True)
class BlockLayout:
    """What DuckDB says about the file's blocks (``pragma_database_size``)."""

    block_size: int
    total_blocks: int
    free_blocks: int


def block_layout(con: duckdb.DuckDBPyConnection) -> BlockLayout:
    """The block layout of the database ``con`` has open."""
    block_size, total, free = con.execute("SELECT block_size, total_blocks, free_blocks "
                                          "FROM pragma_database_size()").fetchall()[0]
    return BlockLayout(block_size=int(block_size), total_blocks=int(total), free_blocks=int(free))


def truncation_problem(path: str | os.PathLike[str], layout: BlockLayout) -> str | None:
    """Why the file is shorter than its blocks in use (it was truncated), or None. A cheap check: the file's length.

    DuckDB gives the space of free blocks at the end of the file back, so the file holds at least the blocks in use
    (``total_blocks - free_blocks``), not all of ``total_blocks``."""
    in_use = layout.total_blocks - layout.free_blocks
    if in_use <= 0 or not os.path.isfile(path):  # a new store, nothing written yet
        return None
    expected = HEADER_BYTES + in_use * layout.block_size
    size = os.path.getsize(path)
    wal = f"{os.fspath(path)}.wal"
    # A write-ahead log not yet checkpointed is replayed in memory by a read-only open: its blocks are not in the file.
    if size >= expected or (os.path.exists(wal) and os.path.getsize(wal) > 0):
        return None
    return (f"the file is {counted(expected - size, 'byte')} shorter than its {in_use:,} blocks in use "
            f"({size:,} of at least {expected:,} bytes): it was truncated")


def refuse_truncated(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str]) -> None:
    """Raise the named ``StoreError`` when the file ``con`` has open is shorter than its blocks: reads of the lost
    blocks would fail one by one, and a write could build on them."""
    truncated = truncation_problem(path, block_layout(con))
    if truncated:
        raise StoreError(f"the store {path} is damaged ({truncated}): run check-store; {STORE_HELP}")


def _checksums(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(stored, computed) checksum of each row of ``blocks`` (one block of bytes per row)."""
    import numpy as np  # noqa: PLC0415 - only check-store reads blocks; the store's every open does not need it

    stored = np.ascontiguousarray(blocks[:, :8]).view("<u8")[:, 0]
    words = np.ascontiguousarray(blocks[:, 8:]).view("<u8")
    with np.errstate(over="ignore"):  # the checksum is arithmetic modulo 2**64
        computed = np.bitwise_xor.reduce(words * np.uint64(CHECKSUM_FACTOR), axis=1) ^ np.uint64(CHECKSUM_SEED)
    return stored, computed


def block_problems(path: str | os.PathLike[str], layout: BlockLayout) -> list[str]:
    """Truncation and blocks whose checksum fails (empty: every block is as DuckDB wrote it)."""
    import numpy as np  # noqa: PLC0415 - see _checksums

    size = os.path.getsize(path)
    truncated = truncation_problem(path, layout)
    problems = [truncated] if truncated else []
    if layout.block_size % 8:  # not the layout this check knows: leave the blocks to DuckDB
        return problems
    failed: list[int] = []
    zeroed: list[int] = []
    whole_blocks = min(layout.total_blocks, max(0, size - HEADER_BYTES) // layout.block_size)
    with open(path, "rb") as handle:
        handle.seek(HEADER_BYTES)
        for first in range(0, whole_blocks, BLOCKS_PER_READ):
            count = min(BLOCKS_PER_READ, whole_blocks - first)
            data = np.frombuffer(handle.read(count * layout.block_size), dtype=np.uint8)
            blocks = data.reshape(count, layout.block_size)
            stored, computed = _checksums(blocks)
            for index in np.flatnonzero(stored != computed):
                (zeroed if not blocks[index].any() else failed).append(first + int(index))
    if len(zeroed) > layout.free_blocks:
        failed = sorted(failed + zeroed)
    if failed:
        listed = ", ".join(str(block) for block in failed[:LISTED_BLOCKS])
        more = f" and {len(failed) - LISTED_BLOCKS:,} more" if len(failed) > LISTED_BLOCKS else ""
        problems.append(f"{counted(len(failed), 'block')} failed the checksum (block {listed}{more}; zeroed or overwritten)")
    return problems
