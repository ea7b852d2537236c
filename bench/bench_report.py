"""Benchmark: build the HTML report of every dataset of a store, and render a chart image (a benchmark, not a test).

Prints the load average before and after, and per dataset how long building and rendering take, the sections,
charts and file size, and the slowest sections' build times. Uses the store given by --db (default: a first-launch
store built in a temporary folder). Run: python bench/bench_report.py
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebias_core.bootstrap import ensure_store_ready
from judgebias_core.exports import chrome_path, figure_image_bytes
from judgebias_core.report import ReportRequest, build_report, render_html
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import dataset_summaries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, help="an existing store (default: build a first-launch store)")
    args = parser.parse_args()
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    with tempfile.TemporaryDirectory() as folder:
        path = args.db or Path(folder) / "bench.duckdb"
        if args.db is None:
            started = time.perf_counter()
            ensure_store_ready(Store.open(path))
            print(f"first-launch store built in {time.perf_counter() - started:.1f} s")
        first_figure = None
        with Store(path).reader() as reader:
            summaries = dataset_summaries(reader)
        for summary in summaries:
            started = time.perf_counter()
            sections: dict[str, float] = {}
            with Store(path).reader() as reader:
                report = build_report(reader, ReportRequest(summary.id), on_section=sections.__setitem__)
            built = time.perf_counter() - started
            started = time.perf_counter()
            document = render_html(report)
            rendered = time.perf_counter() - started
            charts = sum(len(s.figures) for s in report.sections)
            first_figure = first_figure or next((f for s in report.sections for f in s.figures), None)
            print(f"{summary.id:<22} build {built:5.1f} s  render {rendered:4.1f} s  "
                  f"{len(report.sections)} sections  {charts:2d} charts  {len(document) / 1e6:4.1f} MB  "
                  f"({summary.judge_calls:,} judge calls)")
            slowest = sorted(sections.items(), key=lambda pair: -pair[1])[:3]
            if report.sections:
                print(" " * 23 + "slowest sections: "
                      + ", ".join(f"{title} {seconds:.1f} s" for title, seconds in slowest))
        if first_figure is not None and chrome_path():
            for fmt in ("png", "svg"):
                started = time.perf_counter()
                image = figure_image_bytes(first_figure, fmt)  # type: ignore[arg-type]
                print(f"chart image {fmt}: {time.perf_counter() - started:.1f} s, {len(image):,} bytes "
                      f"(kaleido driving {chrome_path()})")
    print("load average (1, 5, 15 min) after: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
