"""Agreement between judges: how often judges give the same verdict on the same calls."""

from judgebias_core.analyses.judges import agreement_report
from judgebias_core.report.judges_section import agreement_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="judges", title="Agreement between judges", page="judges.py", view=agreement_report,
    report_section=agreement_section, cli_commands=("metrics agreement",),
    explanation_keys=("agreement", "disagreement"),
)
