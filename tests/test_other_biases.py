"""Verbosity and self-preference (METHODS.md section 6): clustered slopes, candidate control, in-family terms."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.analyses.other_biases import self_preference, verbosity
from judgebias_core.cli import main
from judgebias_core.metrics.self_preference import in_family_terms, self_preference_from_sides
from judgebias_core.metrics.verbosity import decisive_pairs_with_lengths, length_slope, verbosity_from_pairs
from tests.store_helpers import read

MTBENCH_JUDGES = ["gpt-4-0613", "gemini-pro", "gpt-3.5-turbo-1106"]


def test_verbosity_on_a_hand_made_case() -> None:
    outcomes = pd.DataFrame({
        "item_id": ["1", "2", "3", "4", "5"], "candidate": ["c"] * 5, "opponent": ["o"] * 5,
        "classification": ["consistent", "consistent", "consistent", "consistent", "primacy"],
        "winner": ["c", "o", "c", "tie", None]})
    lengths = pd.DataFrame({"item_id": ["1", "1", "2", "2", "3", "3", "4", "4", "5", "5"],
                            "candidate": ["c", "o"] * 5, "length": [100, 10, 100, 10, 5, 50, 1, 2, 3, 4]})
    pairs = decisive_pairs_with_lengths(outcomes, lengths)
    assert pairs["item_id"].tolist() == ["1", "2", "3"]
    result = verbosity_from_pairs(pairs, "toy")
    # item 1: longer c won; item 2: shorter o won; item 3: shorter c won
    assert (result.decisive_pairs, result.longer_wins, result.longer_win_share) == (3, 1, pytest.approx(1 / 3))
    assert sum(b.pairs for b in result.longer_answer_bins) == 3


def _synthetic_length_pairs(seed: int, slope: float, items: int = 60, candidates: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1.0, candidates)
    item_effect = rng.normal(0, 1.0, items)
    rows = []
    for item in range(items):
        for c in range(candidates):
            difference = float(rng.normal(400 * quality[c], 600))  # better candidates also write more
            logit = quality[c] + item_effect[item] + slope * difference / 1000
            rows.append({"item_id": f"i{item}", "candidate": f"c{c}", "opponent": "base", "difference": difference,
                         "candidate_won": int(rng.random() < 1 / (1 + np.exp(-logit)))})
    return pd.DataFrame(rows)


def test_length_slope_equals_statsmodels_and_the_control_removes_quality() -> None:
    pairs = _synthetic_length_pairs(3, slope=0.0)
    clustered, _ = length_slope(pairs, "item")
    design = sm.add_constant(pairs["difference"].to_numpy() / 1000)
    fit = sm.GLM(pairs["candidate_won"].to_numpy(float), design, family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(pairs["item_id"])[0]})
    assert clustered.estimate == pytest.approx(fit.params[1]) and clustered.std_err == pytest.approx(fit.bse[1])
    assert (clustered.ci_low, clustered.ci_high) == pytest.approx(tuple(fit.conf_int()[1]))
    assert clustered.clusters == 60 and "by item" in clustered.method


def test_the_candidate_control_removes_quality_that_writes_longer_answers() -> None:
    """No length preference at all: without the control, quality shows up as a length slope in most samples; with
    candidate fixed effects the 95% interval covers zero about 95% of the time."""
    samples = [_synthetic_length_pairs(seed, slope=0.0) for seed in range(30)]
    spurious = sum(length_slope(pairs, "item")[0].ci_low > 0 for pairs in samples)
    covered = sum(term.ci_low < 0 < term.ci_high for term in (length_slope(p, "item", "candidate")[0]
                                                                for p in samples))
    assert spurious >= 25 and covered >= 26


def test_a_real_length_preference_is_found_under_the_control() -> None:
    controlled, _ = length_slope(_synthetic_length_pairs(5, slope=1.0), "item", "candidate")
    assert controlled.ci_low > 0 and controlled.p_value < 0.001


def test_candidates_that_always_win_carry_no_information_under_the_control() -> None:
    pairs = _synthetic_length_pairs(4, slope=0.5)
    always = pairs[pairs["candidate"] == "c0"].assign(candidate="winner", candidate_won=1)
    term, left_out = length_slope(pd.concat([pairs, always], ignore_index=True), "item", "candidate")
    assert left_out == len(always) and np.isfinite(term.estimate)


def test_mtbench_slope_reproduces_the_measured_intervals(bundled_db_master: Path) -> None:
    """Issue 14's figures for gpt-4-0613 on MTBench: pairs independent [0.141, 0.278], by item [0.103, 0.316],
    by candidate [-0.083, 0.502]; candidate fixed effects move the slope to 0.446."""
    by_item = read(verbosity, bundled_db_master, "mtbench", ["full"], MTBENCH_JUDGES + ["majority-vote"])
    gpt4 = by_item.judges[0]
    assert (round(gpt4.slope_ci_low, 3), round(gpt4.slope_ci_high, 3)) == (0.141, 0.278)
    assert (round(gpt4.slope.ci_low, 3), round(gpt4.slope.ci_high, 3)) == (0.103, 0.316)
    assert gpt4.slope.clusters == 80 and by_item.tests.family_size == 4
    by_candidate = read(verbosity, bundled_db_master, "mtbench", ["full"], MTBENCH_JUDGES, cluster="candidate")
    slope = by_candidate.judges[0].slope
    assert (round(slope.ci_low, 3), round(slope.ci_high, 3)) == (-0.083, 0.502)
    assert not by_candidate.prefers_length("gpt-4-0613")  # by candidate the slope could be chance
    controlled = read(verbosity, bundled_db_master, "mtbench", ["full"], ["gpt-4-0613"], control="candidate")
    assert round(controlled.judges[0].slope.estimate, 3) == 0.446
    # The figures treating pairs as independent are kept, unchanged.
    assert (gpt4.longer_wins, gpt4.decisive_pairs, gpt4.equal_length_pairs) == (1097, 1740, 4)
    share = gpt4.longer_share_clustered
    assert share.method == "studentized-item-bootstrap" and share.low < share.iid.low and share.high > share.iid.high
    assert sum(b.pairs for b in gpt4.longer_answer_bins) == 1736


def test_autoj_prefers_longer_answers(bundled_db_master: Path) -> None:
    [result] = read(verbosity, bundled_db_master, "autoj", ["full"], ["auto-j-13b"]).judges
    with duckdb.connect(str(bundled_db_master), read_only=True) as con:
        longer, total = con.execute(
            "SELECT count(*) FILTER (WHERE (p.winner = p.candidate) = (length(c.answer) > length(o.answer))), "
            "count(*) FROM pair_outcomes p JOIN answers c ON c.dataset_id = p.dataset_id AND c.item_id = p.item_id "
            "AND c.candidate = p.candidate JOIN answers o ON o.dataset_id = p.dataset_id AND o.item_id = p.item_id "
            "AND o.candidate = p.opponent WHERE p.dataset_id = 'autoj' AND p.classification = 'consistent' "
            "AND p.winner <> 'tie' AND length(c.answer) <> length(o.answer)").fetchall()[0]
    assert (result.longer_wins, result.decisive_pairs - result.equal_length_pairs) == (longer, total)
    assert result.longer_win_share > 0.5 and result.longer_win_share_ci_low > 0.5
    assert sum(b.pairs for b in result.bins) == result.decisive_pairs


def test_verbosity_cli_json_carries_the_clustered_slope(bundled_db_master: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(bundled_db_master), "metrics", "verbosity", "--dataset", "mtbench", "--judge",
                 "gpt-4-0613", "--cluster", "candidate", "--control", "candidate", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert (payload["cluster"], payload["control"]) == ("candidate", "candidate")
    [judge] = payload["judges"]
    assert judge["slope"]["cluster"] == "candidate" and round(judge["slope"]["estimate"], 3) == 0.446
    assert payload["tests"]["method"] == "holm" and len(judge["longer_answer_bins"]) == 5


def test_self_preference_matrix_by_hand() -> None:
    sides = pd.DataFrame({"judge": ["gpt-x", "gpt-x", "claude-y", "claude-y"],
                          "player": ["gpt-a", "claude-b", "gpt-a", "claude-b"], "score": [1.0, 0.0, 0.5, 1.0]})
    result = self_preference_from_sides(sides, {"gpt-x": "openai", "gpt-a": "openai", "claude-y": "anthropic",
                                                "claude-b": "anthropic"}, "toy", ["s"])
    matrix = result.matrix()
    assert matrix.loc["openai", "openai"] == 1.0 and matrix.loc["anthropic", "openai"] == 0.5
    gaps = {g.family: g for g in result.gaps}
    assert gaps["openai"].difference == pytest.approx(0.5)
    assert gaps["anthropic"].difference == pytest.approx(1.0)
    # An edited mapping moves a model to another family.
    moved = self_preference_from_sides(sides, {"gpt-x": "openai", "gpt-a": "anthropic"}, "toy", ["s"])
    assert "openai" not in moved.matrix().columns


FAMILIES = {"judge-a": "alpha", "judge-b": "beta", "a1": "alpha", "a2": "alpha", "b1": "beta", "b2": "beta",
            "g1": "gamma", "base": "delta"}


def _family_pairs(seed: int, in_family: float, items: int = 120) -> pd.DataFrame:
    """Two judges (judge-a lenient towards every challenger) scoring five candidates against a baseline."""
    rng = np.random.default_rng(seed)
    leniency = {"judge-a": 1.0, "judge-b": 0.0}
    quality = {"a1": 0.5, "a2": -0.3, "b1": 0.2, "b2": -0.5, "g1": 0.0}
    rows = []
    for item in range(items):
        shift = rng.normal(0, 0.5)
        for judge, lenient in leniency.items():
            for candidate, q in quality.items():
                same = FAMILIES[judge] == FAMILIES[candidate]
                logit = lenient + q + shift + (in_family if same and FAMILIES[judge] == "alpha" else 0.0)
                rows.append({"judge": judge, "item_id": f"q{item}", "candidate": candidate, "opponent": "base",
                             "score": float(rng.random() < 1 / (1 + np.exp(-logit)))})
    return pd.DataFrame(rows)


def test_a_lenient_judge_without_in_family_preference_shows_none() -> None:
    pairs = _family_pairs(11, in_family=0.0)
    sides = pd.concat([pairs.rename(columns={"candidate": "player"})[["judge", "player", "score"]]])
    raw = {g.family: g for g in self_preference_from_sides(sides, FAMILIES, "toy", ["s"]).gaps}
    assert raw["alpha"].difference > 0.1  # the raw matrix mistakes leniency for self-preference
    terms, not_identified, tests = in_family_terms(pairs, FAMILIES)
    by_family = {t.family: t for t in terms}
    assert not_identified == () and set(by_family) == {"alpha", "beta"}
    assert all(t.term.ci_low < 0 < t.term.ci_high for t in terms) and not any(tests.reject)
    assert by_family["alpha"].term.clusters == 120 and by_family["alpha"].judges == ("judge-a",)


def test_an_injected_in_family_preference_is_found() -> None:
    terms, _, tests = in_family_terms(_family_pairs(12, in_family=1.0), FAMILIES)
    by_family = {t.family: t for t in terms}
    assert by_family["alpha"].term.ci_low > 0 and tests.reject[tests.labels.index("alpha")]
    assert by_family["beta"].term.ci_low < 0 < by_family["beta"].term.ci_high


def test_self_preference_on_mtbench(bundled_db_master: Path) -> None:
    result = read(self_preference, bundled_db_master, "mtbench", ["full"], ["gpt-4-0613", "gemini-pro"])
    matrix = result.matrix()
    assert {"openai", "google"} <= set(matrix.index)
    assert np.nanmin(matrix.to_numpy()) >= 0 and np.nanmax(matrix.to_numpy()) <= 1
    cells = {(c.judge_family, c.candidate_family): c.pairs for c in result.cells}
    assert sum(v for (judge, _), v in cells.items() if judge == "openai") == 2 * (2400 - 0)  # both sides of a pair
    assert result.model_pairs == sum(cells.values()) // 2 and result.model_items == 80  # every classified pair
    assert {t.family for t in result.in_family} == {"openai", "google"}
    assert all(t.term.method.startswith("cluster-robust (CR1) by item") for t in result.in_family)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(-2000, 2000), st.booleans()), min_size=12, max_size=60))
def test_mirroring_every_pair_keeps_the_longer_answer_figures(rows: list[tuple[int, int, bool]]) -> None:
    """Swapping candidate and opponent (difference negated, outcome flipped) describes the same pairs."""
    pairs = pd.DataFrame({"item_id": [f"i{r[0]}" for r in rows], "candidate": "c", "opponent": "o",
                          "difference": [r[1] for r in rows], "candidate_won": [int(r[2]) for r in rows]})
    mirrored = pairs.assign(candidate="o", opponent="c", difference=-pairs["difference"],
                            candidate_won=1 - pairs["candidate_won"])
    a, b = verbosity_from_pairs(pairs, "j"), verbosity_from_pairs(mirrored, "j")
    assert (a.longer_wins, a.equal_length_pairs) == (b.longer_wins, b.equal_length_pairs)
    assert [x.longer_wins for x in a.longer_answer_bins] == [x.longer_wins for x in b.longer_answer_bins]
    assert sum(x.pairs for x in a.longer_answer_bins) == len(pairs) - a.equal_length_pairs
    # Near separation the maximum runs off to infinity and two fits stop at different large values.
    if not a.slope.degenerate and not b.slope.degenerate and abs(a.slope.estimate) < 10:
        assert a.slope.estimate == pytest.approx(b.slope.estimate, rel=1e-5, abs=1e-6)
