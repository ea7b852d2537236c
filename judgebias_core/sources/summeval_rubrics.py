"""The project's 5-level rubrics for SummEval's four dimensions (after Fabbri et al.'s definitions)."""

from __future__ import annotations

from judgebias_core.models import Rubric, RubricLevel

_SUMMEVAL_RUBRICS: dict[str, tuple[str, tuple[str, str, str, str, str]]] = {
    "coherence": (
        "Is the summary well-structured and well-organised, building from sentence to sentence "
        "into a coherent body of information about the article's topic?",
        (
            "The summary is a heap of unrelated statements; sentences contradict or do not follow each other.",
            "The summary is mostly disorganised: few sentences connect, and the reader must guess how ideas relate.",
            "The summary is partly organised: some sentences connect well, others jump abruptly or repeat.",
            "The summary is mostly well organised, with a clear thread and only minor awkward transitions.",
            "The summary is fully coherent: each sentence builds on the previous ones into a clear account of the topic.",
        ),
    ),
    "consistency": (
        "Is the summary factually consistent with the article, stating only facts the article supports?",
        (
            "Most statements are unsupported by or contradict the article (hallucinated facts).",
            "Several statements are unsupported or contradict the article.",
            "One or two statements are unsupported or distort the article; the rest is supported.",
            "All main statements are supported; a minor detail is imprecise.",
            "Every statement in the summary is entailed by the article.",
        ),
    ),
    "fluency": (
        "Is each sentence of the summary well-formed: grammatical, well punctuated and easy to read?",
        (
            "The text is barely readable: broken sentences, fragments or garbled words throughout.",
            "Frequent grammatical errors or fragments make several sentences hard to read.",
            "Some errors in grammar, punctuation or word choice, but the meaning is clear.",
            "Well-formed sentences with at most a minor slip.",
            "Every sentence is grammatical, natural and easy to read.",
        ),
    ),
    "relevance": (
        "Does the summary select the important content of the article, without redundancy or excess detail?",
        (
            "The summary misses the article's main points and dwells on trivia.",
            "The summary includes few important points and much unimportant or redundant content.",
            "The summary covers some key points but misses others or includes unneeded detail.",
            "The summary covers most key points with little unimportant content.",
            "The summary captures all the key points of the article and nothing superfluous.",
        ),
    ),
}

SUMMEVAL_DIMENSIONS: tuple[str, ...] = tuple(_SUMMEVAL_RUBRICS)


def summeval_rubric(dimension: str) -> Rubric:
    """The project's rubric for one SummEval dimension, id ``summeval-<dimension>``."""
    criterion, descriptions = _SUMMEVAL_RUBRICS[dimension]
    return Rubric(
        rubric_id=f"summeval-{dimension}",
        criterion=criterion,
        levels=tuple(RubricLevel(level, text) for level, text in enumerate(descriptions, start=1)),
        source="judgebias project rubric after SummEval (Fabbri et al., 2021) dimension definitions",
    )
