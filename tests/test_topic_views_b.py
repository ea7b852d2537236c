"""One view per topic (issue 24), for agreement between judges, agreement with people, factors and other biases:
the view is built once on the bundled store with the page's defaults; the page (AppTest) and the report section
built from that same view show the same figures (estimates, counts, interval bounds) and corrected p-values, as
formatted text."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judgebias_core.plain_words import first_sentences, terms_in
from judgebias_core.report.model import ReportSection
from judgebias_core.report.render import section_html, verdict_html
from judgebias_core.store.handle import Store
from tests.app_helpers import open_page


def _page_text(at: AppTest) -> str:
    """Everything the page writes as text: markdown, captions, alerts, metrics and table cells."""
    parts = [e.value for kind in ("markdown", "caption", "info", "warning", "success", "error")
             for e in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [frame.value.to_string() for frame in at.dataframe]
    return "\n".join(parts).replace("\\", "")  # markdown escapes dropped


def _report_text(section: ReportSection) -> str:
    """The section as the report's HTML shows it (its verdict blocks, which the report prints in its summary, and the
    section itself), tags dropped."""
    shown = "".join(verdict_html(verdict) for verdict in section.verdicts) + section_html(section, 0)
    return html.unescape(re.sub(r"<[^>]+>", "", shown))


def _shown_in_both(figures: Iterable[str], page: str, report: str) -> None:
    figures = list(figures)
    assert figures
    for figure in figures:
        assert figure in page, f"{figure!r} not on the page"
        assert figure in report, f"{figure!r} not in the report section"


def _first_pairwise_dataset(bundled: Path) -> str:
    from judgebias_core.store.agreement_queries import pairwise_datasets

    with Store(bundled).reader() as reader:
        return pairwise_datasets(reader)[0]


def test_judges_page_and_report_show_one_agreement_view(app_env: Path) -> None:
    from judgebias_core.analyses.judges_view import judges_default_studies, judges_view
    from judgebias_core.report.judges_section import agreement_section_from_views

    dataset = _first_pairwise_dataset(app_env)
    with Store(app_env).reader() as reader:
        view = judges_view(reader, dataset, judges_default_studies(reader, dataset))
    section = agreement_section_from_views([view])
    assert view.verdict is not None and section is not None
    at = open_page("judges.py")
    assert not at.exception
    page, report = _page_text(at), _report_text(section)
    # The verdict (the least and the most agreeing pairs, with their shares and counts) in both, word for word.
    _shown_in_both([line.text for line in view.verdict.lines], page, report)
    lowest = min((p for p in view.result.pairs if p.n), key=lambda p: p.agreement)
    _shown_in_both([f"{lowest.n:,}", f"{view.result.disagreement.instances:,}"], page, report)
    # The agreement sentences (most and least agreeing pairs, calls every judge agrees on), word for word in both,
    # and in plain words where a reader starts: the verdict's first line and the first sentences.
    assert view.sentences
    _shown_in_both(view.sentences, page, report)
    for text in (view.verdict.lines[0].text, *view.sentences):
        assert not terms_in(first_sentences(text)), text
    # The page's other sentences are the view's too (the report's agreement section and --json give them).
    assert view.disagreement_sentence is not None and view.too_few_judges is None
    for sentence in (view.scope_sentence, view.studies_note, view.disagreement_sentence):
        assert sentence in page, sentence


def test_judges_page_with_one_judge_says_agreement_needs_two(app_env: Path) -> None:
    """Auto-J's study holds one judge: the view says agreement needs two, the page says it and draws nothing more,
    and the report's agreement section leaves the study out."""
    from judgebias_core.analyses.judges_view import judges_view
    from judgebias_core.report.judges_section import agreement_section_from_views

    with Store(app_env).reader() as reader:
        view = judges_view(reader, "autoj", ["full"])
    assert view.verdict is None and not view.sentences and agreement_section_from_views([view]) is None
    judge = view.result.judges[0]
    assert view.too_few_judges == f"Agreement needs two judges; only {judge} is in the chosen study."
    at = open_page("judges.py", query={"jd_dataset": "autoj", "jd_studies": ["full"]})
    assert not at.exception
    assert any(view.too_few_judges in box.value.replace("\\", "") for box in at.info)
    assert not at.tabs


def test_other_biases_page_and_report_show_one_view_with_its_corrected_family(app_env: Path) -> None:
    from judgebias_core.analyses.other_biases_view import other_biases_view
    from judgebias_core.report.other_biases_section import other_biases_section_from_view
    from judgebias_core.store.agreement_queries import pairwise_studies

    dataset = _first_pairwise_dataset(app_env)
    with Store(app_env).reader() as reader:
        studies = pairwise_studies(reader, dataset)
        study = studies["study"].iloc[0]
        judges = sorted(studies.loc[studies["study"] == study, "judges"].iloc[0])  # the report's: no majority vote
        view = other_biases_view(reader, dataset, [study], judges)
    section = other_biases_section_from_view(view)
    assert section is not None and view.preference is not None and view.preference.tests is not None
    at = open_page("other_biases.py", query={"ob_dataset": dataset, "ob_study": study, "ob_judges": judges})
    assert not at.exception
    page, report = _page_text(at), _report_text(section)
    _shown_in_both([line.text for verdict in view.verdicts for line in verdict.lines], page, report)
    # The family each correction runs over, and every corrected p-value, in both.
    _shown_in_both([view.verbosity_family, view.self_preference_family or ""], page, report)
    _shown_in_both([f"corrected p = {p:.3g}" for p in view.report.tests.corrected], page, report)
    for result in view.report.judges:  # the page's table cells are numbers, the report's formatted with commas
        assert str(result.decisive_pairs) in page and f"{result.decisive_pairs:,}" in report


