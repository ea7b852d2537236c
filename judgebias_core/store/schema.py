"""The store's schema as an ordered list of migrations, applied once each.

Append a migration to add tables or columns; never edit one that has shipped.
"""

from __future__ import annotations

import os
import re

import duckdb

from judgebias_core.errors import SchemaError, StoreError, StoreReadOnlyError
from judgebias_core.store.blocks import refuse_truncated
from judgebias_core.store.connection import STORE_HELP, connect, int_scalar, scalar

MIGRATION_1 = """
CREATE TABLE datasets (
    dataset_id VARCHAR PRIMARY KEY,
    name VARCHAR NOT NULL,
    kind VARCHAR NOT NULL CHECK (kind IN ('pairwise', 'pointwise')),
    source VARCHAR NOT NULL,
    licence VARCHAR NOT NULL,
    description VARCHAR NOT NULL DEFAULT '',
    baseline_candidate VARCHAR,
    origin VARCHAR NOT NULL DEFAULT 'bundled',      -- bundled | upload
    content_hash VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE rubrics (
    rubric_id VARCHAR PRIMARY KEY,
    criterion VARCHAR NOT NULL,
    k INTEGER NOT NULL,
    source VARCHAR NOT NULL DEFAULT '',
    dataset_id VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE rubric_levels (
    rubric_id VARCHAR NOT NULL,
    level INTEGER NOT NULL,
    description VARCHAR NOT NULL,
    PRIMARY KEY (rubric_id, level)
);
-- seq keeps the bundled (or uploaded) order of items: later features take "the first N".
CREATE TABLE items (
    dataset_id VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    seq INTEGER NOT NULL,
    task VARCHAR,
    question VARCHAR NOT NULL,         -- all turns together, for lengths and display
    turns VARCHAR[],
    response VARCHAR,                  -- pointwise: the text being scored
    candidate VARCHAR,                 -- pointwise: who wrote the response
    reference_answer VARCHAR,
    rubric_id VARCHAR,                 -- pointwise: the item's default rubric
    metadata JSON,
    PRIMARY KEY (dataset_id, item_id)
);
CREATE TABLE answers (
    dataset_id VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    candidate VARCHAR NOT NULL,
    answer VARCHAR NOT NULL,           -- all turns together
    turns VARCHAR[],
    PRIMARY KEY (dataset_id, item_id, candidate)
);
-- One row per rating. Scores refer to a rubric; preferences name a candidate or 'tie'.
CREATE TABLE human_labels (
    dataset_id VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    rater VARCHAR NOT NULL,
    rater_group VARCHAR NOT NULL DEFAULT 'human',   -- expert | crowd | human | reference-judge
    label_source VARCHAR NOT NULL CHECK (label_source IN ('human', 'reference-judge')),
    rubric_id VARCHAR NOT NULL DEFAULT '',
    score DOUBLE,
    preference VARCHAR,
    PRIMARY KEY (dataset_id, item_id, rater, rubric_id)
);
CREATE TABLE judges (
    judge VARCHAR PRIMARY KEY,
    provider VARCHAR NOT NULL,         -- recorded | anthropic | openai | simulated | replay | upload
    family VARCHAR NOT NULL,
    simulated BOOLEAN NOT NULL DEFAULT false,
    description VARCHAR NOT NULL DEFAULT ''
);
CREATE TABLE prompt_templates (
    template_id VARCHAR PRIMARY KEY,   -- sha256 of the text
    name VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    text VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
-- Every judge call belongs to a run. Bundled data gets one run per (dataset, study).
CREATE TABLE runs (
    run_id VARCHAR PRIMARY KEY,
    dataset_id VARCHAR NOT NULL,
    study VARCHAR NOT NULL,
    origin VARCHAR NOT NULL,           -- bundled | engine | upload
    protocol VARCHAR NOT NULL,
    provider VARCHAR NOT NULL,
    judge VARCHAR,                     -- null when a recorded study holds several judges
    model VARCHAR,
    simulated BOOLEAN NOT NULL DEFAULT false,
    params JSON,
    template_id VARCHAR,
    rubric_id VARCHAR,
    status VARCHAR NOT NULL,
    planned INTEGER,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    finished_at TIMESTAMP
);
CREATE TABLE judge_calls (
    call_id VARCHAR PRIMARY KEY,
    run_id VARCHAR NOT NULL,
    dataset_id VARCHAR NOT NULL,
    study VARCHAR NOT NULL,            -- 'full' / 'repetition' for bundled data, the run id for engine runs
    judge VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL CHECK (kind IN ('pairwise', 'listwise', 'rubric')),
    repetition INTEGER NOT NULL DEFAULT 1,
    options INTEGER,                   -- pairwise: 2 (no tie) or 3 (tie allowed)
    slots VARCHAR[],                   -- candidates in slot order (pairwise and list-wise)
    first_candidate VARCHAR,
    second_candidate VARCHAR,
    order_label VARCHAR,               -- pairwise: original | swapped
    ordering INTEGER[],                -- rubric: scores in position order as shown
    rubric_id VARCHAR,
    template_id VARCHAR,
    prompt VARCHAR,
    raw_output VARCHAR,
    verdict VARCHAR,                   -- pairwise A/B/C; list-wise slot letter or 'none'
    score INTEGER,                     -- rubric score chosen
    chosen_position INTEGER,           -- rubric: 1-based position of the chosen score
    parse_status VARCHAR NOT NULL CHECK (parse_status IN ('ok', 'failed', 'no_reply')),
    parser VARCHAR NOT NULL,
    error VARCHAR,
    input_tokens INTEGER,
    output_tokens INTEGER,
    latency_ms DOUBLE,
    cost_usd DOUBLE,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
-- Pairs classified when judgments land, so metrics aggregate instead of re-pairing calls.
CREATE TABLE pair_outcomes (
    dataset_id VARCHAR NOT NULL,
    study VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    judge VARCHAR NOT NULL,
    repetition INTEGER NOT NULL,
    item_id VARCHAR NOT NULL,
    task VARCHAR,
    candidate VARCHAR NOT NULL,        -- in the second slot of the original order
    opponent VARCHAR NOT NULL,         -- in the first slot of the original order (the baseline)
    original_call_id VARCHAR NOT NULL,
    swapped_call_id VARCHAR NOT NULL,
    verdict_original VARCHAR,
    verdict_swapped VARCHAR,
    classification VARCHAR NOT NULL CHECK (classification IN ('consistent', 'primacy', 'recency', 'failed')),
    winner VARCHAR                     -- consistent pairs: candidate, opponent or 'tie'
);
"""

