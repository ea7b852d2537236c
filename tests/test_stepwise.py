"""Stepwise regression: a table with a known answer, every AIC against a fresh statsmodels fit, the unit table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from hypothesis import given, settings
from hypothesis import strategies as st

from judgebias_core.analyses.stepwise import stepwise_analysis, stepwise_units
from judgebias_core.cli import main
from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.stepwise import StepwiseResult, fitted_effect, plain_summary, stepwise_select
from tests.store_helpers import read

PREDICTORS = ("judge", "candidate", "task", "quality_gap", "input_length", "output_length", "prompt_length")


def known_table() -> pd.DataFrame:
    """48 units where PC = 0.5 + 0.8 * quality_gap + 0.1 for judge j2, plus small fixed wiggle; nothing else matters."""
    rows = []
    wiggle = np.sin(np.arange(48) * 1.7) * 0.01  # deterministic, unrelated to every predictor
    for n, (judge, candidate, task) in enumerate(
        (j, c, t) for j in ("j1", "j2") for c in ("c1", "c2", "c3", "c4") for t in ("t1", "t2", "t3", "t4", "t5",
                                                                                     "t6")
    ):
        gap = ((n * 7) % 11) / 25
        rows.append({
            "judge": judge, "candidate": candidate, "task": task, "quality_gap": gap,
            "input_length": 100 + (n * 13) % 17, "output_length": 300 + (n * 5) % 23, "prompt_length": 900 + n % 7,
            "position_consistency": 0.5 + 0.8 * gap + (0.1 if judge == "j2" else 0.0) + wiggle[n],
            "preference_fairness": 0.0,
        })
    return pd.DataFrame(rows)


def _variables_after_each_step(result: StepwiseResult) -> list[list[str]]:
    current = list(result.start_variables)
    sets = []
    for step in result.steps:
        current = current + [step.variable] if step.action == "add" else [v for v in current if v != step.variable]
        sets.append(current)
    return sets


def _fresh_aic(units: pd.DataFrame, target: str, variables: list[str]) -> float:
    terms = [f"C({v})" if v in ("judge", "candidate", "task") else v for v in variables]
    return float(smf.ols(f"{target} ~ {' + '.join(terms) or '1'}", data=units).fit().aic)


def assert_aics_match_fresh_fits(units: pd.DataFrame, result: StepwiseResult) -> None:
    assert result.start_aic == pytest.approx(_fresh_aic(units, result.target, result.start_variables), abs=1e-6)
    previous = result.start_aic
    for step, variables in zip(result.steps, _variables_after_each_step(result), strict=True):
        assert step.aic_before == previous
        assert step.aic_after < step.aic_before  # every step lowers AIC
        assert step.aic_after == pytest.approx(_fresh_aic(units, result.target, variables), abs=1e-6)
        previous = step.aic_after
    assert result.final_aic == previous
    assert sorted(result.final_variables) == sorted(_variables_after_each_step(result)[-1] if result.steps
                                                   else result.start_variables)


def test_known_answer_from_empty() -> None:
    units = known_table()
    result = stepwise_select(units, "position_consistency")
    assert [(s.action, s.variable) for s in result.steps] == [("add", "quality_gap"), ("add", "judge")]
    assert result.final_variables == ["judge", "quality_gap"]
    coefficients = result.coefficients.set_index("term")["coef"]
    assert coefficients["quality_gap"] == pytest.approx(0.8, abs=0.02)
    assert coefficients["C(judge)[T.j2]"] == pytest.approx(0.1, abs=0.01)
    assert_aics_match_fresh_fits(units, result)
    assert set(result.aic_rise_when_removed) == {"judge", "quality_gap"}
    assert all(rise > 0 for rise in result.aic_rise_when_removed.values())
    assert "quality gap" in plain_summary(result)


def test_known_answer_from_full_drops_the_noise() -> None:
    units = known_table()
    result = stepwise_select(units, "position_consistency", start="full")
    assert result.start_variables == list(PREDICTORS)
    assert {"judge", "quality_gap"} <= set(result.final_variables)
    assert "candidate" not in result.final_variables and "task" not in result.final_variables
    assert all(s.action == "drop" for s in result.steps)
    assert_aics_match_fresh_fits(units, result)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), start=st.sampled_from(["empty", "full"]))
def test_random_tables_every_step_lowers_aic(seed: int, start: str) -> None:
    rng = np.random.default_rng(seed)
    units = known_table()
    units["position_consistency"] = rng.random(len(units)) + rng.random() * units["quality_gap"]
    units["output_length"] = rng.integers(50, 500, len(units))
    result = stepwise_select(units, "position_consistency", start=start)  # type: ignore[arg-type]
    assert_aics_match_fresh_fits(units, result)
    assert result.final_aic <= result.start_aic
    for variable in result.final_variables:  # a local optimum: removing any kept predictor does not lower AIC
        assert result.aic_rise_when_removed[variable] >= -1e-9


def test_too_few_units_is_a_named_error() -> None:
    with pytest.raises(InvalidArgument):
        stepwise_select(known_table().head(2), "position_consistency")
    with pytest.raises(InvalidArgument):
        stepwise_select(known_table(), "bias")
    with pytest.raises(InvalidArgument, match="nothing to explain"):
        stepwise_select(known_table(), "preference_fairness")  # the same in every unit


@pytest.fixture(scope="module")
def mtbench_units(bundled_db_master: Path) -> tuple[pd.DataFrame, int]:
    return read(stepwise_units, bundled_db_master, "mtbench", "full")


def test_unit_table_on_mtbench(mtbench_units: tuple[pd.DataFrame, int], bundled_db_master: Path) -> None:
    units, left_out = mtbench_units
    assert len(units) == 3 * 30 * 8 and left_out == 0
    assert units[["input_length", "output_length", "prompt_length"]].gt(0).all().all()
    # input length depends on the questions only, so every judge and candidate of a task has the same mean
    assert (units.groupby("task")["input_length"].nunique() == 1).all()
    # prompt = question + both answers when the store has no prompt, so it exceeds input + output
    assert (units["prompt_length"] > units["input_length"] + units["output_length"]).all()


@pytest.mark.parametrize("target", ["position_consistency", "preference_fairness"])
def test_every_aic_on_mtbench_equals_a_fresh_fit(mtbench_units: tuple[pd.DataFrame, int], target: str) -> None:
    units, _ = mtbench_units
    result = stepwise_select(units, target)
    assert result.steps and result.units == 720
    assert_aics_match_fresh_fits(units, result)
    effect = fitted_effect(units, result, "quality_gap")
    assert len(effect) == 40 and (effect["ci_low"] <= effect["predicted"]).all()


def test_autoj_sets_the_saturating_task_aside(bundled_db_master: Path) -> None:
    result = read(stepwise_analysis, bundled_db_master, "autoj", "full", "position_consistency")
    assert result.units == 58 and result.saturating_predictors == ["task"]
    assert set(result.constant_predictors) == {"judge", "candidate"}
    assert np.isfinite(result.final_aic)


def test_cli_contract(bundled_db_master: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = tmp_path / "units.csv"
    code = main(["--db", str(bundled_db_master), "analysis", "stepwise", "--dataset", "mtbench", "--study", "full",
                 "--target", "preference_fairness", "--start", "empty", "--json", "--export-units", str(export)])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    assert {"steps", "final_variables", "final_aic", "units", "units_left_out"} <= set(payload)
    assert set(payload["steps"][0]) == {"action", "variable", "aic_before", "aic_after"}
    assert payload["units"] == 720 and payload["units_left_out"] == 0
    exported = pd.read_csv(export)
    assert len(exported) == 720
    assert {"judge", "candidate", "task", "position_consistency", "preference_fairness", "quality_gap",
            "input_length", "output_length", "prompt_length"} <= set(exported.columns)
    code = main(["--db", str(bundled_db_master), "analysis", "stepwise", "--dataset", "nowhere",
                 "--target", "preference_fairness"])
    assert code == 2


def test_quality_gap_is_bounded_by_half_the_consistency(mtbench_units: tuple[pd.DataFrame, int]) -> None:
    """The caveat the Factors page and the report state: |win rate - 1/2| <= PC / 2 on every unit."""
    units, _ = mtbench_units
    assert len(units) > 0
    assert (units["quality_gap"] <= units["position_consistency"] / 2 + 1e-12).all()
