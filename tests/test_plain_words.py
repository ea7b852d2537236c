"""Plain words first: no statistical term (``judgebias_core.plain_words.TERMS``) in a verdict's visible lines, a
report's "In short" or a chart title, on every bundled dataset; the rules keep the terms, folded."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgebias_core.plain_words import first_sentences, terms_in
from judgebias_core.report import ReportRequest, build_report, render_html
from judgebias_core.report.model import Report
from judgebias_core.store.handle import Store
from judgebias_core.store.queries import dataset_summaries
from judgebias_core.wording.verdict import DECIDED

LLMBAR_SAMPLE = ("llmbar-faireval", "llmbar-natural")


@pytest.fixture(scope="module")
def reports(bundled_db_master: Path) -> dict[str, Report]:
    with Store(bundled_db_master).reader() as reader:
        ids = [d.id for d in dataset_summaries(reader) if d.judge_calls]
        # The LLMBar subsets share one code path: two of them stand for the eight (the machine is shared).
        ids = [i for i in ids if not i.startswith("llmbar-") or i in LLMBAR_SAMPLE]
        return {dataset: build_report(reader, ReportRequest(dataset)) for dataset in ids}


def test_the_list_catches_what_it_lists() -> None:
    assert terms_in("after Holm correction over 3 tests (corrected p = 0.0437)") == ["Holm", "p =", "corrected p"]
    assert terms_in("removing it raises AIC by 246.37; R² 0.52") == ["AIC", "R²"]
    assert set(terms_in("Cohen's kappa 0.42, 95% studentized item-bootstrap interval")) == {
        "bootstrap", "studentized", "kappa", "Cohen"}
    # whole words only: "decided", "restaurant", "epic" carry no term
    assert terms_in("How this was decided at the restaurant, an epic choice") == []
    assert first_sentences("One. Two! Three? Four.", 2) == "One. Two!"


def test_bundled_reports_speak_plainly_first(reports: dict[str, Report]) -> None:
    assert {"mtbench", "autoj", "summeval", "llmbar-faireval"} <= set(reports)
    found: list[str] = []
    for dataset, report in reports.items():
        for section in report.sections:
            for line in section.headline:  # the report's "In short"
                found += [f"{dataset} In short: {term} in {line!r}" for term in terms_in(line)]
            for verdict in section.verdicts:
                for line in verdict.lines:
                    found += [f"{dataset} {verdict.subject} / {line.heading}: {term} in {line.text!r}"
                              for term in terms_in(line.text)]
            for figure in section.figures:
                title = figure.layout.title.text or ""
                found += [f"{dataset} chart title: {term} in {title!r}" for term in terms_in(title)]
    assert not found, "\n".join(found)


def test_the_rules_keep_the_terms_in_the_fold(reports: dict[str, Report]) -> None:
    html = render_html(reports["mtbench"])
    summary = html.split('<section id="summary">', 1)[1].split('<section id="pairwise">', 1)[0]
    assert f"<summary>{DECIDED}</summary>" in summary and "Rule:" not in summary
    rules = [line.rule for s in reports["mtbench"].sections for v in s.verdicts for line in v.lines]
    assert any("Holm" in rule for rule in rules) and any("AIC" in rule for rule in rules)


def test_a_fit_on_few_units_does_not_headline(reports: dict[str, Report]) -> None:
    factors = next(s for s in reports["llmbar-faireval"].sections if s.key == "factors")
    assert factors.headline[0].startswith("Only 4 (judge, candidate, task) units: too few to say what drives")


def test_page_messages_name_controls_not_flags() -> None:
    from judgebias_core.errors import InvalidArgument
    from judgebias_core.protocols.plans import swap_orders
    from ui.text import gui_words

    with pytest.raises(InvalidArgument) as raised:
        swap_orders(["a", "b"], None, "baseline")
    assert "--pairs all" in str(raised.value)  # the CLI's words
    assert gui_words(str(raised.value)) == ("this dataset has no baseline candidate: choose 'all pairs of "
                                            "candidates' under Pairs")
    assert "--" not in gui_words("item i1 has no rubric: pass --rubric")


def test_bias_cost_recommends_only_a_stable_ordering(bundled_db_master: Path) -> None:
    from judgebias_core.analyses.rubric import rubric_report
    from judgebias_core.wording.bias_cost_words import cost_choice, cost_interval_words

    with Store(bundled_db_master).reader() as reader:
        report = rubric_report(reader, "demo-summeval-coherence-permutation")
    costs, best = report.bias_cost, report.recommended
    assert best is not None and costs.stability < 0.5 and not costs.stable
    choice = cost_choice(costs, "under this run")
    assert choice.recommended is None and choice.sentence.startswith("No ordering is reliably better under this run")
    # 51234 costs 0.086, below every resampled cost (0.087 to 0.358): the interval is named, never shown as bounds.
    interval = costs.interval_of(best.ordering)
    assert interval is not None and not interval.contains_estimate and best.bias_cost < interval.low
    words = cost_interval_words(costs, best)
    assert "all above the measured 0.086" in words and "degenerate as bounds on the cost" in words
