"""Benchmark: whole-process wall and CPU time of CLI commands, and of judgekit's audit of the same pairs
(a benchmark, not a test).

Runs each command as a child process --repeat times and prints the median wall time and the child's CPU
(user + sys, from getrusage(RUSAGE_CHILDREN)). The judgekit comparison needs judgekit importable from --judgekit
(e.g. `pip install --target /tmp/jk judgekit`); it audits MTBench gpt-4-0613's 2,400 swap pairs (4,800 calls,
the parsed ones) as judgekit pairwise verdicts. Uses --db (default: a first-launch store in a temporary folder).
Run: python bench/bench_cli.py [--db STORE] [--judgekit /tmp/jk] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

JUDGE, DATASET, BASELINE = "gpt-4-0613", "mtbench", "vicuna-13b-v1.3"


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(command: list[str], env: dict[str, str], repeat: int) -> tuple[float, float, int]:
    """(median wall s, median CPU s, exit code) over ``repeat`` runs."""
    walls, cpus, code = [], [], 0
    for _ in range(repeat):
        cpu, started = _child_cpu(), perf_counter()
        code = subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              check=False).returncode
        walls.append(perf_counter() - started)
        cpus.append(_child_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus), code


def _judgekit_verdicts(store: Path, out: Path) -> int:
    """MTBench gpt-4-0613's parsed swap calls as judgekit pairwise verdicts (canonical A = the baseline)."""
    import duckdb

    con = duckdb.connect(str(store), read_only=True)
    rows = con.execute(
        "SELECT item_id, first_candidate, second_candidate, order_label, verdict FROM judge_calls "
        "WHERE dataset_id = ? AND study = 'full' AND judge = ? AND parse_status = 'ok' ORDER BY call_id",
        [DATASET, JUDGE],
    ).fetchall()
    con.close()
    with out.open("w", encoding="utf-8") as handle:
        for item_id, first, second, order, verdict in rows:
            swapped = order == "swapped"
            candidate = first if swapped else second
            choice = "tie" if verdict == "C" else ("a" if (verdict == "A") != swapped else "b")
            handle.write(json.dumps({"kind": "pairwise", "item_id": f"{item_id}:{candidate}", "judge_id": JUDGE,
                                     "choice": choice, "swapped": swapped, "a_model": BASELINE,
                                     "b_model": candidate}) + "\n")
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, help="an existing first-launch store")
    parser.add_argument("--judgekit", type=Path, help="a folder judgekit is installed in (pip install --target)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at start; medians of {args.repeat} runs")
    with tempfile.TemporaryDirectory() as folder:
        store = args.db or Path(folder) / "bench.duckdb"
        if args.db is None:
            from judgebias_core.bootstrap import ensure_store_ready
            from judgebias_core.store.handle import Store

            ensure_store_ready(Store.open(store))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "JUDGEBIAS_DB": str(store)}
        cli = [sys.executable, "-m", "judgebias_core"]
        commands = {
            "--help": [*cli, "--help"],
            "bad argument": [*cli, "metrics", "no-such-metric"],
            "gate": [*cli, "gate", "--dataset", DATASET, "--judge", JUDGE, "--max-flip-rate", "0.25"],
            "metrics pairwise --json": [*cli, "metrics", "pairwise", "--json"],
            "python -c pass (floor)": [sys.executable, "-c", "pass"],
        }
        times: dict[str, tuple[float, float]] = {}
        for name, command in commands.items():
            wall, cpu, code = _time(command, env, args.repeat)
            times[name] = wall, cpu
            print(f"{name:<28} wall {wall:5.2f} s  cpu {cpu:5.2f} s  exit {code}", flush=True)
        if not args.judgekit or not (args.judgekit / "judgekit").is_dir():
            print("judgekit not compared: not installed (install it outside requirements, e.g. `pip install "
                  "--target /tmp/judgekit judgekit==0.2.1`, then pass --judgekit /tmp/judgekit)")
        else:
            verdicts = Path(folder) / "judgekit.jsonl"
            calls = _judgekit_verdicts(store, verdicts)
            jk_env = {**os.environ, "PYTHONPATH": str(args.judgekit), "MPLBACKEND": "Agg"}
            command = [sys.executable, "-m", "judgekit.cli", "report", str(verdicts), "--out", f"{folder}/jk"]
            wall, cpu, code = _time(command, jk_env, args.repeat)
            print(f"{'judgekit report (' + str(calls) + ' calls)':<28} wall {wall:5.2f} s  cpu {cpu:5.2f} s  "
                  f"exit {code}")
            gate_wall, gate_cpu = times["gate"]
            print(f"{'gate / judgekit report':<28} wall {gate_wall / wall:5.2f}  cpu {gate_cpu / cpu:5.2f} "
                  "(below 1: gate is faster)")
            import_only = [sys.executable, "-c", "import judgekit.cli"]
            wall, cpu, code = _time(import_only, jk_env, args.repeat)
            print(f"{'judgekit import only':<28} wall {wall:5.2f} s  cpu {cpu:5.2f} s  exit {code}")
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
