"""Set-based reads of classified pairs (``pair_outcomes``) and of pairwise/list-wise judge calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from judgebias_core.store.handle import StoreReader

# Shared WHERE clause: every filter is optional (NULL means "all"). Named parameters ($name), as in every query
# whose filters are optional: each value is bound once however often the clause names it.
_SCOPE = """
(CAST($dataset_id AS VARCHAR) IS NULL OR dataset_id = $dataset_id)
AND (CAST($study AS VARCHAR) IS NULL OR study = $study)
AND (CAST($judges AS VARCHAR[]) IS NULL OR list_contains($judges, judge))
"""

# Extra optional filters on pair_outcomes: tasks and candidates.
_PAIR_FILTER = """
AND (CAST($tasks AS VARCHAR[]) IS NULL OR list_contains($tasks, coalesce(task, '(no task)')))
AND (CAST($candidates AS VARCHAR[]) IS NULL OR list_contains($candidates, candidate))
"""

# One row per (dataset, study, judge, repetition, candidate, task). The McNemar cells ask whether the candidate
# wins when it sits in the first slot (swapped order, verdict A) and when it sits in the second (original, B).
UNIT_COUNTS_SQL = f"""
SELECT dataset_id, study, judge, repetition, candidate, coalesce(task, '(no task)') AS task,
       count(*) AS pairs,
       count(*) FILTER (classification = 'failed') AS failed,
       count(*) FILTER (classification = 'consistent') AS consistent,
       count(*) FILTER (classification = 'primacy') AS primacy,
       count(*) FILTER (classification = 'recency') AS recency,
       count(*) FILTER (classification = 'consistent' AND winner = candidate) AS candidate_wins,
       count(*) FILTER (classification = 'consistent' AND winner = opponent) AS opponent_wins,
       count(*) FILTER (classification = 'consistent' AND winner = 'tie') AS ties,
       count(*) FILTER (classification <> 'failed' AND verdict_swapped = 'A' AND verdict_original = 'B')
           AS wins_both_slots,
       count(*) FILTER (classification <> 'failed' AND verdict_swapped = 'A' AND verdict_original <> 'B')
           AS wins_first_slot_only,
       count(*) FILTER (classification <> 'failed' AND verdict_swapped <> 'A' AND verdict_original = 'B')
           AS wins_second_slot_only,
       count(*) FILTER (classification <> 'failed' AND verdict_swapped <> 'A' AND verdict_original <> 'B')
           AS wins_neither_slot
FROM pair_outcomes
WHERE {_SCOPE} {_PAIR_FILTER}
GROUP BY ALL
ORDER BY ALL
"""

ITEM_COUNTS_SQL = f"""
SELECT dataset_id, study, judge, repetition, item_id,
       count(*) FILTER (classification <> 'failed') AS classified,
       count(*) FILTER (classification = 'consistent') AS consistent,
       count(*) FILTER (classification = 'primacy') AS primacy,
       count(*) FILTER (classification = 'recency') AS recency,
       -- The position test scores (A, A) and (B, B) a whole slot pick, a flip to or from a tie half of one.
       count(*) FILTER (classification = 'primacy' AND verdict_original = 'A' AND verdict_swapped = 'A')
           AS primacy_both,
       count(*) FILTER (classification = 'recency' AND verdict_original = 'B' AND verdict_swapped = 'B')
           AS recency_both
FROM pair_outcomes
WHERE {_SCOPE} {_PAIR_FILTER}
GROUP BY ALL
ORDER BY ALL
"""

# Per (judge, candidate, item): the counts behind the overall win rate, for its item-clustered interval.
CANDIDATE_ITEM_SQL = f"""
SELECT dataset_id, study, judge, candidate, item_id,
       count(*) FILTER (classification <> 'failed') AS classified,
       count(*) FILTER (classification = 'consistent' AND winner = candidate) AS candidate_wins,
       count(*) FILTER (classification = 'consistent' AND winner = 'tie') AS ties,
       count(*) FILTER (classification IN ('primacy', 'recency')) AS inconsistent
