"""Run the where-a-user-waits benches one after another and print each one's figures with the load around it.

Each bench prints its figure next to its reference from the same run (engine vs raw HTTP, gate vs judgekit,
launch from the snapshot vs from the sources, fast vs pydantic validation); this collects them for
docs/SCALING.md. Run: python bench/bench_all.py [--judgekit /tmp/judgekit] [--skip launch ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judgekit", help="where judgekit 0.2.1 is installed (pip install --target)")
    parser.add_argument("--skip", nargs="*", default=[], help="bench names to leave out (engine, cli, launch, ...)")
    args = parser.parse_args()
    benches = {"engine": ["bench_engine.py", "--rounds", "3"],
               "cli": ["bench_cli.py", *(["--judgekit", args.judgekit] if args.judgekit else [])],
               "launch": ["bench_launch.py"], "report": ["bench_report.py"], "uploads": ["bench_uploads.py"]}
    for name, command in benches.items():
        if name in args.skip:
            continue
        before = os.getloadavg()[0]
        result = subprocess.run([sys.executable, str(BENCH / command[0]), *command[1:]], capture_output=True,
                                text=True, check=False)
        print(f"## {name} (load {before:.1f} -> {os.getloadavg()[0]:.1f}, exit {result.returncode})")
        print(result.stdout.rstrip() or result.stderr.strip()[-2000:], flush=True)


if __name__ == "__main__":
    main()
