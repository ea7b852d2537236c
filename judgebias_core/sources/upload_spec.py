"""What the user decided about an upload: its kind, target dataset, column mapping and value mappings."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judgebias_core.sources.upload_mapping import UploadKind

DATASET_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
DEFAULT_PARSERS: dict[str, str] = {"pairwise-log": "mtbench", "rubric-log": "prometheus"}
PAIRWISE_LOG_PARSERS: tuple[str, ...] = ("mtbench", "devbench", "json")
RUBRIC_LOG_PARSERS: tuple[str, ...] = ("prometheus", "json-score")


class UploadSpec(BaseModel):
    """One upload's settings. Its JSON, with the file's bytes, makes the content hash (same file + same
    settings = same ids, so a second upload writes nothing)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: UploadKind
    dataset_id: str = Field(pattern=DATASET_ID_PATTERN,
                            description="lower-case letters, digits, '.', '_' or '-'; starts with a letter or digit")
    dataset_name: str = ""
    description: str = ""
    licence: str = "user upload (licence not stated)"
    columns: dict[str, str] = Field(default_factory=dict, description="field -> column of the file")
    # items: the rubric the human scores use (and the items' default rubric); rubric-log: overrides each
    # item's own rubric.
    rubric_id: str | None = None
    rater_columns: dict[str, str] = Field(default_factory=dict, description="items: score column -> rater name")
    candidate_columns: dict[str, str] = Field(default_factory=dict,
                                              description="pairs: answer column -> candidate name")
    name_columns: dict[str, str] = Field(default_factory=dict,
                                         description="pairs: answer column -> column naming its candidate per row")
    preference_map: dict[str, str] = Field(
        default_factory=dict,
        description="pairs: preference value -> 'tie', a candidate name, or (name-column mode) an answer column")
    baseline_candidate: str | None = None
    judge: str | None = Field(default=None, description="logs: one judge for every row when no judge column")
    parser: str | None = None
    options: Literal[2, 3] = 3
    # pairwise-log: the candidate whose first-slot call is the 'original' order of a pair; pairs without it
    # (or when None) take the order seen first in the file as original.
    original_first: str | None = None

    @property
    def parser_name(self) -> str:
        return self.parser or DEFAULT_PARSERS.get(self.kind, "")

    def content_hash(self, data: bytes) -> str:
        """sha256 of the file's bytes and these settings."""
        digest = hashlib.sha256(data)
        digest.update(b"\x1f" + self.model_dump_json().encode("utf-8"))
        return digest.hexdigest()
