"""Engine throughput: 1,200 calls at 32 in flight against a loopback judge that answers in 200 ms.

Ideal time = calls x latency / concurrency = 7.5 s. Prints achieved vs ideal throughput and CPU time per call.
The judge is tests/fake_provider.py in its own process (its CPU is not counted); the engine uses the real
``openai`` SDK, the journal and the store writer, on a fresh store holding only SummEval.
Run: python bench/bench_engine.py [--calls 1200] [--concurrency 32] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from judgebias_core.engine import RunProgress, start_run  # noqa: E402
from judgebias_core.protocols.spec import RunSettings, RunSpec  # noqa: E402
from judgebias_core.sources.bundled import import_bundled  # noqa: E402
from judgebias_core.store.connection import connect  # noqa: E402


def _process_cpu(pid: int) -> float:
    """User + system CPU seconds of a child process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    command = [sys.executable, "-m", "tests.fake_provider", "--latency", str(args.latency)]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "bench.duckdb"
            import_bundled(db, ("summeval",))
            os.environ["OPENAI_API_KEY"] = "bench-not-a-key"
            spec = RunSpec(dataset_id="summeval", protocol="rubric-permutation", provider="openai",
                           model="gpt-4o-mini", base_url=f"http://127.0.0.1:{port}/v1", limit_items=args.calls // 10,
                           max_tokens=50)
            last: list[RunProgress] = []
            cpu_marks: list[float] = []

            def on_progress(progress: RunProgress) -> None:
                last.append(progress)
                cpu_marks.append(time.process_time())

            cpu_start, wall_start = time.process_time(), time.perf_counter()
            outcome = start_run(db, spec, RunSettings(concurrency=args.concurrency, timeout_s=30),
                                run_id="bench", on_progress=on_progress)
            cpu, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
            with connect(db, read_only=True) as con:  # per-call round trips as the engine measured them
                latency = con.execute("SELECT quantile_cont(latency_ms, [0.5, 0.9, 0.99]), max(latency_ms) "
                                      "FROM judge_calls WHERE run_id = 'bench'").fetchall()[0]
        server_cpu = _process_cpu(server.pid)
    finally:
        server.terminate()
        server.wait()
    calls = outcome.completed
    run_s = last[-1].elapsed_s  # from the first request to the last reply stored
    ideal = outcome.planned * args.latency / args.concurrency
    print(f"calls: {calls} of {outcome.planned} with a reply ({outcome.failed} failed, "
          f"{outcome.parse_failures} unparseable)")
    print(f"ideal time: {ideal:.2f} s ({args.concurrency} in flight x {args.latency * 1000:.0f} ms)")
    print(f"run time (send, journal, store): {run_s:.2f} s -> {ideal / run_s:.3f} of ideal throughput "
          f"({calls / run_s:.1f} calls/s vs ideal {outcome.planned / ideal:.1f})")
    print(f"whole start_run incl. planning and registration: {wall:.2f} s")
    (p50, p90, p99), slowest = latency
    print(f"per-call round trip: median {p50:.1f} ms, p90 {p90:.1f} ms, p99 {p99:.1f} ms, max {slowest:.1f} ms "
          f"(judge latency {args.latency * 1000:.0f} ms)")
    during = [p.completed for p in last]
    sent = during[-1] - during[0]
    run_cpu = cpu_marks[-1] - cpu_marks[0]
    print(f"CPU time: {cpu:.2f} s in all ({cpu / max(calls, 1) * 1000:.2f} ms per call, SDK import and planning "
          f"included); while sending: {run_cpu / max(sent, 1) * 1000:.2f} ms per call over {sent} calls")
    print(f"loopback judge process (not counted above): {server_cpu / max(calls, 1) * 1000:.2f} ms CPU per call")
    print(f"machine load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
