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



# The core's messages name the CLI's flags (the CLI shows them as they are); on a page, the control that does the
# same names it instead. Each entry: the CLI's words -> the page's words.
GUI_WORDS: tuple[tuple[str, str], ...] = (
    ("use --pairs all", "choose 'all pairs of candidates' under Pairs"),
    ("pass --rubric", "choose a rubric under Rubric"),
    ("choose another store file with --db (or $JUDGEBIAS_DB)",
     "choose another store file with the JUDGEBIAS_DB environment variable and restart the dashboard"),
    ("choose another store file with --db ", "choose another store file (JUDGEBIAS_DB) "),
)


def gui_words(message: str) -> str:
    """A core message with the CLI's flags replaced by the page controls that do the same."""
    for cli, gui in GUI_WORDS:
        message = message.replace(cli, gui)
    return message
