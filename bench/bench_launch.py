"""Benchmark: first launch, from nothing to a usable dashboard (a benchmark, not a test).

Prints, in one run, for the pre-built snapshot (data/prebuilt/) and for building from the gz sources (the way
before the snapshot, forced by a copy of the project without data/prebuilt/):
  - ensure_store_ready as a whole process on an empty store (python start, imports, load, demo step),
  - `streamlit run app.py` on an empty store, from the process start until Debian's chromium shows the Overview
    page's heading with the script finished (what a user waits for).
Run: python bench/bench_launch.py [--repeat N] [--no-browser]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
READY_SCRIPT = "import sys; from judgebias_core.bootstrap import ensure_store_ready; from judgebias_core.store.handle import Store; ensure_store_ready(Store.open(sys.argv[1]))"


def _project_without_snapshot(folder: Path) -> Path:
    copy = folder / "project-without-snapshot"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", "prebuilt", "tests", "runs", "*.duckdb*",
                                                             "__pycache__", "artifacts"))
    return copy


def _store_ready_s(project: Path, store: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", READY_SCRIPT, str(store)], cwd=project, check=True,
                   env={**os.environ, "PYTHONPATH": str(project)})
    return time.perf_counter() - started


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _dashboard_s(project: Path, store: Path) -> tuple[float, float]:
    """(seconds until the server answers its health check, seconds until the Overview page is shown)."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        started = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address",
             "127.0.0.1", "--server.headless", "true"],
            cwd=project, env={**os.environ, "JUDGEBIAS_DB": str(store), "PYTHONPATH": str(project)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                        break
                except OSError:
                    time.sleep(0.05)
            healthy = time.perf_counter() - started
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector('[data-testid="stMain"] h1', timeout=300_000)
            page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=300_000)
            shown = time.perf_counter() - started
        finally:
            server.terminate()
            server.wait(timeout=30)
            browser.close()
    return healthy, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-browser", action="store_true", help="only time ensure_store_ready")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    with tempfile.TemporaryDirectory() as folder:
        projects = {"snapshot": ROOT, "from sources": _project_without_snapshot(Path(folder))}
        for attempt in range(1, args.repeat + 1):
            for name, project in projects.items():
                ready = _store_ready_s(project, Path(folder) / f"ready-{name}-{attempt}.duckdb")
                line = f"{name:<13} ensure_store_ready process {ready:5.1f} s"
                if not args.no_browser and Path(CHROMIUM).exists():
                    healthy, shown = _dashboard_s(project, Path(folder) / f"app-{name}-{attempt}.duckdb")
                    line += f"   streamlit run -> health {healthy:4.1f} s, Overview shown {shown:5.1f} s"
                print(line, flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
