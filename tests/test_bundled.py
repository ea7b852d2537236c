"""The bundled real data as the store holds it after a first launch: counts the sources publish."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from judgebias_core.sources.bundled import import_bundled
from judgebias_core.store.connection import connect, scalar
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import call_detail, dataset_summaries, items_page, store_overview
from tests.store_helpers import read


def _count(path: Path, sql: str, params: list[object] | None = None) -> int:
    with connect(path, read_only=True) as con:
        return int(scalar(con, sql, params) or 0)


def test_dataset_counts(bundled_db_master: Path) -> None:
    summaries = {s.id: s for s in read(dataset_summaries, bundled_db_master)}
    assert set(summaries) >= {"mtbench", "devbench", "autoj", "prometheus-vicuna", "prometheus-mt-bench", "summeval"}
    assert (summaries["mtbench"].items, summaries["mtbench"].candidates, summaries["mtbench"].judge_calls) == (80, 31, 19584)
    assert (summaries["devbench"].items, summaries["devbench"].judge_calls) == (121, 15088)
    assert (summaries["autoj"].items, summaries["autoj"].judge_calls, summaries["autoj"].human_labels) == (1392, 2784, 1392)
    assert summaries["summeval"].items == 1200 and summaries["summeval"].human_labels == 1200
    # GPT-4's scores on the Prometheus items are a reference judge's, not human labels.
    assert summaries["prometheus-vicuna"].human_labels == 0
    assert summaries["prometheus-mt-bench"].dataset_kind == "pointwise"


def test_parse_failures_follow_the_authors_rules(bundled_db_master: Path) -> None:
    sql = "SELECT count(*) FROM judge_calls WHERE dataset_id = ? AND parse_status = 'failed'"
    assert _count(bundled_db_master, sql, ["mtbench"]) == 60
    assert _count(bundled_db_master, sql, ["devbench"]) == 7
    # Failed replies are kept raw, never dropped.
    assert _count(bundled_db_master, "SELECT count(*) FROM judge_calls WHERE parse_status = 'failed' "
                  "AND dataset_id IN ('mtbench', 'devbench') AND raw_output IS NOT NULL") == 67


def test_known_answer_consistency(bundled_db_master: Path) -> None:
    sql = ("SELECT count(*) FILTER (WHERE classification = 'consistent'), count(*) FROM pair_outcomes "
           "WHERE dataset_id = ? AND study = 'full' AND judge = ?")
    with connect(bundled_db_master, read_only=True) as con:
        assert con.execute(sql, ["mtbench", "gpt-4-0613"]).fetchall() == [(1957, 2400)]
        assert con.execute(sql, ["autoj", "auto-j-13b"]).fetchall() == [(1161, 1392)]


def test_every_bundled_call_has_its_mirror(bundled_db_master: Path) -> None:
    assert _count(bundled_db_master, """
        SELECT count(*) FROM judge_calls o WHERE o.kind = 'pairwise' AND NOT EXISTS (
          SELECT 1 FROM judge_calls s WHERE s.dataset_id = o.dataset_id AND s.study = o.study AND s.judge = o.judge
            AND s.repetition = o.repetition AND s.item_id = o.item_id
            AND s.first_candidate = o.second_candidate AND s.second_candidate = o.first_candidate)""") == 0


def test_autoj_verdicts_are_pre_parsed_without_raw_text(bundled_db_master: Path) -> None:
    with connect(bundled_db_master, read_only=True) as con:
        call_id = scalar(con, "SELECT min(call_id) FROM judge_calls WHERE dataset_id = 'autoj'")
    detail = read(call_detail, bundled_db_master, str(call_id))
    assert detail.parser == "pre-parsed" and detail.raw_output is None and detail.verdict in {"A", "B", "C"}
    assert set(detail.answers) == {"response_1", "response_2"}


def test_items_keep_the_bundled_order(bundled_db_master: Path) -> None:
    frame, total = read(items_page, bundled_db_master, "summeval", 0, 5)
    assert total == 1200
    assert frame["item_id"].str.split(":").str[1].tolist() == ["M8", "M9", "M10", "M11", "M12"]
    frame, _ = read(items_page, bundled_db_master, "mtbench", 0, 2)
    assert frame["item_id"].tolist() == ["81", "82"]


def test_import_is_idempotent(bundled_db: Path) -> None:
    before = read(store_overview, bundled_db)
    reports = import_bundled(Store.open(bundled_db), force=True, datasets=("autoj", "summeval"))
    assert all(sum(r.inserted.values()) == 0 for r in reports)
    assert read(store_overview, bundled_db) == before


def test_cli_datasets_json(bundled_db_master: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "judgebias_core", "--db", str(bundled_db_master), "datasets", "--json"],
                         capture_output=True, text=True, check=True).stdout
    rows = {row["id"]: row for row in json.loads(out)}
    assert set(rows["mtbench"]) >= {"id", "kind", "items", "candidates", "judge_calls", "human_labels", "source",
                                    "licence"}
    assert rows["mtbench"]["candidates"] == 31 and rows["autoj"]["human_labels"] == 1392


def test_cli_errors_go_to_stderr_with_nonzero_exit(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "judgebias_core", "--db", str(tmp_path / "x.duckdb"), "nonsense"],
                            capture_output=True, text=True)
    assert result.returncode != 0 and result.stderr and not result.stdout


def test_dashboard_reads_while_the_cli_writes(tmp_path: Path) -> None:
    """The CLI imports into the store while this process keeps reading it with short connections."""
    path = tmp_path / "shared.duckdb"
    writer = subprocess.Popen([sys.executable, "-m", "judgebias_core", "--db", str(path), "import-bundled",
                               "--dataset", "mtbench", "--dataset", "autoj"], stderr=subprocess.PIPE, text=True)
    seen: list[int] = []
    errors: list[Exception] = []

    def read_loop() -> None:
        while writer.poll() is None:
            try:
                if path.exists():
                    seen.append(read(store_overview, path).judge_calls)
            except Exception as error:  # noqa: BLE001 - collected and asserted on below
                errors.append(error)
            time.sleep(0.05)

    reader = threading.Thread(target=read_loop)
    reader.start()
    writer.wait(timeout=120)
    reader.join()
    assert writer.returncode == 0, writer.stderr.read() if writer.stderr else ""
    assert not errors
    assert seen, "the reader never got a turn"
    assert read(store_overview, path).judge_calls == 19584 + 2784
    assert seen == sorted(seen)  # readers only ever see whole transactions
