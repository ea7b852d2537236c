"""Agreement between judges: how often judges give the same verdict on the same calls."""

from judgebias_core.analyses.judges_view import judges_view
from judgebias_core.report.judges_section import agreement_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="judges", title="Agreement between judges", page="judges.py", view=judges_view,
    report_section=agreement_section, cli_commands=("metrics agreement",),
    explanation_keys=("agreement", "disagreement"),
)
