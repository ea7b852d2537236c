"""Repetition stability and the repetition floor (METHODS.md section 2) of judges asked the same prompt R times."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class RepetitionMetrics:
    """One judge's stability over repeated prompts (a prompt is one order of one pair)."""

    dataset: str
    study: str
    judge: str
    prompts: int  # every prompt with repetitions
    prompts_unparsed: int  # prompts none of whose repetitions parsed: left out of the mean and counted
    repetitions: int  # the most repetitions any prompt has
    repetition_stability: float  # mean over prompts of (count of the modal verdict) / R
    repetition_floor: float | None  # share of prompts whose repetitions 1 and 2 disagree
    floor_prompts: int  # prompts whose repetitions 1 and 2 both parsed (the floor's denominator)
    floor_changed: int


def repetition_results(frame: pd.DataFrame) -> list[RepetitionMetrics]:
    """Results from the rows of ``repetition_counts``."""
    return [
        RepetitionMetrics(
            dataset=r.dataset_id, study=r.study, judge=r.judge,
            prompts=int(r.prompts), prompts_unparsed=int(r.prompts_unparsed),
            repetitions=int(r.max_repetitions), repetition_stability=float(r.repetition_stability),
            repetition_floor=float(r.floor_changed / r.floor_prompts) if r.floor_prompts else None,
            floor_prompts=int(r.floor_prompts), floor_changed=int(r.floor_changed),
        )
        for r in frame.itertuples()
    ]
