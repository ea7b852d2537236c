"""AppTest of the Other biases page: the verdict block, the binned view with item-clustered intervals, the
clustering and quality-control choices, and the in-family terms over leniency and quality."""

from __future__ import annotations

from pathlib import Path

from tests.app_helpers import open_page


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown).replace("\\", "")  # markdown escapes dropped


def test_other_biases_page_opens_with_verdicts_and_the_binned_view(app_env: Path) -> None:
    at = open_page("other_biases.py")
    assert not at.exception
    text = _markdown(at)
    assert "#### In short" in text and "**What it does:** gpt-4-0613 picks the longer answer in 63.2% of 1,736" in text
    assert "**What they do:**" in text  # the self-preference verdict
    assert "beyond chance" not in text
    bins = at.dataframe[0].value
    assert {"gpt-4-0613", "majority-vote"} <= set(bins["judge"])
    assert (bins["95% low"] <= bins["longer-answer share"]).all() and set(bins["interval"]) == {"studentized-item-bootstrap"}
    judges = at.dataframe[1].value.set_index("judge")
    assert round(judges.loc["gpt-4-0613", "clustered by item: low"], 3) == 0.103
    assert judges.loc["gpt-4-0613", "items (clusters)"] == 80
    frames = [d.value for d in at.dataframe]
    mapping = next(f for f in frames if list(f.columns) == ["model", "family", "role"])  # the editable mapping
    assert mapping.set_index("model").loc["gpt-4-0613", "family"] == "openai"
    terms = next(f for f in frames if "odds ratio" in f.columns).set_index("family")
    assert "openai" in terms.index and terms.loc["openai", "interval"].startswith("cluster-robust (CR1) by item")
    assert any("Controls for each judge's leniency" in c.value for c in at.caption)


def test_other_biases_page_clusters_by_candidate_and_controls_for_quality(app_env: Path) -> None:
    at = open_page("other_biases.py")
    next(r for r in at.radio if r.label == "Cluster the length slope by").set_value("candidate").run()
    next(r for r in at.radio if r.label == "Control for candidate quality").set_value("candidate").run()
    assert not at.exception
    judges = at.dataframe[1].value.set_index("judge")
    assert round(judges.loc["gpt-4-0613", "log-odds per 1,000 chars"], 3) == 0.446
    assert "clustered by candidate: low" in judges.columns


def test_one_study_pages_point_to_the_judges_of_the_other_studies(app_env: Path) -> None:
    """Issue 22: Other biases and Leaderboard show one study; they name the dataset's judges it does not hold."""
    for page in ("other_biases.py", "leaderboard.py"):
        at = open_page(page)
        assert not at.exception
        captions = " ".join(c.value for c in at.caption).replace("\\", "")
        assert "Study full holds 3 of the dataset's 9 judges; the other 6 are in another study (repetition: " \
               "claude-3-haiku-20240307" in captions, page
