"""Open the dashboard in AppTest (paths are absolute: AppTest resolves relative ones against the caller)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.navigation import page_entry

PROJECT_ROOT = Path(__file__).resolve().parents[1]
APP_FILE = PROJECT_ROOT / "app.py"


def open_page(page_file: str | None = None, timeout: float = 120,
              query: Mapping[str, str | list[str]] | None = None,
              secrets: Mapping[str, object] | None = None) -> AppTest:
    """Run app.py, then switch to ``app_pages/<page_file>`` when given, with ``query`` in the page address (as when
    a link opens the page) and ``secrets`` as .streamlit/secrets.toml would give them; returns the AppTest after the
    run."""
    at = AppTest.from_file(str(APP_FILE), default_timeout=timeout)
    for name, value in (secrets or {}).items():
        at.secrets[name] = value
    at.run()
    if page_file is not None:
        at.switch_page(page_entry(page_file).script)
        for name, value in (query or {}).items():
            at.query_params[name] = value
        at.run()
    return at
