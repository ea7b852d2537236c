"""Engine against the raw-HTTP ceiling: 1,200 calls at 32 in flight to a loopback judge that answers in 200 ms.

Each round first sends the run's 1,200 request bodies with plain ``httpx2`` (the HTTP client the SDKs use, no
SDK, no journal, no store) at the same concurrency to the same server, then runs the engine on the same plan
(real ``openai`` SDK, journal, store writer, response cache; a fresh seed per round so no reply comes from the
cache). The span of either is from its first request sent to its last reply received; the engine's is read from
its journal (send time = reply time - round trip), and the time until the last reply is in the store is printed
too. The judge is tests/fake_provider.py in its own process (its CPU is not counted).
Run: python bench/bench_engine.py [--calls 1200] [--concurrency 32] [--latency 0.2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402

from judgebias_core.engine import RunProgress, start_run  # noqa: E402
from judgebias_core.engine.journal import journal_path  # noqa: E402
from judgebias_core.judges.openai_client import OpenAIJudge  # noqa: E402
from judgebias_core.protocols.plans import build_plan  # noqa: E402
from judgebias_core.protocols.spec import RunSettings, RunSpec  # noqa: E402
from judgebias_core.sources.bundled import import_bundled  # noqa: E402
from judgebias_core.store.handle import Store  # noqa: E402


@dataclass(frozen=True)
class Span:
    seconds: float  # first request sent to last reply received
    replies: int
    cpu_s: float


async def _raw(url: str, bodies: list[dict[str, Any]], concurrency: int, timeout_s: float) -> Span:
    """The ceiling: the same bodies posted with plain httpx2, replies decoded with ``json.loads``, nothing else."""
    queue = list(reversed(bodies))
    replies = 0
    limits = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)  # the SDK's defaults
    async with httpx2.AsyncClient(base_url=url, timeout=timeout_s, limits=limits,
                                  headers={"authorization": "Bearer bench-not-a-key"}) as client:
        async def worker() -> None:
            nonlocal replies
            while queue:
                response = await client.post("/chat/completions", json=queue.pop())
                replies += bool(json.loads(response.content)["choices"][0]["message"]["content"])

        cpu, start = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return Span(time.perf_counter() - start, replies, time.process_time() - cpu)


def _engine_span(db: Path, run_id: str) -> tuple[float, int]:
    """First send to last reply, from the run's journal lines (``at`` is when the reply landed)."""
    lines = [json.loads(line) for line in journal_path(Store(db), run_id).read_text(encoding="utf-8").splitlines()]
    first_sent = min(r["at"] - r["latency_ms"] / 1000 for r in lines)
    return max(r["at"] for r in lines) - first_sent, sum(r.get("text") is not None for r in lines)


def one_round(db: Path, url: str, args: argparse.Namespace, seed: int) -> tuple[Span, Span, float]:
    spec = RunSpec(dataset_id="summeval", protocol="rubric-permutation", provider="openai", model="gpt-4o-mini",
                   base_url=url, limit_items=args.calls // 10, max_tokens=50, seed=seed)
    settings = RunSettings(concurrency=args.concurrency, timeout_s=30)
    run_id = f"bench-{seed}"
    plan = Store(db).read(build_plan, spec, run_id)
    judge = OpenAIJudge(spec, settings)
    raw = asyncio.run(_raw(url, [judge.request_params(c) for c in plan.calls], args.concurrency, 30))
    last: list[RunProgress] = []
    cpu = time.process_time()
    outcome = start_run(Store.open(db), spec, settings, run_id=run_id, on_progress=last.append)
    cpu = time.process_time() - cpu
    span, replies = _engine_span(db, run_id)
    stored = last[-1].elapsed_s  # from the session's start to the last reply stored
    if outcome.completed != len(plan.calls):
        raise SystemExit(f"engine stored {outcome.completed} of {len(plan.calls)} calls")
    return raw, Span(span, replies, cpu), stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    command = [sys.executable, "-m", "tests.fake_provider", "--latency", str(args.latency)]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    os.environ["OPENAI_API_KEY"] = "bench-not-a-key"
    ratios: list[float] = []
    try:
        url = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "bench.duckdb"
            import_bundled(Store.open(db), ("summeval",))
            ideal = args.calls * args.latency / args.concurrency
            print(f"{args.calls} calls, {args.concurrency} in flight, judge latency {args.latency * 1000:.0f} ms: "
                  f"ideal span {ideal:.2f} s")
            for seed in range(1, args.rounds + 1):
                raw, engine, stored = one_round(db, url, args, seed)
                ratios.append(raw.seconds / engine.seconds)
                print(f"round {seed}: raw httpx2 span {raw.seconds:.2f} s ({raw.replies} replies, "
                      f"{raw.cpu_s / raw.replies * 1000:.2f} ms CPU/call) | engine span {engine.seconds:.2f} s "
                      f"({engine.replies} replies, {engine.cpu_s / engine.replies * 1000:.2f} ms CPU/call incl. "
                      f"planning and store; all stored at {stored:.2f} s) | raw/engine {ratios[-1]:.3f} | "
                      f"load {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait()
    print(f"ratio raw/engine: min {min(ratios):.3f}, median {sorted(ratios)[len(ratios) // 2]:.3f}, "
          f"max {max(ratios):.3f} over {len(ratios)} rounds (within 3% of the ceiling: >= 0.970)")


if __name__ == "__main__":
    main()
