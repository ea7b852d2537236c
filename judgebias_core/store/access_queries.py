"""Operator actions (``operator_actions``): who launched, resumed or cancelled a run or uploaded a file."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Literal

import pandas as pd

from judgebias_core.store.connection import int_scalar
from judgebias_core.store.handle import Store, StoreReader

OperatorAction = Literal["launch", "resume", "cancel", "upload"]

# Runs still going whose latest launch or resume was this actor's: marked running in the store, or launched so
# recently that the child process has not written its run yet (the action is recorded before the launch), so two
# launches in quick succession both count. A launch whose run never appeared stops counting after PENDING_MINUTES.
PENDING_MINUTES = 10
_RUNNING_OF_SQL = f"""
WITH latest AS (
    SELECT target AS run_id, arg_max(actor, acted_at) AS actor, max(acted_at) AS acted_at
    FROM operator_actions WHERE action IN ('launch', 'resume') GROUP BY target
)
SELECT count(*) FROM latest l LEFT JOIN runs r USING (run_id)
WHERE l.actor = ? AND NOT list_contains(?, l.run_id)
  AND (r.status = 'running'
       OR (r.run_id IS NULL AND l.acted_at > current_timestamp::TIMESTAMP - INTERVAL {PENDING_MINUTES} MINUTE))
"""


def record_actions(store: Store, actor: str, action: OperatorAction, targets: Sequence[str],
                   detail: str | None = None) -> None:
    """Keep one row per target, in one transaction."""
    with store.writer() as con:
        con.executemany(
            "INSERT INTO operator_actions (action_id, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)",
            [[secrets.token_hex(8), actor, action, target, detail] for target in targets])


def actions_on(reader: StoreReader, target: str) -> pd.DataFrame:
    """Every action on a run or dataset, oldest first (``acted_at, actor, action, detail``)."""
    con = reader.con
    return con.execute("SELECT acted_at, actor, action, detail FROM operator_actions WHERE target = ? "
                       "ORDER BY acted_at, action_id", [target]).df()


def running_runs_of(reader: StoreReader, actor: str, finished: Sequence[str] = ()) -> int:
    """How many runs marked running were last launched or resumed by ``actor`` (``finished``: run ids whose
    process is known to have ended although the store still says running)."""
    con = reader.con
    return int_scalar(con, _RUNNING_OF_SQL, [actor, list(finished)])
