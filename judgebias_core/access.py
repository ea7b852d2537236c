"""Who may do what on a dashboard: roles, the serving configuration and the hard limits of a run.

No Streamlit here: ``ui/access.py`` reads the listening address, the ``[auth]`` and ``[judgebias]`` sections of
``.streamlit/secrets.toml`` and ``st.user``, and asks this module for the visitor's ``Access``.

- Loopback address, no login configured, not declared served: one local user, the operator (as before).
- Otherwise (any other address, login configured, or ``served = true`` for a dashboard behind a reverse proxy)
  every visitor is a viewer; a visitor logged in through OpenID Connect whose email or subject id is listed in
  ``operators`` is an operator.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgebias_core.errors import InvalidArgument, invalid_argument

CONFIG_SECTION = "judgebias"  # the section of .streamlit/secrets.toml read by the dashboard
LOCAL_OPERATOR = "local"  # who acted when the dashboard runs on loopback without login


class Role(StrEnum):
    OPERATOR = "operator"
    VIEWER = "viewer"


class RunLimits(BaseModel):
    """Hard limits of a run launched from a served dashboard; a visitor's form cannot move them. A local dashboard
    keeps only ``max_calls_per_run`` (the plan is counted before it is built, so a huge one never fills memory)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_calls_per_run: int = Field(20_000, ge=1, description="planned judge calls of one run")
    max_repetitions: int = Field(10, ge=1, description="repetitions R, and repeats of a rubric-repeat run")
    max_concurrency: int = Field(16, ge=1, le=512, description="calls in flight per run")
    max_cost_usd_per_run: float = Field(25.0, gt=0, description="the highest spending cap a served run may set")
    max_runs_per_operator: int = Field(2, ge=1, description="runs one operator has going at once")


