"""One view per topic (issue 24): each topic's page (AppTest) and report section are drawn from the same view, and
both show the same figures and corrected p-values, formatted alike. Pairwise, rubric, scorecard and leaderboard."""

from __future__ import annotations

from pathlib import Path

from judgebias_core.report.build import resolve_scope
from judgebias_core.report.model import ReportRequest, ReportSection
from judgebias_core.store.handle import Store
from judgebias_core.wording.phrasing import p_value, percent
from tests.app_helpers import open_page


def _page_text(at) -> str:
    """Every sentence, caption, notice and table cell a reader sees on the page, as text."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    for kind in ("success", "info", "warning", "error"):
        parts += [e.value for e in getattr(at, kind)]
    parts += [frame.value.to_string() for frame in at.dataframe]
    return "\n".join(parts).replace("\\", "")


def _section_text(section: ReportSection) -> str:
    parts = [*section.headline, *section.sentences, *section.notes]
    for verdict in section.verdicts:
        parts += [verdict.subject, *(line.text for line in verdict.lines), *(line.rule for line in verdict.lines)]
    for table in section.tables:
        parts += [table.title, table.note, table.frame.to_string()]
    return "\n".join(parts)


def _missing(figures: list[str], text: str) -> list[str]:
    return [figure for figure in figures if figure not in text]


def _read(db: Path, fn, *args, **kwargs):
    """``fn(reader, ...)`` on a snapshot closed before the page opens the store (DuckDB allows one configuration
    per file in a process)."""
    with Store(db).reader() as reader:
        return fn(reader, *args, **kwargs)


def test_pairwise_page_and_report_show_the_same_figures(app_env: Path) -> None:
    from judgebias_core.analyses.pairwise_view import pairwise_view
    from judgebias_core.report.pairwise_section import pairwise_section_from_view

    # The page's default: the first dataset (MTBench), every study, every repetition, Holm.
    view = _read(app_env, pairwise_view, "mtbench")
    at = open_page("pairwise_bias.py")
    assert not at.exception
    page = _page_text(at)
    section = pairwise_section_from_view(view, _read(app_env, resolve_scope, ReportRequest("mtbench")))
    assert section is not None
    report = _section_text(section)
    assert view.family.family_size == view.report_family.family_size  # the default page corrects the report's family
    figures = []
    for r in view.headline():
        figures += [percent(r.flip_rate), percent(r.flip_rate_decision_low), percent(r.flip_rate_decision_high),
                    f"{r.classified_pairs:,}", f"{r.items:,} questions"]
        label = f"position effect: {r.dataset}/{r.study}/{r.judge}/rep {r.repetition}"
        corrected = view.report_family.corrected[view.report_family.labels.index(label)]
        figures.append(f"corrected {p_value(corrected)}")  # the verdict's rule, on the page and in the report
    assert figures
    assert _missing(figures, page) == []
    assert _missing(figures, report) == []
    # Both say which family and how many tests.
    size = f"over {view.report_family.family_size} tests"
    assert size in page and size in report


def test_pairwise_page_on_one_study_names_both_families(app_env: Path) -> None:
    from judgebias_core.analyses.pairwise_view import pairwise_view

    view = _read(app_env, pairwise_view, "mtbench", ("full",))
    assert view.family.family_size < view.report_family.family_size
    at = open_page("pairwise_bias.py", query={"pw_study": "full"})
    assert not at.exception
    page = _page_text(at)
    assert f"the {view.family.family_size} tests of the rows shown" in page
    assert f"the report corrects {view.report_family.family_size} tests" in page
    table = at.dataframe[0].value
    shown = sorted(round(p, 12) for p in table["position p corrected (report's family)"].dropna())
    labels = [f"position effect: mtbench/full/{r.judge}/rep {r.repetition}" for r in view.results]
    expected = sorted(round(view.report_family.corrected[view.report_family.labels.index(label)], 12)
                      for label in labels)
    assert shown == expected


def test_scorecard_page_and_report_show_the_same_figures(app_env: Path) -> None:
    from judgebias_core.analyses.scorecard_view import scorecard_datasets, scorecard_view
    from judgebias_core.report.scorecard_section import scorecard_section_from_view

    choices, default = _read(app_env, scorecard_datasets)
    dataset = choices[default][0]
    assert dataset == "llmbar-natural"  # the page opens on a labelled dataset, so it opens on a recommendation
    view = _read(app_env, scorecard_view, dataset)
    at = open_page("compare_judges.py")
    assert not at.exception
    page = _page_text(at)
    section = scorecard_section_from_view(view)
    assert section is not None
    report = _section_text(section)
    assert section.headline == (view.lead,) and view.lead in page
    assert view.recommended == (view.lead.startswith("Use ")) and len(view.lead) < 170
    figures = [view.detail]
    for column in ("accuracy (swap-averaged)", "flip rate", "vs best", "parse failures"):
        figures += [str(cell) for cell in view.table[column]]
    assert _missing(figures, page) == []
    assert _missing(figures, report) == []


def test_leaderboard_page_and_report_show_the_same_figures(app_env: Path) -> None:
    from judgebias_core.analyses.leaderboard_view import leaderboard_judges, leaderboard_view
    from judgebias_core.plain_words import first_sentences, terms_in
    from judgebias_core.report.leaderboard_section import leaderboard_section_from_views

    at = open_page("leaderboard.py")
    assert not at.exception
    dataset = next(box for box in at.selectbox if box.label == "Dataset").value
    study = next(box for box in at.selectbox if box.label == "Study (or run id)").value
    judge = next(box for box in at.selectbox if box.label == "Judge").value
    # The page opens on the judge with the most readable verdicts, not the first name in the alphabet.
    judges = _read(app_env, leaderboard_judges, dataset, study)
    assert judge == judges[0]
    view = _read(app_env, leaderboard_view, dataset, [study], judge)
    assert view.verdict is not None and view.sentence is not None
    page = _page_text(at)
    section = leaderboard_section_from_views([view], study)
    assert section is not None
    report = _section_text(section)
    sure = next(line.text for line in view.verdict.lines if line.heading == "How sure we are")
    first = first_sentences(sure, 1)
    assert len(first) < 90 and f"{view.board.items:,} questions" in first and terms_in(first) == []
    figures = [view.sentence, *(line.text for line in view.verdict.lines)]
    for column in ("candidate", "pairs", "wins / ties* / losses", "win rate (95% item bootstrap)"):
        figures += [str(cell) for cell in view.table[column]]
    assert _missing(figures, report) == []
    assert _missing([line.text for line in view.verdict.lines], page) == []
    # The page's table holds the same counts and interval bounds, unformatted.
    table = at.dataframe[0].value.set_index("candidate")
    for row in view.table.itertuples():
        assert f"{table.loc[row.candidate, 'pairs (n)']:,}" == row.pairs
    bounds = {percent(v) for v in table["win rate low"]} | {percent(v) for v in table["win rate high"]}
    assert all(cell.split("(")[1].split("–")[0] in bounds for cell in view.table["win rate (95% item bootstrap)"])


def test_rubric_page_and_report_show_the_same_verdict(app_env: Path) -> None:
    from judgebias_core.analyses.rubric_view import rubric_view
    from judgebias_core.report.rubric_section import rubric_section_from_views

    at = open_page("rubric_bias.py")
    assert not at.exception
    run_id = next(box for box in at.selectbox if box.label == "Run").value
    repeat = next(box for box in at.selectbox if box.label == "Repeat run (baseline)").value
    view = _read(app_env, rubric_view, run_id, None if repeat == "none" else repeat)
    page = _page_text(at)
    section = rubric_section_from_views([view])
    assert section is not None
    report = _section_text(section)
    figures = [line.text for line in view.verdict.lines] + [line.rule for line in view.verdict.lines]
    assert figures
    assert _missing(figures, page) == []
    assert _missing(figures, report) == []
    assert view.simulated_notice is not None and view.simulated_notice in page  # the demo runs are simulated
