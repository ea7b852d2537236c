"""AppTest of the Factors page: the verdict block, the quality-gap bound baseline, WLS and clustered errors."""

from __future__ import annotations

from pathlib import Path

from tests.app_helpers import open_page


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown).replace("\\", "")  # markdown escapes dropped


def test_factors_page_opens_with_a_verdict_and_the_bound_baseline(app_env: Path) -> None:
    at = open_page("factors.py")
    assert not at.exception
    text = _markdown(at)
    assert "#### In short" in text and "**What it shows:** Across 720 (judge, candidate, task) units" in text
    assert "built into how consistency is measured" in text
    assert any("the gap is at most PC / 2 by construction" in c.value.replace("\\", "") for c in at.caption)
    baseline = next(d.value for d in at.dataframe if "bound alone (mean of shuffles)" in d.value.columns)
    observed, bound = baseline.iloc[0]["observed"], baseline.iloc[0]["bound alone (mean of shuffles)"]
    assert observed > bound > 0  # on MTBench the bound alone gives part, not all, of the gap's AIC gain
    next(r for r in at.radio if r.label == "Target").set_value("preference_fairness").run()
    assert not at.exception
    assert "what is built in alone produces as much" in _markdown(at)


def test_factors_page_offers_weights_and_clustered_errors(app_env: Path) -> None:
    at = open_page("factors.py")
    next(r for r in at.radio if r.label == "Coefficient standard errors").set_value("candidate").run()
    next(r for r in at.radio if r.label == "Fit").set_value("pairs").run()
    assert not at.exception
    assert any("cluster-robust (CR1) by candidate, 30 clusters (weighted least squares" in c.value.replace("\\", "")
               for c in at.caption)
    assert at.dataframe[0].value["variable"].tolist() == ["quality gap", "judge", "task"]
