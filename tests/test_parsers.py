"""Verdict and score parsers: exact rules on known replies, and never a crash or a guess on arbitrary text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from judgebias_core.parsing import (
    parse_devbench_choice,
    parse_json_score,
    parse_json_verdict,
    parse_listwise,
    parse_mtbench_verdict,
    parse_prometheus_score,
)


def test_mtbench_takes_the_first_bracketed_verdict() -> None:
    assert parse_mtbench_verdict("Both fine. [[C]]").value == "C"
    assert parse_mtbench_verdict("I prefer [[B]] over [[A]]").value == "B"
    failed = parse_mtbench_verdict("Assistant A is better.")
    assert failed.status == "failed" and failed.value is None and failed.reason


def test_mtbench_two_option_mode_rejects_tie_and_d() -> None:
    assert parse_mtbench_verdict("[[C]]", options=2).status == "failed"
    assert parse_mtbench_verdict("[[D]]").status == "failed"


def test_devbench_rule_is_exact() -> None:
    assert parse_devbench_choice("Choice: B\nReason: ...").value == "B"
    assert parse_devbench_choice("选择：A").value == "A"
    # The authors' rule needs exactly one space after the colon; a looser rule changes published counts.
    assert parse_devbench_choice("Choice:  A").status == "failed"


def test_prometheus_reads_the_last_result_and_checks_levels() -> None:
    assert parse_prometheus_score("Feedback: good. [RESULT] 4").value == 4
    assert parse_prometheus_score("[RESULT] 2 ... on reflection [RESULT] 3").value == 3
    assert parse_prometheus_score("[RESULT] 7").status == "failed"
    assert parse_prometheus_score("Feedback: fine, a 4.").status == "failed"
    assert parse_prometheus_score("[RESULT] 3", scores=(1, 2, 3)).value == 3


def test_json_formats() -> None:
    assert parse_json_verdict('{"verdict": "b"}').value == "B"
    assert parse_json_verdict('```json\n{"verdict": "A"}\n```').value == "A"
    assert parse_json_verdict('{"verdict": 1}').status == "failed"
    assert parse_json_score('{"score": 5}').value == 5
    assert parse_json_score('{"score": 9}').status == "failed"
    assert parse_json_score('{"score": true}').status == "failed"
    assert parse_json_score("not json").status == "failed"


def test_listwise() -> None:
    assert parse_listwise("Best is [[C]]", slots=3).value == "C"
    assert parse_listwise("[[D]]", slots=3).status == "failed"
    assert parse_listwise("[[NONE]]", slots=3, allow_none=True).value == "none"
    assert parse_listwise("[[none]]", slots=3).status == "failed"


@given(st.text())
def test_parsers_never_crash_and_never_guess(text: str) -> None:
    for result in (
        parse_mtbench_verdict(text),
        parse_devbench_choice(text),
        parse_prometheus_score(text),
        parse_json_verdict(text),
        parse_json_score(text),
        parse_listwise(text, slots=4, allow_none=True),
    ):
        assert result.status in {"ok", "failed"}
        assert (result.value is None) == (result.status == "failed")


@given(st.text(), st.sampled_from(["A", "B", "C"]), st.text())
def test_mtbench_finds_an_embedded_verdict(prefix: str, letter: str, suffix: str) -> None:
    result = parse_mtbench_verdict(f"{prefix.replace('[[', '')}[[{letter}]]{suffix}")
    assert result.value == letter