# The engine's response cache (an identical paid call is never sent twice) and a flag on calls answered from it.
MIGRATION_2 = """
CREATE TABLE response_cache (
    cache_key VARCHAR PRIMARY KEY,     -- sha256 of provider, model, base URL, sampling params, prompt, repetition
    provider VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    raw_output VARCHAR NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    run_id VARCHAR,
    call_id VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
ALTER TABLE judge_calls ADD COLUMN cached BOOLEAN DEFAULT false;
"""

# Provider batches of a run (engine/batch.py): a resumed run polls its batches in flight instead of resubmitting.
MIGRATION_3 = """
CREATE TABLE run_batches (
    run_id VARCHAR NOT NULL,
    batch_id VARCHAR NOT NULL,         -- the provider's id (OpenAI batch_..., Anthropic msgbatch_...)
    provider VARCHAR NOT NULL,
    input_file_id VARCHAR,             -- OpenAI: the uploaded JSONL file
    call_ids VARCHAR[] NOT NULL,       -- the custom ids the batch carries (judge_calls.call_id)
    round INTEGER NOT NULL DEFAULT 1,  -- 1 = first submission; later rounds retry errored or expired requests
    status VARCHAR NOT NULL,           -- submitted | collected
    submitted_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    collected_at TIMESTAMP,
    PRIMARY KEY (run_id, batch_id)
);
"""
# G-Eval style expected score of a rubric call, from the provider's token log-probabilities (engine runs).
MIGRATION_4 = """
ALTER TABLE judge_calls ADD COLUMN expected_score DOUBLE;
ALTER TABLE response_cache ADD COLUMN score_logprobs JSON;
"""
# Batch intents (engine/batch.py): written before each batch create, so a run that dies between the provider
# accepting a batch and the run_batches row being written adopts that batch on resume instead of paying twice.
MIGRATION_5 = """
CREATE TABLE batch_intents (
    intent_id VARCHAR PRIMARY KEY,     -- random hex, also the OpenAI batch's metadata judgebias_intent
    run_id VARCHAR NOT NULL,
    provider VARCHAR NOT NULL,
    round INTEGER NOT NULL,
    chunk INTEGER NOT NULL,            -- the chunk's place in its submission (0-based)
    call_ids VARCHAR[] NOT NULL,       -- the custom ids the batch is to carry
    input_file_id VARCHAR,             -- OpenAI: the JSONL file, uploaded before the intent is written
    intent_at DOUBLE NOT NULL,         -- epoch seconds just before create (Anthropic: the adoption window)
    status VARCHAR NOT NULL,           -- pending | submitted | abandoned
    batch_id VARCHAR                   -- the batch created (or adopted) for it
);
ALTER TABLE run_batches ADD COLUMN adopted_by VARCHAR;  -- NULL, or how a resume matched it: metadata | input file | window
"""
# Operator actions on a served dashboard (issue 26): who launched, resumed or cancelled a run, or uploaded a file.
# "local" is the one user of a dashboard on loopback without login.
MIGRATION_6 = """
CREATE TABLE operator_actions (
    action_id VARCHAR PRIMARY KEY,     -- random hex
    acted_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    actor VARCHAR NOT NULL,            -- the OpenID Connect email (else subject id), or local
    action VARCHAR NOT NULL,           -- launch | resume | cancel | upload
    target VARCHAR NOT NULL,           -- the run id, or the uploaded dataset or run id
    detail VARCHAR                     -- e.g. the uploaded file's name
);
"""
# Issue 27. The store's identity (a random id made once, when the store is created or first migrated here), which
# its run folder records: journals written for another store are never replayed into this one silently. And the
# requests a kill cut off after they were sent (engine/in_flight.py): paid for, most likely, so counted in the run's
# cost as an estimate.
MIGRATION_7 = """
CREATE TABLE store_identity (
    store_id VARCHAR PRIMARY KEY,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
INSERT INTO store_identity (store_id) SELECT gen_random_uuid()::VARCHAR;
CREATE TABLE unanswered_sends (
    run_id VARCHAR NOT NULL,
    call_id VARCHAR NOT NULL,
    sent_at DOUBLE NOT NULL,           -- epoch seconds the request left (the run's send ledger)
    input_tokens_estimate INTEGER,     -- characters / 4 of the prompt
    output_tokens_estimate INTEGER,    -- the run's mean reply length then (max tokens before any reply)
    cost_usd_estimate DOUBLE NOT NULL, -- an estimate: the provider's usage of a cut-off request is never seen
    recorded_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (run_id, call_id, sent_at)
);
"""
MIGRATIONS: list[str] = [MIGRATION_1, MIGRATION_2, MIGRATION_3, MIGRATION_4, MIGRATION_5, MIGRATION_6,
                         MIGRATION_7]
