"""No key survives in anything stored: a server that echoes request headers into its replies (live and batch, both
wire formats), then the key is looked for in every table of the store, the journals, and CSV/Parquet exports."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from judgebias_core.engine import start_run
from judgebias_core.engine.batch import BatchSettings, start_batch_run
from judgebias_core.exports import csv_bytes
from judgebias_core.judges.redact import MARKER, remember_secret, scrub_record, scrub_text
from judgebias_core.providers.endpoints import KEY_ENDPOINTS_VARIABLE
from judgebias_core.store.handle import Store
from judgebias_core.store.transfer import export_runs
from tests.engine_helpers import QUICK, SECRET, calls_of, rubric_spec
from tests.fake_provider_batch import BatchFakeProvider

SETTINGS_KEY = "sk-ant-from-settings-0123456789XYZ"  # given as ``key=`` (a Streamlit secret), not in the environment
MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-3-5-haiku-latest"}


@pytest.fixture
def echo() -> Iterator[BatchFakeProvider]:
    with BatchFakeProvider(polls_needed=1, echo_headers=True) as provider:
        yield provider


def _occurrences_in_store(db: Path, secret: str) -> dict[str, int]:
    """Rows holding ``secret`` in any column, per table (every column read as text)."""
    found: dict[str, int] = {}
    with duckdb.connect(str(db), read_only=True) as con:
        columns = con.execute("SELECT table_name, column_name FROM information_schema.columns "
                              "WHERE table_schema = 'main'").fetchall()
        for table, column in columns:
            count = con.execute(f'SELECT count(*) FROM "{table}" WHERE contains(CAST("{column}" AS VARCHAR), ?)',
                                [secret]).fetchone()
            if count and count[0]:
                found[f"{table}.{column}"] = int(count[0])
    return found


def test_echoed_keys_reach_no_table_journal_cache_or_export(bundled_db: Path, echo: BatchFakeProvider,
                                                            monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    # the stored key goes to a non-official base URL only when the operator lists it (providers/endpoints.py)
    monkeypatch.setenv(KEY_ENDPOINTS_VARIABLE, echo.openai_url)
    runs = []
    for provider in ("openai", "anthropic"):
        key = SECRET if provider == "openai" else SETTINGS_KEY
        spec = rubric_spec(echo, MODELS[provider], provider=provider, seed=41)
        runs.append(start_run(Store.open(bundled_db), spec, QUICK, run_id=f"echo-live-{provider}", key=key))
        batch_spec = spec.model_copy(update={"seed": 42})
        runs.append(start_batch_run(Store.open(bundled_db), batch_spec, QUICK, BatchSettings(poll_interval_s=0.01),
                                    run_id=f"echo-batch-{provider}", key=key))
    assert [(r.completed, r.failed) for r in runs] == [(20, 0)] * 4
    # the server did see both keys in its headers, and quoted them back
    for secret in (SECRET, SETTINGS_KEY):  # Bearer or x-api-key, as the SDK version sends it
        assert any(secret in value for r in echo.requests for value in r.headers.values())
    for run in runs:
        raw = calls_of(bundled_db, run.run_id)["raw_output"]
        assert raw.str.startswith("Request headers:").all() and raw.str.contains(MARKER, regex=False).all()
        assert set(calls_of(bundled_db, run.run_id)["parse_status"]) == {"ok"}  # the verdict is still read

    exported = Store(bundled_db).read(export_runs, [r.run_id for r in runs], tmp_path / "export.parquet")
    csv = b"".join(csv_bytes(calls_of(bundled_db, r.run_id)) for r in runs)
    files = [p.read_bytes() for p in Store(bundled_db).run_folder.iterdir() if p.is_file()]
    for secret in (SECRET, SETTINGS_KEY):
        assert _occurrences_in_store(bundled_db, secret) == {}
        assert not any(secret.encode() in content for content in files)  # journals, progress, logs
        assert secret.encode() not in Path(exported[0].path).read_bytes()
        assert secret.encode() not in csv
    assert duckdb.sql(f"SELECT count(*) FROM '{exported[0].path}' WHERE contains(raw_output, '{MARKER}')"
                      ).fetchall() == [(80,)]


@pytest.mark.parametrize("echoed", [
    '{"authorization": "Bearer abcDEF0123456789ghijKL"}',  # JSON, as the fake and many proxies echo it
    "Authorization: Bearer abcDEF0123456789ghijKL",  # raw HTTP
    "{'x-api-key': 'abcDEF0123456789ghijKL'}",  # a Python repr
    "api-key=abcDEF0123456789ghijKL",  # Azure's header, as a form field
])
def test_header_values_are_scrubbed_whatever_the_key_looks_like(echoed: str) -> None:
    assert "abcDEF0123456789ghijKL" not in scrub_text(echoed, ())
    assert MARKER in scrub_text(echoed, ())


def test_ordinary_reply_text_is_left_alone() -> None:
    text = "Authorization: the summary is clear. The key-value pairs are right. [RESULT] 4"
    assert scrub_text(text, ()) == text


def test_a_remembered_key_is_scrubbed_in_nested_records(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    remember_secret("remembered-0123456789")
    remember_secret("short")  # too short to be a key: scrubbing it would blank ordinary words
    record = {"text": "x remembered-0123456789 y short", "error": None, "score_logprobs": {"remembered-0123456789": 0.1},
              "tokens": ["remembered-0123456789"]}
    assert scrub_record(record) == {"text": f"x {MARKER} y short", "error": None, "score_logprobs": {MARKER: 0.1},
                                    "tokens": [MARKER]}
