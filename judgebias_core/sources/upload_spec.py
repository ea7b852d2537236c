"""What the user decided about an upload: its kind, target dataset, column mapping and value mappings."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DATASET_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
# Settings added after uploads were first stored: left out of the content hash while at their default, so the
# same file with the same settings keeps the run id it had before they existed.
_LATER_SETTINGS: dict[str, object] = {"allow_none": False}


class UploadSpec(BaseModel):
    """One upload's settings. Its JSON, with the file's bytes, makes the content hash (same file + same
    settings = same ids, so a second upload writes nothing)."""

    # ``upload_kind`` is written "kind" in the JSON (so the content hash and stored settings stay what they were)
    # and read under either name.
    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    upload_kind: str = Field(alias="kind", description="a name in sources.upload_kind.UPLOAD_KINDS")
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
    # (or when None) take the order seen first in the file as original. listwise-log: the first-seen order with
    # this candidate in the first slot is a candidate set's original order (else the first-seen order).
    original_first: str | None = None
    allow_none: bool = Field(default=False,
                             description="listwise-log: the judge could answer 'no clear winner' ([[NONE]], none)")

    def content_hash(self, data: bytes) -> str:
        """sha256 of the file's bytes and these settings."""
        digest = hashlib.sha256(data)
        unset = {name for name, default in _LATER_SETTINGS.items() if getattr(self, name) == default}
        digest.update(b"\x1f" + self.model_dump_json(exclude=unset).encode("utf-8"))
        return digest.hexdigest()