SCHEMA_VERSION = len(MIGRATIONS)


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    exists = scalar(con, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'")
    if not exists:
        return 0
    return int_scalar(con, "SELECT max(version) FROM schema_version")


# Every table the migrations create (schema_version aside): a store at the latest version lacking one is damaged.
SCHEMA_TABLES: tuple[str, ...] = tuple(dict.fromkeys(
    re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", "\n".join(MIGRATIONS), flags=re.IGNORECASE)))


def missing_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Tables of the latest schema that the store does not hold."""
    present = {row[0] for row in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    return [table for table in SCHEMA_TABLES if table not in present]


def checked_version(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str]) -> int:
    """The store's schema version; a newer one, or a store at the latest version that lacks a table, is refused."""
    refuse_truncated(con, path)
    version = current_version(con)
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"the store is at schema version {version}; this judgebias knows up to {SCHEMA_VERSION}"
        )
    if version == SCHEMA_VERSION:
        missing = missing_tables(con)
        if missing:
            raise StoreError(f"the store {path} lacks the table{'s' if len(missing) > 1 else ''} "
                             f"{', '.join(missing)} (dropped, or the file was edited): run check-store; {STORE_HELP}")
    return version


def migrate(path: str | os.PathLike[str]) -> int:
    """Bring the store at ``path`` to the latest schema. Returns the version it is at.

    A store this user may only read is checked through a read-only connection: one at the latest schema is
    usable for reading as it is; one that needs a migration is refused with the way out.
    """
    try:
        with connect(path) as con:
            return _migrate_open(con, path)
    except StoreReadOnlyError as refused:
        with connect(path, read_only=True) as con:
            version = checked_version(con, path)
        if version < SCHEMA_VERSION:
            raise StoreReadOnlyError(f"{refused}; it is at schema version {version} and this judgebias needs "
                                     f"version {SCHEMA_VERSION}, which opening it with write permission once "
                                     "sets up") from None
        return version


def _migrate_open(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str]) -> int:
    version = checked_version(con, path)
    if version == SCHEMA_VERSION:
        return version
    other_tables = "SELECT count(*) FROM information_schema.tables WHERE table_name <> 'schema_version'"
    if version == 0 and scalar(con, other_tables):
        raise StoreError(f"{path} is a DuckDB database but not a judgebias store (it has tables and no "
                         f"schema_version): {STORE_HELP}")
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT current_timestamp)"
    )
    for number, sql in enumerate(MIGRATIONS[version:], start=version + 1):
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(sql)
            con.execute("INSERT INTO schema_version (version) VALUES (?)", [number])
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
    return SCHEMA_VERSION