def test_other_biases_page_and_report_show_both_families_side_by_side(app_env: Path) -> None:
    """The page corrects its default judges and their majority vote, the report the judges alone: each names both
    families with their sizes and shows both corrected p-values of every judge."""
    from judgebias_core.analyses.other_biases_view import ENSEMBLE_JUDGE, other_biases_view
    from judgebias_core.report.other_biases_section import other_biases_section_from_view
    from judgebias_core.store.agreement_queries import pairwise_studies

    dataset = _first_pairwise_dataset(app_env)
    with Store(app_env).reader() as reader:
        studies = pairwise_studies(reader, dataset)
        study = studies["study"].iloc[0]
        judges = sorted(studies.loc[studies["study"] == study, "judges"].iloc[0])
        view = other_biases_view(reader, dataset, [study], judges)  # the report's
        page_view = other_biases_view(reader, dataset, [study], [*judges, ENSEMBLE_JUDGE])  # the page's default
    assert (view.report_tests, view.page_tests) == (page_view.report_tests, page_view.report.tests)
    own, wider = view.report_tests, view.page_tests
    assert wider.family_size == own.family_size + 1 and ENSEMBLE_JUDGE in wider.labels
    section = other_biases_section_from_view(view)
    assert section is not None
    at = open_page("other_biases.py", query={"ob_dataset": dataset, "ob_study": study})
    assert not at.exception
    page, report = _page_text(at), _report_text(section)
    _shown_in_both([f"{own.family_size} slope tests (the judges without their majority vote: {', '.join(judges)})",
                    f"{wider.family_size} slope tests (the judges and their majority vote: "
                    f"{', '.join(wider.labels)})"], page, report)
    assert page_view.page_families_sentence in page and view.report_families_sentence in report
    # Every judge's corrected p in both families: numbers on the page, formatted in the report's table.
    page_table = next(frame.value for frame in at.dataframe
                      if "corrected p (report's family)" in frame.value.columns).set_index("judge")
    report_table = section.tables[0].frame.set_index("judge")
    in_own, in_wider = dict(zip(own.labels, own.corrected)), dict(zip(wider.labels, wider.corrected))
    for judge in judges:
        assert page_table.loc[judge, "corrected p"] == pytest.approx(in_wider[judge])
        assert page_table.loc[judge, "corrected p (report's family)"] == pytest.approx(in_own[judge])
        assert report_table.loc[judge, "corrected p"] == f"{in_own[judge]:.3g}"
        assert report_table.loc[judge, "corrected p (page's family)"] == f"{in_wider[judge]:.3g}"
    assert any(in_own[judge] != in_wider[judge] for judge in judges)  # the two families do differ here


def test_factors_page_and_report_show_one_view(app_env: Path) -> None:
    from judgebias_core.analyses.factors_view import TARGETS, factors_views
    from judgebias_core.report.factors_section import factors_section_from_views

    dataset = _first_pairwise_dataset(app_env)
    with Store(app_env).reader() as reader:
        views = factors_views(reader, dataset, "full", TARGETS)  # the page opens on the first target
    section = factors_section_from_views(views, views[0].judges)
    at = open_page("factors.py")
    assert not at.exception
    page, report = _page_text(at), _report_text(section)
    view = views[0]
    assert view.baseline is not None and view.validation is not None
    _shown_in_both([line.text for line in view.verdict.lines] + [view.summary, f"{view.result.units:,}"], page,
                   report)
    # The permutation p of the quality gap's bound, in the verdict's rule on the page and in the report alike.
    _shown_in_both([f"permutation p = {view.baseline.permutation_p:.3f}"], page, report)


def test_calibration_page_and_report_show_one_view(app_env: Path) -> None:
    from judgebias_core.analyses.calibration import calibration_choices
    from judgebias_core.analyses.calibration_view import calibration_view
    from judgebias_core.report.judges_section import calibration_section_from_views

    with Store(app_env).reader() as reader:
        first = calibration_choices(reader).iloc[0]  # what the page opens on
        view = calibration_view(reader, first["dataset_id"], first["judge"], first["study"])
        section = calibration_section_from_views(reader, [view])
    assert section is not None
    at = open_page("calibration.py")
    assert not at.exception
    page, report = _page_text(at), _report_text(section)
    # The verdict (kappa, its interval bounds, the count of pairs or calls; "simulated" in the same sentence when
    # the judge is), word for word in both.
    _shown_in_both([line.text for line in view.verdict.lines], page, report)
    if view.simulated:
        assert "simulated" in view.verdict.lines[0].text
