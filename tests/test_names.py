"""The one slug rule, checked against the two rules it replaced (download names, dataset ids from file names)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from judgebias_core.names import slug


def _download_name_rule(name: str) -> str:  # ui/share.py before
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "export"


def _dataset_id_rule(file_name: str) -> str:  # ui/upload_panel.py before
    stem = file_name.rsplit(".", 1)[0].lower()
    return re.sub(r"[^a-z0-9._-]+", "-", stem).strip("-._")[:60] or "upload"


@given(st.text())
def test_download_names_follow_the_old_rule(name: str) -> None:
    assert slug(name, "export") == _download_name_rule(name)


@given(st.text())
def test_dataset_ids_follow_the_old_rule(file_name: str) -> None:
    stem = file_name.rsplit(".", 1)[0]
    assert slug(stem, "upload", lowercase=True, strip="-._", max_length=60) == _dataset_id_rule(file_name)


def test_known_answers() -> None:
    assert slug("My Results (final).CSV", "x", lowercase=True, strip="-._") == "my-results-final-.csv"
    assert slug("  ", "export") == "export"
    assert slug("gpt-4 / claude", "export") == "gpt-4-claude"
