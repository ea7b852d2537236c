"""The topics a reader explores (pairwise bias, rubric bias, the scorecard, ...), one record each.

A topic's record names, once, everything that shows it: the analyses function returning its view (everything a
reader sees: results, the family of tests and its correction, verdicts, units, intervals), the dashboard page that
draws that view, the report section built from the same view, the CLI commands that print it, and the explanation
keys (judgebias_core/explanations.py) of the metrics it uses. The report's section list comes from this registry,
in registration order; a section that cannot be built is listed in the report with its reason.

Adding a topic is one module ``topics/<name>.py`` defining ``TOPIC = Topic(...)``, listed in ``BUILT_IN`` (or
``TOPICS.register(...)`` from anywhere else). This module imports nothing heavy: the records' modules load on the
first lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judgebias_core.registry import Registry

if TYPE_CHECKING:
    from judgebias_core.report.model import ReportScope, ReportSection
    from judgebias_core.store.handle import StoreReader

SectionBuilder = Callable[["StoreReader", "ReportScope"], "ReportSection | None"]


@dataclass(frozen=True)
class Topic:
    """One topic. ``title``: the report section's heading. ``page``: the file in app_pages/ that draws the view.
    ``view``: the analyses function returning the whole view. ``report_section``: builds the report's section from
    that view (None when it has nothing to show: the report says so). ``cli_commands``: the names of the commands
    (as the CLI registers them, e.g. "metrics pairwise") printing it."""

    name: str
    title: str
    page: str
    view: Callable[..., object]
    report_section: SectionBuilder
    cli_commands: tuple[str, ...]
    explanation_keys: tuple[str, ...]


# Registration order is the report's section order.
TOPICS: Registry[Topic] = Registry("topic", tuple(f"judgebias_core.topics.{name}" for name in (
    "pairwise", "scorecard", "factors", "rubric", "judges", "calibration", "leaderboard", "other_biases",
)), "TOPIC")