FROM pair_outcomes
WHERE {_SCOPE} {_PAIR_FILTER}
  AND (CAST($repetition AS INTEGER) IS NULL OR repetition = $repetition)
GROUP BY ALL
ORDER BY ALL
"""

# Two judges on the pairs both classified (same dataset, study, repetition, item and candidates): flips per item.
SHARED_FLIPS_SQL = """
SELECT a.item_id,
       count(*) AS shared,
       count(*) FILTER (a.classification <> 'consistent') AS flips_a,
       count(*) FILTER (b.classification <> 'consistent') AS flips_b
FROM pair_outcomes a
JOIN pair_outcomes b
  ON b.dataset_id = a.dataset_id AND b.study = a.study AND b.repetition = a.repetition AND b.item_id = a.item_id
 AND b.candidate = a.candidate AND b.opponent = a.opponent
WHERE a.dataset_id = $dataset_id AND a.study = $study AND a.judge = $judge_a AND b.judge = $judge_b
  AND a.classification <> 'failed' AND b.classification <> 'failed'
  AND (CAST($repetition AS INTEGER) IS NULL OR a.repetition = $repetition)
GROUP BY ALL
ORDER BY ALL
"""

# A prompt is one order of one pair; its repetitions are the calls that share everything but the repetition index.
# Pairwise verdicts are A, B or C, so the modal count is the largest of three filtered counts (one pass).
_PROMPTS_CTE = f"""
WITH prompts AS (
    SELECT dataset_id, study, judge, item_id, first_candidate, second_candidate,
           count(*) AS repetitions,
           max(repetition) AS last_repetition,
           count(*) FILTER (parse_status = 'ok' AND verdict IN ('A', 'B', 'C')) AS parsed,
           greatest(count(*) FILTER (parse_status = 'ok' AND verdict = 'A'),
                    count(*) FILTER (parse_status = 'ok' AND verdict = 'B'),
                    count(*) FILTER (parse_status = 'ok' AND verdict = 'C')) AS mode_count,
           any_value(verdict) FILTER (repetition = 1 AND parse_status = 'ok') AS verdict_1,
           any_value(verdict) FILTER (repetition = 2 AND parse_status = 'ok') AS verdict_2
    FROM judge_calls
    WHERE kind = 'pairwise' AND {_SCOPE}
      AND (dataset_id, study, judge) IN (SELECT DISTINCT dataset_id, study, judge FROM pair_outcomes
                                         WHERE repetition > 1)
    GROUP BY ALL
)
"""
REPETITION_SQL = _PROMPTS_CTE + """
SELECT dataset_id, study, judge,
       count(*) AS prompts,
       count(*) FILTER (parsed = 0) AS prompts_unparsed,
       -- Exact sums (a DOUBLE sum depends on the order threads combine it in): with one repetition count per
       -- prompt, as runs have, the mean is one integer ratio; otherwise shares are summed as DECIMAL.
       CASE WHEN min(repetitions) FILTER (parsed > 0) = max(repetitions) FILTER (parsed > 0)
            THEN (sum(mode_count) FILTER (parsed > 0))::DOUBLE
                 / (min(repetitions) FILTER (parsed > 0) * count(*) FILTER (parsed > 0))
            ELSE (sum((mode_count / repetitions)::DECIMAL(38, 18)) FILTER (parsed > 0))::DOUBLE
                 / count(*) FILTER (parsed > 0) END AS repetition_stability,
       count(*) FILTER (verdict_1 IS NOT NULL AND verdict_2 IS NOT NULL) AS floor_prompts,
       count(*) FILTER (verdict_1 IS NOT NULL AND verdict_2 IS NOT NULL AND verdict_1 <> verdict_2) AS floor_changed,
       max(last_repetition) AS max_repetitions
FROM prompts
GROUP BY ALL
HAVING max(last_repetition) > 1
ORDER BY ALL
"""
# The repetition floor's counts per item (prompts whose repetitions 1 and 2 both parsed), for its clustered interval.
FLOOR_ITEMS_SQL = _PROMPTS_CTE + """
SELECT dataset_id, study, judge, item_id,
       count(*) FILTER (verdict_1 IS NOT NULL AND verdict_2 IS NOT NULL) AS floor_prompts,
       count(*) FILTER (verdict_1 IS NOT NULL AND verdict_2 IS NOT NULL AND verdict_1 <> verdict_2) AS floor_changed
