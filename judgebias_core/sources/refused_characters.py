"""Characters no upload may hold, in any format: the checks the readers (``upload_read``, ``upload_xlsx``,
``rubric_files``) share."""

from __future__ import annotations

import re

# C0 control characters other than tab, line feed and carriage return: refused in every format (NUL included).
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# Lone surrogates (a JSON or YAML escape such as \ud800 yields one): no UTF-8 text, hence no store, can hold them.
LONE_SURROGATES = re.compile(r"[\ud800-\udfff]")
REFUSED_CHARACTERS = re.compile(f"{CONTROL_CHARACTERS.pattern}|{LONE_SURROGATES.pattern}")


def control_problem(text: str, where: str = "in the text") -> str | None:
    """Why ``text`` is refused (a control character other than tab, line feed and carriage return, or a lone
    surrogate, which no UTF-8 text can hold), or None."""
    found = REFUSED_CHARACTERS.search(text)
    if found is None:
        return None
    if LONE_SURROGATES.match(found.group()):
        return (f"lone surrogate U+{ord(found.group()):04X} {where} (half of a UTF-16 pair, not a character; "
                "a JSON or YAML escape such as \\ud800 writes it): remove it")
    return (f"control character U+{ord(found.group()):04X} {where} (only tab, line feed and carriage return "
            "are allowed): remove it")
