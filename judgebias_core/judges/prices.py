"""Editable price table (USD per million tokens) and the estimates shown before a run.

Each provider declares its models' prices (``PRICES`` in ``judgebias_core/providers/<name>.py``). Prices change:
edit them there or point ``JUDGEBIAS_PRICES`` at a JSON file
``{"model": [input_per_million, output_per_million], ...}`` whose entries override these.
Figures before a run are estimates (characters / 4 for input tokens); after it, the provider's reported usage.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from judgebias_core.errors import InvalidArgument
from judgebias_core.providers import all_providers, get_provider

PRICES_ENV_VAR = "JUDGEBIAS_PRICES"
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Price:
    input_per_million: float
    output_per_million: float

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float:
        return ((input_tokens or 0) * self.input_per_million + (output_tokens or 0) * self.output_per_million) / 1e6


def price_table() -> dict[str, tuple[float, float]]:
    """Every registered provider's prices with the overrides of $JUDGEBIAS_PRICES applied."""
    table = {model: price for provider in all_providers() for model, price in provider.prices.items()}
    override = os.environ.get(PRICES_ENV_VAR)
    if override:
        try:
            loaded = json.loads(Path(override).read_text(encoding="utf-8"))
            table.update({str(k): (float(v[0]), float(v[1])) for k, v in loaded.items()})
        except (OSError, ValueError, TypeError, IndexError) as error:
            raise InvalidArgument(f"{PRICES_ENV_VAR}={override} is not a readable price table: {error}") from error
    return table


def price_of(model: str) -> Price | None:
    """The model's price, or None when the table does not know it (local models, new releases)."""
    entry = price_table().get(model)
    return Price(*entry) if entry else None


def run_price(model: str, provider: str, given: tuple[float, float] | None = None) -> tuple[Price | None, bool]:
    """A run's price and whether its replies' cost is unknown: the price given for the run (``--price-per-mtok``),
    else the table's for a paid provider (unknown when missing), else none: free for the simulated and replayed
    judges, unknown for a local server (its cost is the operator's hardware, priced only when they say so)."""
    if given is not None:
        return Price(*given), False
    entry = get_provider(provider)
    if entry.paid:
        price = price_of(model)
        return price, price is None
    return None, entry.local


def estimate_tokens(text_chars: int) -> int:
    """An estimate of the tokens of a text: characters / 4."""
    return max(1, text_chars // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class PlanEstimate:
    """Estimates before a run (labelled as such wherever shown)."""

    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # None when the model's price is unknown
    seconds: float  # at the chosen concurrency and assumed latency


def estimate_plan(prompt_chars: list[int], model: str, max_tokens: int, concurrency: int,
                  latency_s: float = 5.0, paid: bool = True, output_share: float = 0.5) -> PlanEstimate:
    """Estimated tokens, cost and time of a plan; outputs assumed to use ``output_share`` of max tokens."""
    input_tokens = sum(estimate_tokens(c) for c in prompt_chars)
    output_tokens = int(len(prompt_chars) * max_tokens * output_share)
    price = price_of(model)
    cost = 0.0 if not paid else (price.cost(input_tokens, output_tokens) if price else None)
    seconds = len(prompt_chars) * latency_s / max(1, concurrency)
    return PlanEstimate(len(prompt_chars), input_tokens, output_tokens, cost, seconds)


def plan_totals(estimates: list[PlanEstimate]) -> PlanEstimate:
    """Several runs launched together (one per judge): summed calls, tokens and cost; they run side by side."""
    costs = [e.cost_usd for e in estimates]
    return PlanEstimate(
        calls=sum(e.calls for e in estimates), input_tokens=sum(e.input_tokens for e in estimates),
        output_tokens=sum(e.output_tokens for e in estimates),
        cost_usd=None if any(c is None for c in costs) else sum(c for c in costs if c is not None),
        seconds=max((e.seconds for e in estimates), default=0.0),
    )
