"""One item-resampling engine: every item bootstrap of the package draws its items through stats.resampling."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from judgebias_core.stats import resampling

PACKAGE = Path(__file__).resolve().parents[1] / "judgebias_core"
# Random draws that are not item bootstraps, each with its reason: the simulated judge's own randomness, PPI's choice
# of which items keep their labels, cross-validation folds, the stepwise permutation baseline and the planner's
# simulated studies (their bootstrap draws through the engine).
NOT_ITEM_BOOTSTRAPS = {"judges/simulated.py", "metrics/ppi.py", "metrics/stepwise_validation.py",
                       "metrics/stepwise_baseline.py", "stats/resampling.py", "stats/plan_assurance.py"}
DRAW = re.compile(r"default_rng|\.multinomial\(|\.integers\(|\.choice\(|np\.random\.")


def test_no_module_but_the_engine_draws_bootstrap_items() -> None:
    drawing = {str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py") if DRAW.search(path.read_text())}
    assert drawing <= NOT_ITEM_BOOTSTRAPS, drawing - NOT_ITEM_BOOTSTRAPS


def test_grouped_and_plain_sums_are_the_same_draws() -> None:
    rng = np.random.default_rng(2)
    columns = rng.integers(0, 3, size=(50, 2)).astype(float)
    plain = resampling.item_resample_sums(columns, 300, seed=4)
    grouped = resampling.grouped_resample_sums(columns, 300, seed=4)
    np.testing.assert_allclose(plain, grouped)
    blocked = np.concatenate([c @ columns for c in resampling.count_blocks(50, 300, 4)])
    np.testing.assert_allclose(plain, blocked)


def test_every_item_bootstrap_draws_through_the_engine(monkeypatch) -> None:
    """Patch the engine's draw: every bootstrap interval of a small study must call it."""
    calls: list[int] = []
    original = resampling.count_blocks

    def counting(n_items: int, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(n_items)
        return original(n_items, *args, **kwargs)

    monkeypatch.setattr(resampling, "count_blocks", counting)
    resampling._cached_counts.cache_clear()
    from judgebias_core.stats.clustered import clustered_rate
    from judgebias_core.stats.position_test import position_test_from_item_sums

    rng = np.random.default_rng(5)
    trials = rng.integers(5, 20, size=23).astype(float)
    events = rng.binomial(trials.astype(int), 0.3).astype(float)
    for compute in (
        lambda: clustered_rate(events, trials, resamples=211),
        lambda: position_test_from_item_sums(events - trials / 3, events, trials, resamples=212),
    ):
        before = len(calls)
        compute()
        assert len(calls) > before
