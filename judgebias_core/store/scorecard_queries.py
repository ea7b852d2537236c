"""Reads behind the judge scorecard: one row per classified-or-failed pair of every judge configuration, with the
item's label, both answers' lengths and the usage of the pair's two calls."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from judgebias_core.store.handle import StoreReader

# A pick names the candidate the verdict chose (or 'tie'); NULL when the call has no parsed verdict. In the
# original order the opponent sits first (A), in the swapped order the candidate does.
SCORECARD_PAIRS_SQL = """
WITH labels AS (
    SELECT dataset_id, item_id, mode(preference ORDER BY preference) AS label, count(*) AS raters,
           min(label_source) AS label_source, min(rater_group) AS label_group
    FROM human_labels
    WHERE preference IS NOT NULL AND list_contains($datasets, dataset_id)
    GROUP BY ALL
), lengths AS (
    SELECT dataset_id, item_id, candidate, length(answer) AS chars
    FROM answers WHERE list_contains($datasets, dataset_id)
)
SELECT p.dataset_id, p.study, p.judge, p.repetition, p.item_id, p.candidate, p.opponent, p.classification,
       r.protocol, r.provider, coalesce(r.model, p.judge) AS model, coalesce(j.simulated, false) AS simulated,
       CASE o.verdict WHEN 'A' THEN p.opponent WHEN 'B' THEN p.candidate WHEN 'C' THEN 'tie' END AS first_pick,
       CASE s.verdict WHEN 'A' THEN p.candidate WHEN 'B' THEN p.opponent WHEN 'C' THEN 'tie' END AS second_pick,
       CASE WHEN o.parse_status = 'ok' THEN NULL ELSE o.parse_status END AS first_failure,
       CASE WHEN s.parse_status = 'ok' THEN NULL ELSE s.parse_status END AS second_failure,
       l.label, l.label_source, l.label_group,
       lc.chars AS candidate_chars, lo.chars AS opponent_chars,
       -- usage of the pair's two calls: what was recorded, and how many calls recorded it
       coalesce(o.cost_usd, 0) + coalesce(s.cost_usd, 0) AS cost_usd,
       (o.cost_usd IS NOT NULL)::INTEGER + (s.cost_usd IS NOT NULL)::INTEGER AS cost_calls,
       coalesce(o.input_tokens, 0) + coalesce(s.input_tokens, 0) AS input_tokens,
       coalesce(o.output_tokens, 0) + coalesce(s.output_tokens, 0) AS output_tokens,
       (o.input_tokens IS NOT NULL AND o.output_tokens IS NOT NULL)::INTEGER
           + (s.input_tokens IS NOT NULL AND s.output_tokens IS NOT NULL)::INTEGER AS token_calls,
       coalesce(o.latency_ms, 0) + coalesce(s.latency_ms, 0) AS latency_ms,
       (o.latency_ms IS NOT NULL)::INTEGER + (s.latency_ms IS NOT NULL)::INTEGER AS latency_calls,
       -- characters a call reads and writes (question, both answers, reply), for a price-table estimate
       2 * (length(coalesce(i.question, '')) + coalesce(lc.chars, 0) + coalesce(lo.chars, 0))
           + length(coalesce(o.prompt, '')) + length(coalesce(s.prompt, '')) AS input_chars,
       length(coalesce(o.raw_output, '')) + length(coalesce(s.raw_output, '')) AS output_chars
FROM pair_outcomes p
JOIN judge_calls o ON o.call_id = p.original_call_id
JOIN judge_calls s ON s.call_id = p.swapped_call_id
LEFT JOIN runs r ON r.run_id = p.run_id
LEFT JOIN judges j ON j.judge = p.judge
LEFT JOIN items i ON i.dataset_id = p.dataset_id AND i.item_id = p.item_id
LEFT JOIN labels l ON l.dataset_id = p.dataset_id AND l.item_id = p.item_id
LEFT JOIN lengths lc ON lc.dataset_id = p.dataset_id AND lc.item_id = p.item_id AND lc.candidate = p.candidate
LEFT JOIN lengths lo ON lo.dataset_id = p.dataset_id AND lo.item_id = p.item_id AND lo.candidate = p.opponent
WHERE list_contains($datasets, p.dataset_id)
ORDER BY p.judge, p.study, p.repetition, p.dataset_id, p.item_id, p.candidate, p.opponent
"""


def scorecard_pairs(reader: StoreReader, dataset_ids: Sequence[str]) -> pd.DataFrame:
    """Every pair of every (judge, study) in the datasets: both picks, failures, the label, lengths, usage."""
    return reader.con.execute(SCORECARD_PAIRS_SQL, {"datasets": list(dataset_ids)}).df()


def labelled_pairwise_datasets(reader: StoreReader) -> pd.DataFrame:
    """Pairwise datasets whose items carry preference labels, with how many items and of which kind."""
    return reader.con.execute(
        "SELECT d.dataset_id, d.name, count(DISTINCT l.item_id) AS labelled_items, min(l.rater_group) AS label_group "
        "FROM datasets d JOIN human_labels l USING (dataset_id) "
        "WHERE d.kind = 'pairwise' AND l.preference IS NOT NULL GROUP BY ALL ORDER BY d.dataset_id").df()


def unlabelled_judged_datasets(reader: StoreReader) -> list[str]:
    """Datasets with judge calls but no label on any of their items (where agreement with people cannot be
    measured)."""
    rows = reader.con.execute(
        "SELECT dataset_id FROM datasets d WHERE EXISTS (SELECT 1 FROM judge_calls j WHERE j.dataset_id = d.dataset_id) "
        "AND NOT EXISTS (SELECT 1 FROM human_labels l WHERE l.dataset_id = d.dataset_id) ORDER BY dataset_id"
    ).fetchall()
    return [str(row[0]) for row in rows]
