"""Other biases: does a judge prefer the longer answer, or answers from its own model family?"""

from judgebias_core.analyses.other_biases_view import other_biases_view
from judgebias_core.report.other_biases_section import other_biases_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="other_biases", title="Other biases", page="other_biases.py", view=other_biases_view,
    report_section=other_biases_section, cli_commands=("metrics verbosity",),
    explanation_keys=("self_preference", "verbosity"),
)