FROM prompts
GROUP BY ALL
HAVING count(*) FILTER (verdict_1 IS NOT NULL AND verdict_2 IS NOT NULL) > 0
ORDER BY ALL
"""

PAIR_DETAIL_SQL = """
SELECT p.dataset_id, p.study, p.judge, p.repetition, p.item_id, coalesce(p.task, '(no task)') AS task,
       p.candidate, p.opponent, p.classification, p.winner,
       o.verdict AS verdict_original, s.verdict AS verdict_swapped,
       o.parse_status AS parse_status_original, s.parse_status AS parse_status_swapped,
       o.raw_output AS raw_original, s.raw_output AS raw_swapped, o.parser,
       i.question
FROM pair_outcomes p
JOIN judge_calls o ON o.call_id = p.original_call_id
JOIN judge_calls s ON s.call_id = p.swapped_call_id
LEFT JOIN items i ON i.dataset_id = p.dataset_id AND i.item_id = p.item_id
WHERE (CAST($dataset_id AS VARCHAR) IS NULL OR p.dataset_id = $dataset_id)
  AND (CAST($study AS VARCHAR) IS NULL OR p.study = $study)
  AND (CAST($judges AS VARCHAR[]) IS NULL OR list_contains($judges, p.judge))
  AND list_contains($classifications, p.classification)
  AND (CAST($repetition AS INTEGER) IS NULL OR p.repetition = $repetition)
  AND (CAST($task AS VARCHAR) IS NULL OR p.task = $task)
  AND (CAST($candidate AS VARCHAR) IS NULL OR p.candidate = $candidate)
ORDER BY p.judge, p.repetition, i.seq, p.candidate
LIMIT $limit
"""

SCOPE_SQL = """
SELECT 'pairwise' AS kind, dataset_id, study, judge, repetition, coalesce(task, '(no task)') AS task, candidate,
       count(*) AS pairs
FROM pair_outcomes GROUP BY ALL
UNION ALL
SELECT 'listwise', j.dataset_id, j.study, j.judge, j.repetition, coalesce(i.task, '(no task)'), NULL, 0
FROM judge_calls j LEFT JOIN items i ON i.dataset_id = j.dataset_id AND i.item_id = j.item_id
WHERE j.kind = 'listwise' GROUP BY ALL
ORDER BY ALL
"""

# List-wise calls grouped by the set of candidates they show; a verdict letter names a slot (A = 1).
LISTWISE_GROUPS_SQL = f"""
WITH calls AS (
    SELECT dataset_id, study, judge, repetition, item_id, slots, len(slots) AS options,
           list_sort(slots) AS candidate_set,
           CASE WHEN verdict = 'none' THEN 0 ELSE ascii(verdict) - 64 END AS position,
           parse_status = 'ok' AND verdict IS NOT NULL
               AND (verdict = 'none' OR (length(verdict) = 1 AND ascii(verdict) - 64 BETWEEN 1 AND len(slots)))
               AS parsed
    FROM judge_calls
    WHERE kind = 'listwise' AND {_SCOPE}
),
chosen AS (
    SELECT *, CASE WHEN NOT parsed THEN NULL WHEN position = 0 THEN '(none)' ELSE slots[position] END AS winner
    FROM calls
),
groups AS (
    SELECT dataset_id, study, judge, repetition, item_id, candidate_set, any_value(options) AS options,
           count(*) AS calls, count(DISTINCT slots) AS orderings, bool_and(parsed) AS all_parsed,
           count(DISTINCT winner) AS winners,
           count(*) FILTER (parsed AND position = 1) AS first_picks,
           count(*) FILTER (parsed AND position > 1) AS later_picks
    FROM chosen GROUP BY ALL
)
SELECT *,
       CASE WHEN NOT all_parsed OR orderings < options THEN 'failed'
            WHEN winners = 1 THEN 'consistent'
            WHEN first_picks * options > first_picks + later_picks THEN 'primacy'
            WHEN first_picks * options < first_picks + later_picks THEN 'recency'
            ELSE 'undirected'
       END AS classification
