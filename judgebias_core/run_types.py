"""The run side's shared types: what a judge is asked (``PlannedCall``), what it answers (``JudgeReply``) and the
one interface every judge client implements (``JudgeClient``).

Standard library only (plus ``models`` and ``prompts``, themselves standard library only), so that a judge client, a provider module or
a test's fake judge imports them without pandas, DuckDB, pydantic or the provider registry
(``tests/test_import_graph.py`` checks both). The plan that lists the calls (``protocols.plans.Plan``) stays with
the planner: it carries the run's ``RunSpec``, which checks its provider against the registry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from judgebias_core.models import CallKind
from judgebias_core.prompts.render import RenderedPrompt

# A rubric run's ordering of the score options: the scores in position order ((2, 3, 4, 5, 1) shows 2 first).
Ordering = tuple[int, ...]


@dataclass(frozen=True)
class PlannedCall:
    """One judge call of a plan: what is shown (slots or ordering), the prompt, and the hints a simulated
    judge may use (the item's human label and the shown texts)."""

    call_id: str
    run_id: str
    dataset_id: str
    item_id: str
    call_kind: CallKind  # pairwise | listwise | rubric (the column judge_calls.kind)
    repetition: int
    system: str
    user: str
    slots: tuple[str, ...] = ()
    order_label: str | None = None
    options: int | None = None
    ordering: Ordering | None = None
    rubric_id: str | None = None
    scores: tuple[int, ...] = ()  # rubric levels (for parsing)
    contents: tuple[str, ...] = ()  # slot texts (pairwise, list-wise) or the scored response (rubric)
    human_score: float | None = None
    human_preference: str | None = None

    @property
    def prompt(self) -> str:
        """The whole prompt as stored with the call (and as the cache key sees it)."""
        return RenderedPrompt(self.system, self.user).text


@dataclass(frozen=True)
class JudgeReply:
    """What came back from one call: the reply text and the provider's usage (None when not reported)."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    score_logprobs: dict[str, float] | None = None  # top log-probabilities at the score token (G-Eval)


class JudgeClient(ABC):
    """A judge: turns a planned call into provider request parameters and sends them.

    ``paid`` judges go through the response cache and the spending cap; ``parser`` overrides the template's
    parser when the judge's replies have their own format (replayed recordings).
    """

    provider: str
    model: str
    name: str
    simulated: bool = False
    paid: bool = True
    parser: str | None = None

    @abstractmethod
    def request_params(self, call: PlannedCall) -> dict[str, Any]:
        """The provider request for one call (also what a batch request would carry)."""

    @abstractmethod
    async def send(self, params: dict[str, Any]) -> JudgeReply:
        """Send one request; raises ``JudgeCallError`` (retryable or not) when no reply came back."""

    async def aclose(self) -> None:  # noqa: B027 - optional: clients without connections keep it
        """Release connections."""

    def describe(self) -> str:
        return f"{self.provider} {self.model}"
