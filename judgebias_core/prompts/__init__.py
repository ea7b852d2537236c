"""Judge prompt templates (Prometheus absolute grading, MT-Bench pairwise, list-wise), rendering and hashing."""

from judgebias_core.prompts.render import (
    RenderedPrompt,
    listwise_values,
    pairwise_values,
    render,
    rubric_values,
    score_lines,
    template_fields,
    template_id,
)
from judgebias_core.prompts.templates import DEFAULT_TEMPLATES, PromptTemplate, default_template

__all__ = [
    "DEFAULT_TEMPLATES",
    "PromptTemplate",
    "RenderedPrompt",
    "default_template",
    "listwise_values",
    "pairwise_values",
    "render",
    "rubric_values",
    "score_lines",
    "template_fields",
    "template_id",
]