FROM groups
ORDER BY dataset_id, study, judge, repetition, item_id
"""


def _scope_params(dataset_id: str | None, study: str | None, judges: Sequence[str] | None) -> dict[str, object]:
    return {"dataset_id": dataset_id, "study": study, "judges": list(judges) if judges else None}


def _pair_params(dataset_id: str | None, study: str | None, judges: Sequence[str] | None,
                 tasks: Sequence[str] | None, candidates: Sequence[str] | None) -> dict[str, object]:
    return {**_scope_params(dataset_id, study, judges), "tasks": list(tasks) if tasks else None,
            "candidates": list(candidates) if candidates else None}


@dataclass(frozen=True)
class PairwiseInputs:
    """What ``pairwise_metrics_from_counts`` needs: unit counts, item counts, repetition counts and the
    repetition floor's counts per item."""

    units: pd.DataFrame
    items: pd.DataFrame
    repetitions: pd.DataFrame
    floor_items: pd.DataFrame


def pairwise_inputs(reader: StoreReader, dataset_id: str | None = None, study: str | None = None,
                    judges: Sequence[str] | None = None, tasks: Sequence[str] | None = None,
                    candidates: Sequence[str] | None = None) -> PairwiseInputs:
    """Unit counts, item counts, repetition counts and per-item floor counts of one scope."""
    pair_params = _pair_params(dataset_id, study, judges, tasks, candidates)
    units = reader.frame(UNIT_COUNTS_SQL, pair_params)
    items = reader.frame(ITEM_COUNTS_SQL, pair_params)
    # Only studies with a second repetition have stability to measure: skip the scan of their calls otherwise.
    has_repetitions = not units.empty and int(units["repetition"].max()) > 1
    limit = "" if has_repetitions else " LIMIT 0"
    scope = _scope_params(dataset_id, study, judges)
    return PairwiseInputs(units, items, reader.frame(REPETITION_SQL + limit, scope),
                          reader.frame(FLOOR_ITEMS_SQL + limit, scope))


def candidate_item_counts(reader: StoreReader, dataset_id: str, study: str, judges: Sequence[str] | None = None,
                          tasks: Sequence[str] | None = None,
                          candidates: Sequence[str] | None = None, repetition: int | None = None) -> pd.DataFrame:
    """Per (judge, candidate, item): classified pairs, consistent wins, consistent ties and inconsistent pairs
    (repetitions pooled into the item unless ``repetition`` picks one)."""
    return reader.frame(CANDIDATE_ITEM_SQL, {**_pair_params(dataset_id, study, judges, tasks, candidates),
                                             "repetition": repetition})


def shared_flips(reader: StoreReader, dataset_id: str, study: str, judge_a: str, judge_b: str,
                 repetition: int | None = None) -> pd.DataFrame:
    """Per item: the pairs both judges classified (same repetition, item and candidates) and each judge's flips."""
    return reader.frame(SHARED_FLIPS_SQL, {"dataset_id": dataset_id, "study": study, "judge_a": judge_a,
                                           "judge_b": judge_b, "repetition": repetition})


def unit_counts_frame(reader: StoreReader, dataset_id: str | None = None, study: str | None = None,
                      judges: Sequence[str] | None = None, tasks: Sequence[str] | None = None,
                      candidates: Sequence[str] | None = None) -> pd.DataFrame:
    """Pair counts per (dataset, study, judge, repetition, candidate, task), failures included."""
    return reader.frame(UNIT_COUNTS_SQL, _pair_params(dataset_id, study, judges, tasks, candidates))


def item_counts_frame(reader: StoreReader, dataset_id: str | None = None, study: str | None = None,
                      judges: Sequence[str] | None = None) -> pd.DataFrame:
    """Classified, consistent and primacy pairs per (dataset, study, judge, repetition, item)."""
    return reader.frame(ITEM_COUNTS_SQL, _pair_params(dataset_id, study, judges, None, None))


