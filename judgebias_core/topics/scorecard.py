"""Which judge to use: every judge configuration of a dataset side by side, with a recommendation."""

from judgebias_core.analyses.scorecard_view import scorecard_view
from judgebias_core.report.scorecard_section import scorecard_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="scorecard", title="Which judge to use", page="compare_judges.py", view=scorecard_view,
    report_section=scorecard_section, cli_commands=("scorecard",),
    explanation_keys=("flip_rate", "scorecard_accuracy"),
)
