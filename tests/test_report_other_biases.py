"""The Factors and Other biases report sections: the same verdicts as the pages, clustered wording, the bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgebias_core.analyses.other_biases import self_preference, verbosity
from judgebias_core.analyses.stepwise import stepwise_analysis, stepwise_bound_baseline
from judgebias_core.report import ReportRequest, build_report
from judgebias_core.report.model import ReportSection
from judgebias_core.store.handle import Store
from judgebias_core.wording.verdict_factors import factors_verdict, other_biases_verdicts


@pytest.fixture(scope="module")
def sections(bundled_db_master: Path) -> dict[str, ReportSection]:
    with Store(bundled_db_master).reader() as reader:
        report = build_report(reader, ReportRequest("mtbench"))
    return {s.key: s for s in report.sections}


def test_factors_section_carries_the_page_verdicts_and_the_bound(sections: dict[str, ReportSection],
                                                                 bundled_db_master: Path) -> None:
    factors = sections["factors"]
    with Store(bundled_db_master).reader() as reader:
        expected = [factors_verdict(stepwise_analysis(reader, "mtbench", "full", target),
                                    stepwise_bound_baseline(reader, "mtbench", "full", target))
                    for target in ("position_consistency", "preference_fairness")]
    assert list(factors.verdicts) == expected  # one code path for the page and the report
    assert any("built into how consistency is measured" in s for s in factors.sentences)
    assert "the gap is at most PC / 2 by construction" in factors.verdicts[0].lines[1].rule
    assert expected[0].figures["permutation_p"] < 0.05 < expected[1].figures["permutation_p"]
    assert any("post-selection" in note for note in factors.notes)


def test_other_biases_section_speaks_only_from_the_clustered_tests(sections: dict[str, ReportSection],
                                                                   bundled_db_master: Path) -> None:
    section = sections["other-biases"]
    judges = ["gemini-pro", "gpt-3.5-turbo-1106", "gpt-4-0613"]
    with Store(bundled_db_master).reader() as reader:
        report = verbosity(reader, "mtbench", ["full"], judges)
        preference = self_preference(reader, "mtbench", ["full"], judges)
    assert {v.subject for v in section.verdicts} == {v.subject for v in other_biases_verdicts(report, preference)}
    assert not any("beyond chance" in s for s in section.sentences)
    assert all("Holm correction" in s for s in section.sentences)
    assert any(s.startswith("Judges of the openai family give openai candidates") for s in section.sentences)
    table = section.tables[0].frame.set_index("judge")
    assert table.loc["gpt-4-0613", "log-odds per 1,000 characters (95%, clustered by item)"] == "+0.21 (+0.10 to +0.32)"
