"""Typed records and closed sets shared by every part of judgebias."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

DatasetKind = Literal["pairwise", "pointwise"]
# Slot-relative pairwise verdict: A = first slot better, B = second slot better, C = tie.
PairVerdict = Literal["A", "B", "C"]
ParseStatus = Literal["ok", "failed", "no_reply"]
PairClass = Literal["consistent", "primacy", "recency", "failed"]
CallKind = Literal["pairwise", "listwise", "rubric"]
LabelSource = Literal["human", "reference-judge"]

PARSE_OK: ParseStatus = "ok"
PARSE_FAILED: ParseStatus = "failed"  # a reply came back but no verdict could be read from it
NO_REPLY: ParseStatus = "no_reply"  # the call never got a reply (errors after retries, no recording)

PARSER_PREPARSED = "pre-parsed"  # verdicts published without the judge's reply text (Auto-J)


class RunStatus(StrEnum):
    """A run's status in ``runs.status``, its progress file and ``RunOutcome``; a plain string wherever stored."""

    RUNNING = "running"
    COMPLETE = "complete"
    SPENDING_CAP = "stopped: spending cap"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"  # the session ended without finishing (killed, crashed); resuming continues it

    @property
    def ended_cleanly(self) -> bool:
        """The session stopped where it meant to (all done, the cap, a cancel request): exit status 0."""
        return self in (RunStatus.COMPLETE, RunStatus.SPENDING_CAP, RunStatus.CANCELLED)

    @property
    def terminal(self) -> bool:
        return self is not RunStatus.RUNNING


def status_summary(status: str, planned: int | None, completed: int, failed: int) -> str:
    """A run's status with what it leaves out: "complete, 2 failed" (no reply after every retry; a resume sends those
    again), and "incomplete, 54 of 2,400 not stored" for a run marked complete whose store falls short of its plan
    (a resume stores them from the journal). A bare "complete" means every planned call has a reply."""
    failures = f", {failed:,} failed" if failed else ""
    if status == RunStatus.RUNNING or planned is None:
        return str(status)
    missing = planned - completed - failed
    if status == RunStatus.COMPLETE and missing > 0:
        return f"incomplete, {missing:,} of {planned:,} not stored{failures}"
    return f"{status}{failures}"


@dataclass(frozen=True)
class ParsedVerdict:
    """What a parser read from a reply. ``value`` is None when nothing could be read."""

    value: str | int | None
    status: ParseStatus
    parser: str
    reason: str = ""


@dataclass(frozen=True)
class DatasetSummary:
    id: str
    name: str
    dataset_kind: DatasetKind  # pairwise | pointwise (the column datasets.kind)
    items: int
    candidates: int
    judge_calls: int
    human_labels: int
    source: str
    licence: str
    description: str = ""
    baseline_candidate: str | None = None


@dataclass(frozen=True)
class StoreOverview:
    datasets: int
    items: int
    judges: int
    runs: int
    judge_calls: int
    parse_failures: int
    human_labels: int
    reference_labels: int
    rubrics: int
    schema_version: int
    gold_labels: int = 0  # of human_labels: gold labels a dataset's authors set (LLMBar), not raters' ratings


@dataclass(frozen=True)
class RubricLevel:
    level: int
    description: str


@dataclass(frozen=True)
class Rubric:
    rubric_id: str
    criterion: str
    levels: tuple[RubricLevel, ...]
    source: str = ""

    @property
    def k(self) -> int:
        return len(self.levels)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(level.level for level in self.levels)


@dataclass(frozen=True)
class JudgeCallDetail:
    """One judge call with the inputs it saw, for side-by-side display."""

    call_id: str
    dataset_id: str
    item_id: str
    judge: str
    study: str
    run_id: str | None
    call_kind: CallKind  # pairwise | listwise | rubric (the column judge_calls.kind)
    repetition: int
    slots: list[str] = field(default_factory=list)
    ordering: list[int] | None = None
    question: str = ""
    answers: dict[str, str] = field(default_factory=dict)
    response: str | None = None
    prompt: str | None = None
    raw_output: str | None = None
    verdict: str | None = None
    score: int | None = None
    chosen_position: int | None = None
    parse_status: str = ""
    parser: str = ""
    error: str | None = None
    simulated: bool = False


@dataclass(frozen=True)
class RubricRunInfo:
    """What a rubric run is: where its numbers come from."""

    run_id: str
    dataset_id: str
    dataset_name: str
    judge: str
    protocol: str
    origin: str
    provider: str
    simulated: bool
    rubric_id: str | None
    criterion: str | None
    trials: int
    k: int
    orderings: int
    items: int
    params: dict[str, Any] = field(default_factory=dict)
