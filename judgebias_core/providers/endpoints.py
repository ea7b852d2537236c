"""Keys stay with their endpoints: where a stored API key may be sent, and how a judge served elsewhere is named.

A *stored* key is one the operator keeps in the environment or in Streamlit secrets (``OPENAI_API_KEY``...). It
goes only to its provider's official endpoint (``Provider.official_base_urls``, or no base URL at all: the SDK's
default) or to a base URL the operator lists in ``JUDGEBIAS_KEY_ENDPOINTS`` (the dashboard fills it from
``key_endpoints`` in the ``[judgebias]`` section of ``.streamlit/secrets.toml``). Any other base URL is sent a key
given for it explicitly (typed in the same New run form, never stored), or none.

A judge whose base URL is neither official nor its provider's preset endpoint is named ``model@endpoint``, so replies
from a server someone typed in can never be stored under the provider's model name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from judgebias_core.errors import InvalidArgument
from judgebias_core.providers import get_provider

# Base URLs (separated by commas, spaces or new lines) that may receive the operator's stored keys.
KEY_ENDPOINTS_VARIABLE = "JUDGEBIAS_KEY_ENDPOINTS"
# A key typed in the New run form for its base URL: handed to the run's own process in this variable only.
TYPED_KEY_VARIABLE = "JUDGEBIAS_TYPED_KEY"
# What the SDKs are given when no key may be sent: they need some text, and left empty they would read the
# provider's environment variable themselves.
NO_KEY = "no-key"

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_base_url(url: str) -> str:
    """``scheme://host[:port]/path`` in lower case, default port and trailing slash dropped; InvalidArgument for
    anything that is not an http(s) URL with a host (user names, passwords, queries and fragments refused)."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as error:
        raise InvalidArgument(f"base URL {text!r} is not a URL: {error}") from None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
        raise InvalidArgument(f"base URL {text!r} must start with http:// or https:// and name a host")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise InvalidArgument(f"base URL {text!r} may not carry a user name, password, query or fragment")
    scheme = parts.scheme.lower()
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    return f"{scheme}://{netloc}{parts.path.rstrip('/')}"


def listed_endpoints(extra: Iterable[str] = ()) -> frozenset[str]:
    """The base URLs the operator listed for stored keys (``JUDGEBIAS_KEY_ENDPOINTS`` and ``extra``), normalised."""
    listed = [u for u in re.split(r"[\s,]+", os.environ.get(KEY_ENDPOINTS_VARIABLE, "")) if u]
    return frozenset(normalise_base_url(u) for u in [*listed, *extra])


def is_official(provider: str, base_url: str | None) -> bool:
    """No base URL (the SDK's default) or one of the provider's declared official endpoints."""
    if base_url is None:
        return True
    return normalise_base_url(base_url) in {normalise_base_url(u) for u in get_provider(provider).official_base_urls}


def stored_key_allowed(provider: str, base_url: str | None, listed: Iterable[str] | None = None) -> bool:
    """May the operator's stored key of ``provider`` be sent to ``base_url``?"""
    if is_official(provider, base_url):
        return True
    assert base_url is not None
    allowed = listed_endpoints() if listed is None else frozenset(normalise_base_url(u) for u in listed)
    return normalise_base_url(base_url) in allowed


def endpoint_label(base_url: str) -> str:
    """``host[:port]/path`` of a base URL, as a judge's name carries it."""
    return normalise_base_url(base_url).split("://", 1)[1]


def names_endpoint(provider: str, base_url: str | None) -> bool:
    """Does a judge at ``base_url`` carry the endpoint in its name (neither official nor the provider's preset)?"""
    if base_url is None or is_official(provider, base_url):
        return False
    preset = get_provider(provider).default_base_url
    return preset is None or normalise_base_url(base_url) != normalise_base_url(preset)
