"""Issue 23: the leaderboard's "order holds in 95% of resamples" reading carries its Monte Carlo error and a "too
close to call" state, so no neighbour pair goes from "holds" to "does not hold" with the seed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.cli import main
from judgebias_core.metrics.leaderboard import ORDER_HOLDS, leaderboard_from_outcomes
from judgebias_core.stats.resampling import DOES_NOT_HOLD, HOLDS, TOO_CLOSE, share_call
from tests.test_leaderboard import _outcome


@settings(max_examples=200, deadline=None)
@given(st.integers(50, 5000), st.floats(0.0, 1.0))
def test_share_call_is_the_band_against_the_threshold(resamples: int, share: float) -> None:
    band, call = share_call(share, resamples, ORDER_HOLDS)
    assert band >= 0.5 / resamples
    assert call == (HOLDS if share - band >= ORDER_HOLDS else DOES_NOT_HOLD if share + band < ORDER_HOLDS
                    else TOO_CLOSE)


def _close_race(seed: int) -> pd.DataFrame:
    """Five candidates against a baseline on 40 items, win probabilities 0.1-0.9 apart by 0.2."""
    rng = np.random.default_rng(seed)
    rows = []
    for c, p in enumerate(np.linspace(0.1, 0.9, 5)):
        for k in range(40):
            won = rng.random() < p
            rows.append(_outcome(f"i{k}", f"c{c}", "base", "consistent", f"c{c}" if won else "base"))
    return pd.DataFrame(rows)


def test_no_neighbour_order_goes_from_holds_to_does_not_hold_with_the_seed() -> None:
    outcomes = _close_race(3)  # two neighbour orders hold in about 96% of resamples at seed 0
    boards = [leaderboard_from_outcomes(outcomes, "toy", ["s"], "j", resamples=400, seed=seed) for seed in range(12)]
    calls: dict[tuple[str, str], set[str]] = {}
    for board in boards:
        for upper, lower in zip(board.rows, board.rows[1:], strict=False):
            calls.setdefault((upper.candidate, lower.candidate), set()).add(upper.order_holds_call)
            assert upper.position_artefact == (upper.order_changes_with_presentation or upper.order_holds_call != HOLDS)
            if upper.order_holds_call == TOO_CLOSE:
                assert "too close to call" in upper.unsure_reason
        assert board.rows[-1].order_holds_call == ""
        assert board.pairs_too_close_to_call == sum(r.order_holds_call == TOO_CLOSE for r in board.rows[:-1])
        assert board.pairs_not_separated == sum(r.order_holds_call != HOLDS for r in board.rows[:-1])
    assert all(not {HOLDS, DOES_NOT_HOLD} <= seen for seen in calls.values()), calls
    assert any(TOO_CLOSE in seen for seen in calls.values())  # the race is close enough to need the third state


def test_the_repetition_study_leaderboard_is_cautioned(bundled_db_master: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """MTBench's repetition study has 24 items: the board and its text say so; the top-two bound is named."""
    assert main(["--db", str(bundled_db_master), "metrics", "leaderboard", "--dataset", "mtbench", "--study",
                 "repetition", "--judge", "gpt-4-0613"]) == 0
    text = capsys.readouterr().out
    assert "caution: small sample: only 24 items" in text and "one-sided 97.5% upper bound" in text
    assert "too close to call" in text
