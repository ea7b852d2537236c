"""Rebuild data/prebuilt/ (the first-launch store as Parquet files) from the bundled gz sources.

Run after changing anything under data/ or the code that imports it or runs the demo:
    python scripts/build_prebuilt.py
It builds a store the slow way in a temporary folder, writes every table and the manifest (source digests), and
prints the row counts. tests/test_prebuilt.py checks the committed files against a fresh build.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.bootstrap import build_from_sources
from judgebias_core.sources.bundled import BUNDLED_DATA_DIR
from judgebias_core.store.handle import Store
from judgebias_core.store.prebuilt import PREBUILT_DIR, write_prebuilt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=PREBUILT_DIR, help=f"output folder (default {PREBUILT_DIR})")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "from-sources.duckdb"
        started = time.perf_counter()
        build_from_sources(Store.open(store))
        print(f"built from the sources in {time.perf_counter() - started:.1f} s")
        manifest = write_prebuilt(store, args.out, BUNDLED_DATA_DIR)
    tables: dict[str, dict[str, object]] = manifest["tables"]  # type: ignore[assignment]
    size = sum((args.out / str(t["file"])).stat().st_size for t in tables.values())
    for table, entry in tables.items():
        print(f"{table:<18} {entry['rows']:>7,} rows")
    print(f"{len(tables)} tables, {size / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
