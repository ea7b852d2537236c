"""Names derived from free text: one slug rule for download file names and suggested dataset ids."""

from __future__ import annotations

import re


def slug(text: str, fallback: str, *, lowercase: bool = False, strip: str = "-", max_length: int | None = None) -> str:
    """``text`` with every run of characters other than letters, digits, ``.``, ``_`` and ``-`` replaced by ``-``,
    ``strip`` characters removed from both ends, cut to ``max_length``; ``fallback`` when nothing is left.

    ``lowercase`` lowers the text first (then only lowercase letters are kept), as a dataset id wants.
    """
    if lowercase:
        text = text.lower()
    letters = "a-z" if lowercase else "A-Za-z"
    cleaned = re.sub(rf"[^{letters}0-9._-]+", "-", text).strip(strip)
    if max_length is not None:
        cleaned = cleaned[:max_length]
    return cleaned or fallback
