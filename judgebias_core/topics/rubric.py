"""Rubric position bias: does a score's place in the rubric change how often it is chosen?"""

from judgebias_core.analyses.rubric_view import rubric_view
from judgebias_core.report.rubric_section import rubric_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="rubric", title="Rubric position bias", page="rubric_bias.py", view=rubric_view,
    report_section=rubric_section, cli_commands=("metrics rubric", "export trials"),
    explanation_keys=("bias_cost", "g_eval_score", "ordering_rank", "permutation_vs_repeat", "position_given_score",
                      "position_share", "within_item_spread"),
)
