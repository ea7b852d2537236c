"""Which key a judge client sends: the provider declares the environment variable (or Streamlit secret) holding it
(``Provider.key_variable``), ``endpoints`` decides where a stored key may go."""

from __future__ import annotations

import os

from judgebias_core.errors import InvalidArgument, MissingApiKey
from judgebias_core.judges.redact import remember_secret
from judgebias_core.providers import get_provider
from judgebias_core.providers.endpoints import NO_KEY, stored_key_allowed


def api_key(provider: str, given: str | None = None, base_url: str | None = None) -> str:
    """The key to send to ``base_url``: ``given`` (a key given for this endpoint, never stored), else the stored
    key from the environment variable the provider declares when it may go there (its official endpoint or one
    the operator listed: ``providers/endpoints.py``), else ``NO_KEY`` (nothing of the operator's is sent)."""
    variable = get_provider(provider).key_variable
    if variable is None:
        raise InvalidArgument(f"provider {provider!r} takes no API key")
    if not given and not stored_key_allowed(provider, base_url):
        return NO_KEY
    key = given or os.environ.get(variable)
    if not key:
        raise MissingApiKey(variable)
    remember_secret(key)  # scrubbed from every stored reply (judges/redact.py)
    return key
