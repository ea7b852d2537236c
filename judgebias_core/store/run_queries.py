"""SQL of the run engine: what a plan reads (items, answers, labels), run bookkeeping, the response cache."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from judgebias_core.errors import NotFoundError
from judgebias_core.store.connection import scalar
from judgebias_core.store.handle import Store, StoreReader

_ITEMS_SQL = """
SELECT item_id, seq, task, question, response, candidate, reference_answer, rubric_id
FROM items
WHERE dataset_id = $dataset AND ($candidates IS NULL OR list_contains($candidates, candidate))
ORDER BY seq
LIMIT $limit
"""

# Human labels first; a reference judge's scores only where no human scored the item.
_SCORE_LABELS_SQL = """
WITH scored AS (
    SELECT item_id, rubric_id, label_source, avg(score) AS mean_score
    FROM human_labels WHERE dataset_id = ? AND score IS NOT NULL GROUP BY ALL
)
SELECT item_id, rubric_id, arg_min(mean_score, CASE label_source WHEN 'human' THEN 0 ELSE 1 END) AS mean_score
FROM scored GROUP BY ALL
"""

_PREFERENCE_SQL = """
SELECT item_id, mode(preference) AS preference
FROM human_labels WHERE dataset_id = ? AND preference IS NOT NULL AND label_source = 'human' GROUP BY item_id
"""


def dataset_row(reader: StoreReader, dataset_id: str) -> dict[str, object]:
    """The dataset's kind and baseline candidate."""
    con = reader.con
    rows = con.execute(
        "SELECT dataset_id, kind, baseline_candidate FROM datasets WHERE dataset_id = ?", [dataset_id]
    ).fetchall()
    if not rows:
        raise NotFoundError(f"no dataset {dataset_id!r} in the store")
    return {"dataset_id": rows[0][0], "kind": rows[0][1], "baseline_candidate": rows[0][2]}


def plan_items(reader: StoreReader, dataset_id: str, limit: int | None,
               candidates: Sequence[str] | None = None) -> pd.DataFrame:
    """The first ``limit`` items in stored order (pointwise: only those written by ``candidates``)."""
    wanted = list(candidates) if candidates else None
    con = reader.con
    return con.execute(_ITEMS_SQL, {"dataset": dataset_id, "candidates": wanted,
                                    "limit": limit if limit else 2**31 - 1}).df()


# A plan's size before it is built (protocols/plan_size.py): per chosen item, its candidates (those kept, the
# baseline always) and whether the baseline is one; for a rubric plan, items per rubric.
_ITEM_CANDIDATE_COUNTS_SQL = """
WITH chosen AS (SELECT item_id, seq FROM items WHERE dataset_id = $dataset ORDER BY seq LIMIT $limit)
SELECT c.item_id,
       count(a.candidate) FILTER ($keep IS NULL OR list_contains($keep, a.candidate)
                                  OR a.candidate = d.baseline_candidate) AS candidates,
       coalesce(bool_or(a.candidate = d.baseline_candidate), false) AS has_baseline
FROM chosen c
JOIN datasets d ON d.dataset_id = $dataset
LEFT JOIN answers a ON a.dataset_id = $dataset AND a.item_id = c.item_id
GROUP BY c.item_id, c.seq
ORDER BY c.seq
"""

_ITEMS_PER_RUBRIC_SQL = """
SELECT coalesce($rubric, rubric_id) AS rubric_id, count(*) AS items
FROM (SELECT rubric_id FROM items WHERE dataset_id = $dataset AND ($keep IS NULL OR list_contains($keep, candidate))
      ORDER BY seq LIMIT $limit)
GROUP BY ALL
"""


def plan_item_candidate_counts(reader: StoreReader, dataset_id: str, limit: int | None,
                               candidates: Sequence[str] | None = None) -> pd.DataFrame:
    """``item_id, candidates, has_baseline`` of the first ``limit`` items, without reading any text."""
    keep = list(candidates) if candidates else None
    con = reader.con
    return con.execute(_ITEM_CANDIDATE_COUNTS_SQL,
                       {"dataset": dataset_id, "limit": limit or 2**31 - 1, "keep": keep}).df()


def plan_items_per_rubric(reader: StoreReader, dataset_id: str, limit: int | None,
                          candidates: Sequence[str] | None = None, rubric_id: str | None = None) -> pd.DataFrame:
    """``rubric_id, items`` of the first ``limit`` items (``rubric_id`` overriding each item's own)."""
    keep = list(candidates) if candidates else None
    con = reader.con
    return con.execute(_ITEMS_PER_RUBRIC_SQL, {"dataset": dataset_id, "limit": limit or 2**31 - 1,
                                               "keep": keep, "rubric": rubric_id}).df()


def plan_answers(reader: StoreReader, dataset_id: str, item_ids: Sequence[str]) -> pd.DataFrame:
    """Candidate answers of the given items."""
    con = reader.con
    return con.execute(
        "SELECT item_id, candidate, answer FROM answers WHERE dataset_id = ? AND list_contains(?, item_id) "
        "ORDER BY item_id, candidate",
        [dataset_id, list(item_ids)],
    ).df()


def dataset_candidates(reader: StoreReader, dataset_id: str) -> list[str]:
    """The names of a dataset's candidates (answers' systems), sorted."""
    con = reader.con
    rows = con.execute("SELECT DISTINCT candidate FROM answers WHERE dataset_id = ? ORDER BY candidate",
                       [dataset_id]).fetchall()
    return [str(r[0]) for r in rows]


