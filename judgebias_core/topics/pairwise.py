"""Pairwise position bias: does a judge's verdict change when the two answers swap places?"""

from judgebias_core.analyses.pairwise_view import pairwise_view
from judgebias_core.report.pairwise_section import pairwise_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="pairwise", title="Pairwise position bias", page="pairwise_bias.py", view=pairwise_view,
    report_section=pairwise_section,
    cli_commands=("metrics pairwise", "metrics pairwise-compare", "metrics repetition", "metrics listwise", "gate"),
    explanation_keys=("flip_rate", "judge_difference", "listwise_consistency", "quality_gap", "ranking_safety"),
)