class ServingConfig(BaseModel):
    """The ``[judgebias]`` section: operators, endpoints that may receive stored keys, the run limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    operators: tuple[str, ...] = ()  # emails or OpenID Connect subject ids
    served: bool = False  # a dashboard behind a reverse proxy listens on loopback but is served: say so here
    key_endpoints: tuple[str, ...] = ()  # base URLs that may receive the operator's stored keys
    limits: RunLimits = RunLimits()


def serving_config(section: Mapping[str, Any] | None) -> ServingConfig:
    """The configuration from the ``[judgebias]`` section (None or empty: the defaults); InvalidArgument names a
    setting that is wrong."""
    try:
        return ServingConfig.model_validate(dict(section or {}))
    except ValidationError as error:
        raise invalid_argument(error, f"the [{CONFIG_SECTION}] section of .streamlit/secrets.toml") from None


def is_loopback(address: str | None) -> bool:
    """Does a server listening on ``address`` answer this machine only? Empty (all interfaces) is not."""
    if not address:
        return False
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[] ")).is_loopback
    except ValueError:
        return False  # a host name: whoever resolves it may connect


@dataclass(frozen=True)
class Identity:
    """A visitor logged in through OpenID Connect (``st.user``'s claims)."""

    subject: str | None
    email: str | None
    name: str | None

    @classmethod
    def from_claims(cls, claims: Mapping[str, Any]) -> Identity | None:
        if not claims.get("is_logged_in"):
            return None
        def text(key: str) -> str | None:
            value = claims.get(key)
            return str(value) if value not in (None, "") else None
        return cls(subject=text("sub"), email=text("email"), name=text("name"))

    def label(self) -> str:
        """How the store records this person: the email, else the subject id."""
        return self.email or self.subject or "(unnamed)"


@dataclass(frozen=True)
class Access:
    """What the current visitor may do, and why."""

    role: Role
    served: bool  # anyone but this machine's user may reach the dashboard (or it is declared served)
    login_configured: bool
    identity: Identity | None
    config: ServingConfig

    @property
    def is_operator(self) -> bool:
        return self.role is Role.OPERATOR

    @property
    def actor(self) -> str:
        """Who is recorded for an operator action: the logged-in identity, or ``local``."""
        return self.identity.label() if self.identity else LOCAL_OPERATOR

    def why_viewer(self) -> str:
        """One line: why this visitor only reads, and how an operator gets to act."""
        if self.identity is not None:
            return (f"You are logged in as {self.identity.label()}, who is not on the operators list: this dashboard "
                    "is view-only for you. An operator adds your email or subject id to operators in the "
                    f"[{CONFIG_SECTION}] section of .streamlit/secrets.toml.")
        if self.login_configured:
            return "This dashboard is view-only until you log in as an operator (Log in, in the sidebar)."
        return ("This dashboard is served to others without a login, so it is view-only: runs, uploads and "
                "cancelling need an operator logged in through OpenID Connect ([auth] and operators in "
                ".streamlit/secrets.toml; docs/DEPLOY.md).")


def decide_access(config: ServingConfig, address: str | None, login_configured: bool,
                  claims: Mapping[str, Any] | None) -> Access:
    """The visitor's role from where the server listens, whether login is configured, and who logged in."""
    served = config.served or login_configured or not is_loopback(address)
    identity = Identity.from_claims(claims or {}) if login_configured else None
    if not served or identity is not None and {identity.email, identity.subject} & set(config.operators):
        role = Role.OPERATOR
    else:
        role = Role.VIEWER
    return Access(role=role, served=served, login_configured=login_configured, identity=identity, config=config)


@dataclass(frozen=True)
class RunRequest:
    """What a launch asks for, as the limits see it."""

    planned_calls: int
    repetitions: int | None
    concurrency: int
    max_cost_usd: float | None
    paid: bool


def limit_problems(request: RunRequest, limits: RunLimits, served: bool) -> list[str]:
    """Every limit a run would break (empty: it may be launched). A local dashboard (not served) keeps only the
    plan's size, which guards the server's memory; a served paid run must also set a spending cap."""
    problems = []
    if request.planned_calls > limits.max_calls_per_run:
        problems.append(f"the plan has {request.planned_calls:,} calls; a run may have at most "
                        f"{limits.max_calls_per_run:,} (max_calls_per_run)")
    if not served:
        return problems
    if request.repetitions is not None and request.repetitions > limits.max_repetitions:
        problems.append(f"{request.repetitions:,} repetitions asked; at most {limits.max_repetitions:,} "
                        "(max_repetitions)")
    if request.concurrency > limits.max_concurrency:
        problems.append(f"{request.concurrency:,} calls in flight asked; at most {limits.max_concurrency:,} "
                        "(max_concurrency)")
    cap = request.max_cost_usd
    if cap is not None and (not math.isfinite(cap) or cap < 0):
        problems.append("the spending cap must be a positive amount")
    elif served and request.paid:
        if not cap:
            problems.append(f"a served dashboard runs a paid judge only with a spending cap (at most "
                            f"${limits.max_cost_usd_per_run:,.2f}, max_cost_usd_per_run)")
        elif cap > limits.max_cost_usd_per_run:
            problems.append(f"a spending cap of ${cap:,.2f} is above the most a run may spend here, "
                            f"${limits.max_cost_usd_per_run:,.2f} (max_cost_usd_per_run)")
    return problems


def check_run_limits(request: RunRequest, limits: RunLimits, served: bool) -> None:
    """InvalidArgument naming every limit the run would break."""
    problems = limit_problems(request, limits, served)
    if problems:
        raise InvalidArgument("This run is over the dashboard's limits: " + "; ".join(problems) + ".")


def check_runs_at_once(actor: str, running: int, launching: int, limits: RunLimits, served: bool) -> None:
    """InvalidArgument when ``actor`` of a served dashboard would have more runs going at once than allowed."""
    if served and running + launching > limits.max_runs_per_operator:
        raise InvalidArgument(
            f"{actor} has {running:,} runs going and asks for {launching:,} more; at most "
            f"{limits.max_runs_per_operator:,} at once (max_runs_per_operator). Wait for one to end or cancel it.")
