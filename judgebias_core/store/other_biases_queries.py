"""Reads behind verbosity and self-preference: one row per classified pair, with its item, for clustered fits."""

from __future__ import annotations

import pandas as pd

from judgebias_core.store.handle import StoreReader

# Named parameters: the dataset is named twice in one query, and bound once.
_SCOPE = "p.dataset_id = $dataset_id AND p.study IN (SELECT unnest($studies)) AND p.judge IN (SELECT unnest($judges))"


def decisive_length_pairs(reader: StoreReader, dataset_id: str, studies: list[str],
                          judges: list[str]) -> pd.DataFrame:
    """Consistent pairs with a winner and both answers' lengths known, one row per pair (repetitions apart):
    ``judge``, ``item_id``, ``candidate``, ``opponent``, ``difference`` (candidate minus opponent, characters),
    ``candidate_won`` (0/1)."""
    return reader.con.execute(
        "WITH lengths AS (SELECT item_id, candidate, length(answer) AS length FROM answers WHERE dataset_id = $dataset_id) "
        "SELECT p.judge, p.item_id, p.candidate, p.opponent, c.length - o.length AS difference, "
        "(p.winner = p.candidate)::BIGINT AS candidate_won FROM pair_outcomes p "
        "JOIN lengths c ON c.item_id = p.item_id AND c.candidate = p.candidate "
        "JOIN lengths o ON o.item_id = p.item_id AND o.candidate = p.opponent "
        f"WHERE {_SCOPE} AND p.classification = 'consistent' AND p.winner != 'tie' "
        "ORDER BY p.judge, p.study, p.item_id, p.candidate, p.opponent, p.repetition",
        {"dataset_id": dataset_id, "studies": studies, "judges": judges},
    ).df()


def scored_pairs(reader: StoreReader, dataset_id: str, studies: list[str], judges: list[str]) -> pd.DataFrame:
    """Classified (non-failed) pairs, one row per pair: ``judge``, ``item_id``, ``candidate``, ``opponent`` and the
    candidate's ``score`` (1 win, 1/2 tie or position-inconsistent, 0 loss)."""
    return reader.con.execute(
        "SELECT p.judge, p.item_id, p.candidate, p.opponent, CASE WHEN p.winner = p.candidate THEN 1.0::DOUBLE "
        "WHEN p.winner = p.opponent THEN 0.0::DOUBLE ELSE 0.5::DOUBLE END AS score FROM pair_outcomes p "
        f"WHERE {_SCOPE} AND p.classification != 'failed' "
        "ORDER BY p.judge, p.study, p.item_id, p.candidate, p.opponent, p.repetition",
        {"dataset_id": dataset_id, "studies": studies, "judges": judges},
    ).df()
