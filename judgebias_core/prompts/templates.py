"""Default prompt templates: Prometheus absolute grading, MT-Bench pairwise (2 and 3 options), list-wise.

A template is plain text with ``{{placeholder}}`` fields. An optional ``<|system|>`` section comes first and the
``<|user|>`` section follows; both markers start a line. Users may edit a template: a run stores the exact text
and its sha256.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TemplateKind = Literal["rubric", "pairwise", "listwise"]

SYSTEM_MARKER = "<|system|>"
USER_MARKER = "<|user|>"


@dataclass(frozen=True)
class PromptTemplate:
    """A named template, the parser that reads its replies, and the fields it expects."""

    name: str
    call_kind: TemplateKind  # the kind of call it renders (the column prompt_templates.kind)
    text: str
    parser: str


PROMETHEUS_ABSOLUTE = """<|system|>
You are a fair judge assistant tasked with providing clear, objective feedback based on specific criteria, ensuring each assessment reflects the absolute standards set for performance.
<|user|>
###Task Description:
An instruction (might include an Input inside it), a response to evaluate, {{reference_note}}and a score rubric representing an evaluation criterion are given.
1. Write a detailed feedback that assesses the quality of the response strictly based on the given score rubric, not evaluating in general.
2. After writing a feedback, write a score that is an integer between {{min_score}} and {{max_score}}. You should refer to the score rubric.
3. The output format should look as follows: "Feedback: (write a feedback for criteria) [RESULT] (an integer number between {{min_score}} and {{max_score}})"
4. Please do not generate any other opening, closing, and explanations.

###The instruction to evaluate:
{{instruction}}

###Response to evaluate:
{{response}}

{{reference_section}}###Score Rubrics:
[{{criterion}}]
{{score_lines}}

###Feedback: """

MTBENCH_PAIR_INTRO = (
    "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to "
    "the user question displayed below. You should choose the assistant that follows the user's instructions and "
    "answers the user's question better. Your evaluation should consider factors such as the helpfulness, "
    "relevance, accuracy, depth, creativity, and level of detail of their responses. Begin your evaluation by "
    "comparing the two responses and provide a short explanation. Avoid any position biases and ensure that the "
    "order in which the responses were presented does not influence your decision. Do not allow the length of the "
    "responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as "
    "possible. After providing your explanation, output your final verdict by strictly following this format: "
)

MTBENCH_PAIR_BODY = """<|user|>
[User Question]
{{question}}

[The Start of Assistant A's Answer]
{{answer_a}}
[The End of Assistant A's Answer]

[The Start of Assistant B's Answer]
{{answer_b}}
[The End of Assistant B's Answer]"""

MTBENCH_PAIR_3 = (
    "<|system|>\n" + MTBENCH_PAIR_INTRO
    + '"[[A]]" if assistant A is better, "[[B]]" if assistant B is better, and "[[C]]" for a tie.\n'
    + MTBENCH_PAIR_BODY
)
MTBENCH_PAIR_2 = (
    "<|system|>\n" + MTBENCH_PAIR_INTRO
    + '"[[A]]" if assistant A is better, "[[B]]" if assistant B is better. You must choose one of them.\n'
    + MTBENCH_PAIR_BODY
)

LISTWISE = """<|system|>
Please act as an impartial judge and evaluate the quality of the responses provided by {{count}} AI assistants to the user question displayed below. Choose the assistant that follows the user's instructions and answers the user's question best. Consider helpfulness, relevance, accuracy, depth, creativity and level of detail. Begin with a short explanation comparing the responses. Avoid any position biases: the order in which the responses are presented must not influence your decision, nor their length, nor the assistants' names. After your explanation, output your final verdict by strictly following this format: "[[X]]" where X is the letter of the best assistant ({{letters}}){{none_instruction}}.
<|user|>
[User Question]
{{question}}

{{answers_block}}"""

DEFAULT_TEMPLATES: dict[str, PromptTemplate] = {
    "prometheus-absolute": PromptTemplate("prometheus-absolute", "rubric", PROMETHEUS_ABSOLUTE, "prometheus"),
    "mtbench-pair-3": PromptTemplate("mtbench-pair-3", "pairwise", MTBENCH_PAIR_3, "mtbench"),
    "mtbench-pair-2": PromptTemplate("mtbench-pair-2", "pairwise", MTBENCH_PAIR_2, "mtbench"),
    "listwise": PromptTemplate("listwise", "listwise", LISTWISE, "listwise"),
}


def default_template(call_kind: TemplateKind, options: int = 3) -> PromptTemplate:
    """The default template of a call kind (pairwise: the 2- or 3-option MT-Bench format)."""
    if call_kind == "rubric":
        return DEFAULT_TEMPLATES["prometheus-absolute"]
    if call_kind == "pairwise":
        return DEFAULT_TEMPLATES["mtbench-pair-3" if options == 3 else "mtbench-pair-2"]
    return DEFAULT_TEMPLATES["listwise"]
