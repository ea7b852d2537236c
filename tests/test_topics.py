"""The topic records (judgebias_core/topics): each names a page that is listed, explanations that exist and CLI
commands the CLI has; the report's sections are the topics', in their order; a registered fake topic is built into
the report, and one whose section cannot be computed is listed with its reason."""

from __future__ import annotations

from pathlib import Path

from judgebias_core.cli import build_parser
from judgebias_core.errors import NotFoundError
from judgebias_core.explanations import explanation
from judgebias_core.report import ReportRequest, build_report
from judgebias_core.report.model import ReportSection
from judgebias_core.store.handle import Store
from judgebias_core.topics import TOPICS, Topic
from ui.navigation import PAGES

ROOT = Path(__file__).resolve().parent.parent


def _cli_command_names() -> set[str]:
    """Every command the parser accepts, named as a topic names it: "metrics pairwise", "gate", "export trials"."""
    parser = build_parser()
    names = set()
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        for name, sub in action.choices.items():
            names.add(name)
            if sub._subparsers is not None:
                for inner in sub._subparsers._group_actions:
                    names.update(f"{name} {child}" for child in inner.choices)
    return names


def test_every_topic_names_a_listed_page_known_explanations_and_existing_commands() -> None:
    pages = {page.file for page in PAGES}
    commands = _cli_command_names()
    assert len(TOPICS.records()) == 8
    for topic in TOPICS.records():
        assert topic.page in pages, topic.name
        assert (ROOT / "app_pages" / topic.page).is_file()
        for key in topic.explanation_keys:
            explanation(key)
        assert set(topic.cli_commands) <= commands, (topic.name, set(topic.cli_commands) - commands)
        assert callable(topic.view) and callable(topic.report_section)


def test_the_report_builds_the_topics_sections_in_order_and_names_one_that_fails(bundled_db_master: Path) -> None:
    def failing_section(reader: object, scope: object) -> ReportSection | None:
        raise NotFoundError("no calls of this kind in the store")

    def fake_section(reader: object, scope: object) -> ReportSection | None:
        return ReportSection(key="fake", title="A fake topic", sentences=("It was built.",))

    fake = Topic(name="fake", title="A fake topic", page="overview.py", view=lambda reader: None,
                 report_section=fake_section, cli_commands=(), explanation_keys=())
    failing = Topic(name="failing", title="A failing topic", page="overview.py", view=lambda reader: None,
                    report_section=failing_section, cli_commands=(), explanation_keys=())
    with TOPICS.registered(fake), TOPICS.registered(failing), Store(bundled_db_master).reader() as reader:
        report = build_report(reader, ReportRequest(dataset_id="mtbench"))
    titles = [section.title for section in report.sections]
    assert titles[-1] == "A fake topic"
    assert [section.key for section in report.sections][:3] == ["pairwise", "scorecard", "factors"]  # topics' order
    assert any(line.startswith("A failing topic: could not be computed (no calls of this kind") for line in report.skipped)
