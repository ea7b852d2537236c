"""What drives the bias: a stepwise model of the flips over item and pair factors."""

from judgebias_core.analyses.factors_view import factors_view
from judgebias_core.report.factors_section import factors_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="factors", title="What drives the bias", page="factors.py", view=factors_view,
    report_section=factors_section, cli_commands=("analysis",), explanation_keys=("stepwise_aic",),
)