def score_labels(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """Per item and rubric, the mean human score (else the reference judge's mean)."""
    con = reader.con
    return con.execute(_SCORE_LABELS_SQL, [dataset_id]).df()


def preference_labels(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """Per item, the human preference (a candidate or 'tie') where one exists."""
    con = reader.con
    return con.execute(_PREFERENCE_SQL, [dataset_id]).df()


def recorded_replies(reader: StoreReader, dataset_id: str, study: str, judge: str) -> pd.DataFrame:
    """The bundled replies of one judge in one study, keyed by item, slot order and repetition."""
    con = reader.con
    return con.execute(
        "SELECT item_id, first_candidate, second_candidate, repetition, options, raw_output, parser "
        "FROM judge_calls WHERE dataset_id = ? AND study = ? AND judge = ? AND raw_output IS NOT NULL "
        "AND run_id LIKE 'bundled:%'",
        [dataset_id, study, judge],
    ).df()


def run_record(reader: StoreReader, run_id: str) -> dict[str, object] | None:
    """The stored run row, or None when the run id is new."""
    con = reader.con
    frame = con.execute(
        "SELECT r.*, t.text AS template_text FROM runs r LEFT JOIN prompt_templates t USING (template_id) "
        "WHERE r.run_id = ?",
        [run_id],
    ).df()
    return None if frame.empty else frame.iloc[0].to_dict()


def stored_call_status(reader: StoreReader, run_id: str) -> pd.DataFrame:
    """call_id and parse_status of every call already stored for a run."""
    con = reader.con
    return con.execute("SELECT call_id, parse_status FROM judge_calls WHERE run_id = ?", [run_id]).df()


def delete_no_reply_calls(store: Store, call_ids: Sequence[str]) -> None:
    """Drop stored 'no reply' rows of calls that are about to be stored with a reply."""
    if not call_ids:
        return
    with store.writer() as con:
        con.execute("DELETE FROM judge_calls WHERE parse_status = 'no_reply' AND list_contains(?, call_id)",
                    [list(call_ids)])


def set_run_status(store: Store, run_id: str, status: str, finished: bool) -> None:
    with store.writer() as con:
        con.execute(
            "UPDATE runs SET status = ?, finished_at = CASE WHEN ? THEN current_timestamp ELSE NULL END "
            "WHERE run_id = ?",
            [status, finished, run_id],
        )


def cached_replies(reader: StoreReader, keys: Sequence[str]) -> pd.DataFrame:
    """Cached replies among ``keys`` (the response cache of every earlier run)."""
    if not keys:
        return pd.DataFrame(columns=["cache_key", "raw_output", "input_tokens", "output_tokens", "score_logprobs"])
    con = reader.con
    con.register("_wanted_keys", pd.DataFrame({"cache_key": list(dict.fromkeys(keys))}))
    frame = con.execute(
        "SELECT c.cache_key, c.raw_output, c.input_tokens, c.output_tokens, c.score_logprobs FROM response_cache c "
        "JOIN _wanted_keys w USING (cache_key)"
    ).df()
    con.unregister("_wanted_keys")
    return frame


def run_counts(reader: StoreReader, run_id: str) -> dict[str, float]:
    """Stored counts of one run: completed (a reply, parsed or not), failed (no reply), parse failures, cost (the
    replies' cost plus the estimate for requests a kill cut off: ``cost_estimated_usd`` of ``unanswered_sends``;
    ``unpriced_calls``: replies whose cost is unknown, left out of the sum)."""
    con = reader.con
    rows = con.execute(
        "SELECT count(*) FILTER (WHERE parse_status <> 'no_reply'), count(*) FILTER (WHERE parse_status = "
        "'no_reply'), count(*) FILTER (WHERE parse_status = 'failed'), coalesce(sum(cost_usd), 0), "
        "count(*) FILTER (WHERE parse_status <> 'no_reply' AND cost_usd IS NULL) "
        "FROM judge_calls WHERE run_id = ?",
        [run_id],
    ).fetchall()
    lost = con.execute("SELECT count(*), coalesce(sum(cost_usd_estimate), 0) FROM unanswered_sends "
                       "WHERE run_id = ?", [run_id]).fetchall()
    completed, failed, parse_failures, cost, unpriced = rows[0]
    sends, estimated = lost[0]
    return {"completed": int(completed), "failed": int(failed), "parse_failures": int(parse_failures),
            "cost_usd": float(cost) + float(estimated), "cost_estimated_usd": float(estimated),
            "unanswered_sends": int(sends), "unpriced_calls": int(unpriced)}


def store_id(reader: StoreReader) -> str:
    """The store's identity (made once, by the migration that added it)."""
    con = reader.con
    return str(scalar(con, "SELECT min(store_id) FROM store_identity"))


def run_ids(reader: StoreReader) -> list[str]:
    """Every run id the store holds."""
    con = reader.con
    return [row[0] for row in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]


def run_calls_sample(reader: StoreReader, run_id: str, limit: int = 200) -> pd.DataFrame:
    """The first stored calls of a run, for a look at what the judge replied."""
    con = reader.con
    return con.execute(
        "SELECT item_id, repetition, slots, ordering, verdict, score, chosen_position, parse_status, error, "
        "input_tokens, output_tokens, latency_ms, cost_usd, cached FROM judge_calls WHERE run_id = ? "
        "ORDER BY created_at, call_id LIMIT ?",
        [run_id, limit],
    ).df()


def replay_judges(reader: StoreReader, dataset_id: str, study: str = "full") -> list[str]:
    """Judges whose recorded replies on a dataset and study can be replayed."""
    con = reader.con
    rows = con.execute(
        "SELECT DISTINCT judge FROM judge_calls WHERE dataset_id = ? AND study = ? AND raw_output IS NOT NULL "
        "AND run_id LIKE 'bundled:%' ORDER BY judge",
        [dataset_id, study],
    ).fetchall()
    return [r[0] for r in rows]
