"""Dataset groups: several bundled datasets viewed together (LLMBar's four adversarial subsets).

A group is a view, never stored: its figures pool the member datasets' pairs, each pair clustered by
(dataset, item). Pages and the CLI accept a group id wherever a scorecard takes a dataset.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DatasetGroup:
    group_id: str
    name: str
    datasets: tuple[str, ...]
    description: str


DATASET_GROUPS: dict[str, DatasetGroup] = {group.group_id: group for group in (
    DatasetGroup("llmbar-adversarial", "LLMBar Adversarial (4 subsets)",
                 ("llmbar-neighbor", "llmbar-gptinst", "llmbar-gptout", "llmbar-manual"),
                 "LLMBar's four adversarial subsets together: Neighbor, GPTInst, GPTOut and Manual (319 pairs)."),
)}


def group_members(dataset_or_group: str) -> tuple[str, ...]:
    """The datasets a dataset id or a group id stands for (a plain dataset id stands for itself)."""
    group = DATASET_GROUPS.get(dataset_or_group)
    return group.datasets if group else (dataset_or_group,)
