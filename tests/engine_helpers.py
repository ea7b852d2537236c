"""Shared set-up of the engine tests: a store per module, specs aimed at the fake provider, row reads."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from judgebias_core.protocols.spec import RunSettings, RunSpec
from tests.fake_provider import FakeProvider

SECRET = "sk-test-SECRET0123456789abcdef"
QUICK = RunSettings(concurrency=4, timeout_s=0.5, sdk_max_retries=0, max_attempts=3, backoff_base_s=0.01,
                    flush_every=100, flush_interval_s=0.2)


def rubric_spec(fake: FakeProvider, model: str, provider: str = "openai", **changes: object) -> RunSpec:
    url = fake.openai_url if provider == "openai" else fake.anthropic_url
    values = {"dataset_id": "summeval", "protocol": "rubric-permutation", "provider": provider, "model": model,
              "base_url": url, "limit_items": 2, "max_tokens": 50, "seed": 1} | changes
    return RunSpec(**values)  # type: ignore[arg-type]


def calls_of(db: Path, run_id: str) -> pd.DataFrame:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT * FROM judge_calls WHERE run_id = ? ORDER BY call_id", [run_id]).df()


def query(db: Path, sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, params or []).fetchall()