def repetition_counts(reader: StoreReader, dataset_id: str | None = None, study: str | None = None,
                      judges: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (dataset, study, judge) with repetitions: prompts, mean mode share, and the repetition-floor counts."""
    return reader.frame(REPETITION_SQL, _scope_params(dataset_id, study, judges))


def pair_details(reader: StoreReader, dataset_id: str | None, study: str | None,
                 judges: Sequence[str] | None = None, classifications: Sequence[str] = ("primacy", "recency"),
                 repetition: int | None = None, task: str | None = None, candidate: str | None = None,
                 limit: int = 500) -> pd.DataFrame:
    """Pairs of the given classes with both raw replies and the item's question, for a drill-down."""
    return reader.frame(PAIR_DETAIL_SQL, {**_scope_params(dataset_id, study, judges),
                                          "classifications": list(classifications), "repetition": repetition,
                                          "task": task, "candidate": candidate, "limit": limit})


def pairwise_scope(reader: StoreReader) -> pd.DataFrame:
    """Every (dataset, study, judge, repetition, task, candidate) with pairs (kind 'pairwise') or with list-wise calls
    (kind 'listwise', no candidate), for filters."""
    return reader.frame(SCOPE_SQL)


def listwise_groups(reader: StoreReader, dataset_id: str | None = None, study: str | None = None,
                    judges: Sequence[str] | None = None) -> pd.DataFrame:
    """List-wise calls grouped by (dataset, study, judge, repetition, item, candidate set), classified."""
    return reader.frame(LISTWISE_GROUPS_SQL, _scope_params(dataset_id, study, judges))


# Mean lengths in characters per (judge, candidate, task). A call's prompt length is the stored prompt when there is
# one, else question + both answers (METHODS.md section 7); a pair's is the mean of its two calls.
UNIT_LENGTHS_SQL = """
WITH pair_lengths AS (
    SELECT p.judge, p.candidate, coalesce(p.task, '(no task)') AS task,
           length(coalesce(i.question, '')) AS input_length,
           length(coalesce(a.answer, '')) AS output_length,
           length(coalesce(i.question, '')) + length(coalesce(a.answer, '')) + length(coalesce(b.answer, ''))
               AS inputs_length,
           o.prompt AS prompt_original, s.prompt AS prompt_swapped
    FROM pair_outcomes p
    JOIN judge_calls o ON o.call_id = p.original_call_id
    JOIN judge_calls s ON s.call_id = p.swapped_call_id
    LEFT JOIN items i ON i.dataset_id = p.dataset_id AND i.item_id = p.item_id
    LEFT JOIN answers a ON a.dataset_id = p.dataset_id AND a.item_id = p.item_id AND a.candidate = p.candidate
    LEFT JOIN answers b ON b.dataset_id = p.dataset_id AND b.item_id = p.item_id AND b.candidate = p.opponent
    WHERE p.dataset_id = ? AND p.study = ?
)
SELECT judge, candidate, task,
       avg(input_length) AS input_length,
       avg(output_length) AS output_length,
       avg((coalesce(length(prompt_original), inputs_length) + coalesce(length(prompt_swapped), inputs_length)) / 2)
           AS prompt_length,
       count(*) FILTER (prompt_original IS NOT NULL OR prompt_swapped IS NOT NULL) AS pairs_with_prompt
FROM pair_lengths
GROUP BY ALL
ORDER BY ALL
"""


def unit_lengths(reader: StoreReader, dataset_id: str, study: str) -> pd.DataFrame:
    """Mean input, output and prompt lengths (characters) per (judge, candidate, task) of one study."""
    return reader.frame(UNIT_LENGTHS_SQL, [dataset_id, study])


def judge_study_items(reader: StoreReader, dataset_id: str) -> pd.DataFrame:
    """(study, judge, item_id), one row per item a judge has a pair on in a study of the dataset."""
    return reader.frame("SELECT DISTINCT study, judge, item_id FROM pair_outcomes WHERE dataset_id = ? ORDER BY ALL",
                        [dataset_id])
