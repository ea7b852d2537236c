"""Dataset, judge and run text made literal inside Streamlit markdown (no Streamlit import needed)."""

from __future__ import annotations

import re

from judgebias_core.text import counted as counted  # re-exported: pages import it from here

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$=:])")


def escape_markdown(text: str) -> str:
    """Dataset or judge text made literal inside st.markdown / st.caption (no links, images, HTML or LaTeX)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def code_span(text: object) -> str:
    """Dataset or judge text as a markdown code span: shown as written (backslash escapes would show literally)."""
    literal = str(text).replace("`", "'").replace("\n", " ")
    return f"`{literal}`" if literal.strip() else "` `"

