"""The closed-form Wilson interval equals statsmodels' ``proportion_confint(method="wilson")`` bit for bit, except
that a bound rounding puts on the wrong side of the estimate is the estimate itself."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from judgebias_core.stats.wilson import wilson_bounds


@given(st.integers(1, 100_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from([0.05, 1 - 0.95, 0.1, 0.01, 0.2]))
def test_equal_to_statsmodels(counts: tuple[int, int], alpha: float) -> None:
    count, nobs = counts
    low, high = proportion_confint(count, nobs, alpha=alpha, method="wilson")
    rate = count / nobs
    assert wilson_bounds(count, nobs, alpha) == (min(float(low), rate), max(float(high), rate))


@given(st.floats(0.5, 5000.0), st.floats(0.0, 1.0))
def test_equal_to_statsmodels_on_fractional_counts(nobs: float, share: float) -> None:  # effective sample sizes
    low, high = proportion_confint(share * nobs, nobs, alpha=0.05, method="wilson")
    rate = share * nobs / nobs
    assert wilson_bounds(share * nobs, nobs, 0.05) == (min(float(low), rate), max(float(high), rate))


def test_a_zero_rate_has_a_zero_lower_bound() -> None:  # statsmodels gives 3.5e-18 at 0 of 100
    assert wilson_bounds(0, 100)[0] == 0.0 and wilson_bounds(100, 100)[1] == 1.0


def test_the_gate_path_imports_neither_statsmodels_nor_scipy_stats() -> None:
    code = ("import sys; import judgebias_core.cli.pairwise_commands; "
            "from judgebias_core.metrics.pairwise_intervals import flip_rate_bound_from_counts; import numpy as np; "
            "flip_rate_bound_from_counts(np.array([1, 0, 2] * 10), np.array([4, 4, 4] * 10)); "
            "print(sorted(m for m in sys.modules if m.startswith(('statsmodels', 'scipy.stats', 'plotly'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
