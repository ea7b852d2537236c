"""Agreement with people: a judge against human (or gold) labels, and prediction-powered estimates."""

from judgebias_core.analyses.calibration_view import calibration_view
from judgebias_core.report.judges_section import calibration_section
from judgebias_core.topics import Topic

TOPIC = Topic(
    name="calibration", title="Agreement with people", page="calibration.py", view=calibration_view,
    report_section=calibration_section, cli_commands=("metrics calibration", "metrics ppi"),
    explanation_keys=("confusion_matrix", "kappa", "kappa_quadratic", "pearson", "precision_recall"),
)
