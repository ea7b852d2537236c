"""Verdict and score parsers, one per prompt format."""

from judgebias_core.parsing.verdicts import (
    PARSERS,
    parse_devbench_choice,
    parse_json_score,
    parse_json_verdict,
    parse_listwise,
    parse_mtbench_verdict,
    parse_prometheus_score,
)

__all__ = [
    "PARSERS",
    "parse_devbench_choice",
    "parse_json_score",
    "parse_json_verdict",
    "parse_listwise",
    "parse_mtbench_verdict",
    "parse_prometheus_score",
]
