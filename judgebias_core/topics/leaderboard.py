"""Leaderboard: the candidates ranked by a judge's verdicts, and which neighbour orders are safe."""

from judgebias_core.analyses.leaderboard_view import leaderboard_view
from judgebias_core.report.leaderboard_section import leaderboard_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="leaderboard", title="Leaderboard", page="leaderboard.py", view=leaderboard_view,
    report_section=leaderboard_section, cli_commands=("metrics leaderboard",),
    explanation_keys=("bradley_terry", "overall_win_rate", "ranking_safety"),
)
