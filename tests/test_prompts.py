"""Prompt templates: rendering, hashing, the ordering of rubric lines, and that replies in each format parse."""

from __future__ import annotations

import hashlib

import pytest

from judgebias_core.errors import InvalidArgument
from judgebias_core.models import Rubric, RubricLevel
from judgebias_core.parsing import parse_listwise, parse_mtbench_verdict, parse_prometheus_score
from judgebias_core.prompts import (
    DEFAULT_TEMPLATES,
    default_template,
    listwise_values,
    pairwise_values,
    render,
    rubric_values,
    template_id,
)

RUBRIC = Rubric("toy", "Is it good?", tuple(RubricLevel(i, f"level {i} text") for i in range(1, 6)))


def test_template_id_is_the_sha256_of_the_exact_text() -> None:
    text = DEFAULT_TEMPLATES["prometheus-absolute"].text
    assert template_id(text) == hashlib.sha256(text.encode()).hexdigest()
    assert template_id(text + " ") != template_id(text)


def test_rubric_prompt_lists_score_lines_in_the_orderings_order() -> None:
    prompt = render(default_template("rubric").text,
                    rubric_values("Do X.", "I did X.", RUBRIC, (3, 1, 5, 2, 4), reference_answer=None))
    positions = [prompt.user.index(f"Score {s}: level {s} text") for s in (3, 1, 5, 2, 4)]
    assert positions == sorted(positions)
    assert "Reference Answer" not in prompt.user and "reference answer" not in prompt.user
    assert "[RESULT]" in prompt.user and prompt.system.startswith("You are a fair judge")


def test_rubric_prompt_includes_the_reference_answer_when_given() -> None:
    prompt = render(default_template("rubric").text, rubric_values("Do X.", "I did X.", RUBRIC, (1, 2, 3, 4, 5),
                                                                   reference_answer="The perfect X."))
    assert "###Reference Answer (Score 5):\nThe perfect X." in prompt.user
    assert "{{" not in prompt.text


def test_pairwise_templates_differ_only_in_the_tie_option() -> None:
    three = render(default_template("pairwise", 3).text, pairwise_values("Q?", "first answer", "second answer"))
    two = render(default_template("pairwise", 2).text, pairwise_values("Q?", "first answer", "second answer"))
    assert '"[[C]]" for a tie' in three.system and "[[C]]" not in two.system
    assert three.user == two.user
    assert three.user.index("first answer") < three.user.index("second answer")


def test_listwise_prompt_letters_and_no_clear_winner() -> None:
    values = listwise_values("Q?", ["a1", "a2", "a3"], allow_none=True)
    prompt = render(default_template("listwise").text, values)
    assert "Assistant C's Answer]\na3" in prompt.user and "(A, B, C)" in prompt.system
    assert "[[NONE]]" in prompt.system
    assert "[[NONE]]" not in render(default_template("listwise").text,
                                    listwise_values("Q?", ["a", "b"], allow_none=False)).system


def test_a_field_the_run_cannot_fill_is_an_error() -> None:
    with pytest.raises(InvalidArgument, match="unknown_field"):
        render("Judge {{question}} and {{unknown_field}}", {"question": "Q"})


def test_braces_in_filled_text_are_left_alone() -> None:
    prompt = render("<|user|>\n{{question}}", {"question": "code {{not_a_field}} and {x}"})
    assert prompt.user == "code {{not_a_field}} and {x}" and prompt.system == ""


def test_replies_in_each_requested_format_parse() -> None:
    assert parse_prometheus_score("Feedback: fine. [RESULT] 4").value == 4
    assert parse_mtbench_verdict("Better: [[B]]").value == "B"
    assert parse_listwise("[[C]]", 3).value == "C"
