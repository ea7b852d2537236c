"""Dataset, judge and run text made literal inside Streamlit markdown (no Streamlit import needed)."""

from __future__ import annotations

import re

from judgebias_core.text import counted as counted  # re-exported: pages import it from here

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$=:])")
# Where GitHub-flavoured markdown turns plain text into a link (http://, https://, www., an e-mail's @): a backslash
# escape does not stop it, an invisible word joiner (U+2060) between the letters does.
_AUTOLINK_START = re.compile(r"(?i)(https?(?=:)|www(?=\.))|(?=@)")
WORD_JOINER = "\u2060"


def escape_markdown(text: str) -> str:
    """Dataset or judge text made literal inside st.markdown / st.caption and every other place Streamlit reads
    markdown (labels, infos, warnings): no links (bare URLs and e-mail addresses included), images, HTML or LaTeX."""
    unlinked = _AUTOLINK_START.sub(lambda found: (found.group(1) or "") + WORD_JOINER, str(text))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", unlinked)


def code_span(text: object) -> str:
    """Dataset or judge text as a markdown code span: shown as written (backslash escapes would show literally)."""
    literal = str(text).replace("`", "'").replace("\n", " ")
    return f"`{literal}`" if literal.strip() else "` `"

