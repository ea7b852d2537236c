"""The visitor's role on this dashboard, read from Streamlit (listening address, secrets, ``st.user``); the rules are
``judgebias_core.access``. Pages call ``operator_gate`` before anything that spends, writes, cancels or uploads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from judgebias_core.access import CONFIG_SECTION, Access, ServingConfig, decide_access, serving_config
from judgebias_core.analyses.runs import OperatorAction, record_actions
from judgebias_core.errors import InvalidArgument
from ui.state import current_store
from ui.text import code_span, escape_markdown

# What the sidebar of a dashboard served without login shows: the lines of .streamlit/secrets.toml that let
# operators log in (the identity provider's own three, plus who the operators are). docs/DEPLOY.md has the rest.
LOGIN_CONFIG_LINES = """[auth]
redirect_uri = "https://judgebias.example.org/oauth2callback"
cookie_secret = "a long random string"
server_metadata_url = "https://your-idp.example.org/.well-known/openid-configuration"
client_id = "judgebias"
client_secret = "from your identity provider"

[judgebias]
operators = ["you@example.org"]"""


def _section(name: str) -> dict[str, Any]:
    """A section of .streamlit/secrets.toml as a plain dict (empty when there is no secrets file or section)."""
    try:
        value = st.secrets.get(name)
    except Exception:  # noqa: BLE001 - no secrets file (or an unreadable one) means nothing is configured
        return {}
    return _plain(value) if isinstance(value, Mapping) else {}


def _plain(value: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _plain(v) if isinstance(v, Mapping) else v for k, v in value.items()}


def login_provider(auth: Mapping[str, Any]) -> str | None:
    """The ``st.login`` provider name the ``[auth]`` section configures (None: login is not configured)."""
    if not {"redirect_uri", "cookie_secret"} <= set(auth):
        return None
    if "client_id" in auth:
        return "default"
    return next((name for name, value in auth.items() if isinstance(value, Mapping) and "client_id" in value), None)


def config_problem() -> str | None:
    """What is wrong with the ``[judgebias]`` section, if anything (the dashboard then runs on the defaults)."""
    try:
        serving_config(_section(CONFIG_SECTION))
    except InvalidArgument as error:
        return str(error)
    return None


def serving() -> ServingConfig:
    """The ``[judgebias]`` section, or the defaults when it is missing or wrong (``config_problem`` says why)."""
    try:
        return serving_config(_section(CONFIG_SECTION))
    except InvalidArgument:
        return ServingConfig()


def _claims() -> dict[str, Any]:
    try:
        return dict(st.user.to_dict())
    except Exception:  # noqa: BLE001 - no user information outside a script run (bare mode)
        return {}


def current_access() -> Access:
    """The current visitor's access."""
    provider = login_provider(_section("auth"))
    return decide_access(serving(), st.get_option("server.address"), provider is not None,
                         _claims() if provider else None)


def shown_reason(access: Access) -> str:
    """``access.why_viewer()`` as markdown: literal text, the person's email or subject id as a code span (markdown
    would make an email a mailto link)."""
    reason = access.why_viewer()
    if access.identity is None:
        return escape_markdown(reason)
    label = access.identity.label()
    return code_span(label).join(escape_markdown(part) for part in reason.split(label))


def operator_gate(what: str) -> bool:
    """True for an operator; for a viewer, a line saying that ``what`` is for operators, why, and how to log in."""
    access = current_access()
    if access.is_operator:
        return True
    st.info(f"{what} is for operators. {shown_reason(access)}", icon="🔒")
    return False


def record_operator_action(action: OperatorAction, targets: Sequence[str], detail: str | None = None) -> None:
    """Keep who did ``action`` on ``targets`` (the logged-in operator, or ``local``)."""
    record_actions(current_store(), current_access().actor, action, targets, detail)


def show_access_in_sidebar() -> None:
    """Who you are here and, on a served dashboard, log in / log out or what makes login possible."""
    access = current_access()
    problem = config_problem()
    if problem:
        st.error(f"{escape_markdown(problem)}. The dashboard uses the default settings until it is fixed.")
    if not access.served:
        st.caption("Local use: you are the operator (listening on this machine only, no login configured).")
        return
    provider = login_provider(_section("auth"))
    if provider is None:
        st.warning("**View-only**: this dashboard is served without a login, so nobody can launch, upload or "
                   "cancel here. These lines in `.streamlit/secrets.toml` let operators log in "
                   "(docs/DEPLOY.md):")
        st.code(LOGIN_CONFIG_LINES, language="toml")
        return
    if access.identity is None:
        st.caption("View-only until an operator logs in.")
        if st.button("Log in", key="access_login", help="Through your organisation's OpenID Connect login."):
            st.login(provider)
        return
    role = "operator" if access.is_operator else "viewer (not on the operators list)"
    st.caption(f"Logged in as {code_span(access.identity.label())} · {role}")
    if st.button("Log out", key="access_logout"):
        st.logout()
