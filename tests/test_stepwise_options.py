"""Stepwise options (issue 14): WLS by pairs per unit, cluster-robust standard errors, the quality-gap bound
baseline; the default stays the plain OLS fit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from judgebias_core.analyses.stepwise import stepwise_units
from judgebias_core.cli import main
from judgebias_core.errors import InvalidArgument
from judgebias_core.metrics.stepwise import _DesignBlocks, formula, stepwise_select
from judgebias_core.metrics.stepwise_baseline import _GapFits, bound_baseline, quality_margin
from judgebias_core.metrics.stepwise_validation import cross_validate
from tests.store_helpers import read


def unit_table(seed: int, quality_effect: float, units_per_cell: int = 3) -> pd.DataFrame:
    """Units of three judges x six candidates x four tasks. PC depends on the judge and, by ``quality_effect``, on
    the quality margin; the gap is margin x PC / 2 as the metric builds it."""
    rng = np.random.default_rng(seed)
    rows = []
    for judge, lean in (("j1", 0.0), ("j2", 0.08), ("j3", -0.05)):
        for candidate in range(6):
            for task in range(4):
                for _ in range(units_per_cell):
                    margin = float(rng.uniform(0, 1))
                    consistency = float(np.clip(rng.uniform(0.2, 1.0) + lean + quality_effect * (margin - 0.5),
                                                0.05, 1.0))
                    rows.append({"judge": judge, "candidate": f"c{candidate}", "task": f"t{task}",
                                 "classified": int(rng.integers(5, 40)), "position_consistency": consistency,
                                 "preference_fairness": float(rng.normal(0, 0.1)),
                                 "quality_gap": margin * consistency / 2, "input_length": 100.0 + task,
                                 "output_length": float(rng.normal(500, 50)), "prompt_length": 900.0})
    return pd.DataFrame(rows)


def test_the_bound_alone_is_not_mistaken_for_quality() -> None:
    """No real quality effect: the gap still correlates with PC through its bound, and the baseline says so."""
    units = unit_table(1, quality_effect=0.0)
    result = stepwise_select(units, "position_consistency")
    baseline = bound_baseline(units, result, permutations=100)
    assert baseline is not None and baseline.observed_r_squared > 0.2  # the bound alone makes the gap look strong
    assert baseline.permutation_p > 0.05 and baseline.bound_share_of_r_squared > 0.7


def test_a_real_quality_effect_stands_out_of_the_bound() -> None:
    units = unit_table(2, quality_effect=0.4)
    baseline = bound_baseline(units, stepwise_select(units, "position_consistency"), permutations=100)
    assert baseline is not None and baseline.permutation_p < 0.05
    assert baseline.observed_aic_gain > baseline.null_aic_gain_high


def test_weighted_fit_and_clustered_errors_equal_statsmodels() -> None:
    units = unit_table(3, quality_effect=0.2)
    weighted = stepwise_select(units, "position_consistency", weights="pairs", cluster="candidate")
    fit = smf.wls(formula("position_consistency", weighted.final_variables), data=units,
                  weights=units["classified"]).fit(cov_type="cluster",
                                                   cov_kwds={"groups": pd.factorize(units["candidate"])[0]})
    assert weighted.final_aic == pytest.approx(fit.aic, abs=1e-6)
    table = weighted.coefficients.set_index("term")
    assert table["std_err"].to_numpy() == pytest.approx(fit.bse.to_numpy())
    assert weighted.clusters == 6 and "fewer than 20 clusters" in weighted.standard_errors
    plain = stepwise_select(units, "position_consistency")
    ols = smf.ols(formula("position_consistency", plain.final_variables), data=units).fit()
    assert plain.coefficients["std_err"].to_numpy() == pytest.approx(ols.bse.to_numpy())
    assert plain.standard_errors == "units assumed independent (OLS)"
    with pytest.raises(InvalidArgument):
        stepwise_select(units, "position_consistency", cluster="item")


def test_mtbench_margins_rebuild_the_gap_and_the_cli_reports_the_baseline(
        bundled_db_master: Path, capsys: pytest.CaptureFixture[str]) -> None:
    units, _ = read(stepwise_units, bundled_db_master, "mtbench", "full")
    margin = quality_margin(units)
    assert ((margin >= 0) & (margin <= 1 + 1e-9)).all()
    assert (margin * units["position_consistency"].to_numpy() / 2) == pytest.approx(units["quality_gap"].to_numpy())
    assert main(["--db", str(bundled_db_master), "analysis", "stepwise", "--dataset", "mtbench", "--target",
                 "position_consistency", "--bound-permutations", "50", "--cluster", "candidate", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["final_variables"] == ["judge", "task", "quality_gap"]  # the selection is unchanged
    assert payload["standard_errors"].startswith("cluster-robust (CR1) by candidate, 30 clusters")
    baseline = payload["bound_baseline"]
    assert baseline["permutations"] == 50 and 0 < baseline["null_aic_gain_mean"] < baseline["observed_aic_gain"]
    assert payload["coefficients_are_post_selection"] is True
    validation = payload["cross_validation"]
    assert validation["folds"] == 5 and validation["selected_mse"] < validation["intercept_mse"]


def test_cross_validation_equals_refits_on_each_fold() -> None:
    units = unit_table(4, quality_effect=0.3)
    result = stepwise_select(units, "position_consistency", weights="pairs")
    validation = cross_validate(units, result, folds=4, seed=7)
    assert validation is not None
    fold_of = np.random.default_rng(7).permutation(np.arange(len(units)) % 4)
    squared, total = 0.0, 0.0
    for fold in range(4):
        train, held = units[fold_of != fold], units[fold_of == fold]
        fit = smf.wls(formula("position_consistency", result.final_variables), data=train,
                      weights=train["classified"]).fit()
        errors = held["position_consistency"] - fit.predict(held)
        squared += float((held["classified"] * errors**2).sum())
        total += float(held["classified"].sum())
    assert validation.selected_mse == pytest.approx(squared / total)
    assert validation.selected_mse < validation.intercept_mse
    assert validation.earns_its_place("quality_gap")  # a real quality effect predicts held-out units


@pytest.mark.filterwarnings("ignore:The design matrix is rank-deficient")
@pytest.mark.parametrize("weights", ["none", "pairs"])
def test_each_shuffled_fit_equals_a_statsmodels_refit(weights: str) -> None:
    """The baseline's one-factorisation fits (Frisch-Waugh-Lovell) give the AIC and R² of refitting the whole
    model with statsmodels, for the real gap, a shuffled one and one that lies in the other factors' span."""
    units = unit_table(4, quality_effect=0.2)
    others = ["judge", "input_length"]  # input length is fixed by the task: a gap equal to it adds nothing
    design = _DesignBlocks(units, "position_consistency", others, weights)
    fits = _GapFits(design, others)
    shuffled = np.random.default_rng(0).permutation(units["quality_gap"].to_numpy())
    for gap in (units["quality_gap"].to_numpy(), shuffled, units["input_length"].to_numpy() * 2.0):
        data = units.assign(quality_gap=gap)
        kwargs = {"weights": data["classified"]} if weights == "pairs" else {}
        model = smf.wls if weights == "pairs" else smf.ols
        whole = model(formula("position_consistency", [*others, "quality_gap"]), data=data, **kwargs).fit()
        alone = model(formula("position_consistency", ["quality_gap"]), data=data, **kwargs).fit()
        aic, r_squared = fits.with_gap(gap)
        assert aic == pytest.approx(whole.aic, rel=1e-12, abs=1e-9)
        assert r_squared == pytest.approx(alone.rsquared, rel=1e-12, abs=1e-12)
    without = model(formula("position_consistency", others), data=units, **kwargs).fit()
    assert fits.aic(fits.ssr_without, fits.rank) == pytest.approx(without.aic, rel=1e-12)
