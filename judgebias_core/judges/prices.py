"""Editable price table (USD per million tokens) and the estimates shown before a run.

Prices change: edit ``PRICES`` or point ``JUDGEBIAS_PRICES`` at a JSON file
``{"model": [input_per_million, output_per_million], ...}`` whose entries override these.
Figures before a run are estimates (characters / 4 for input tokens); after it, the provider's reported usage.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from judgebias_core.errors import InvalidArgument

PRICES_ENV_VAR = "JUDGEBIAS_PRICES"
CHARS_PER_TOKEN = 4

# (input, output) USD per million tokens, list prices as published by the providers; edit when they change.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-0613": (30.00, 60.00),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo-0125": (0.50, 1.50),
    "claude-3-haiku-20240307": (0.25, 1.25),
    "claude-3-5-haiku-latest": (0.80, 4.00),
    "claude-3-5-sonnet-latest": (3.00, 15.00),
    "claude-3-7-sonnet-latest": (3.00, 15.00),
    "claude-sonnet-4-0": (3.00, 15.00),
    "claude-opus-4-0": (15.00, 75.00),
    "claude-3-opus-20240229": (15.00, 75.00),
}


@dataclass(frozen=True)
class Price:
    input_per_million: float
    output_per_million: float

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float:
        return ((input_tokens or 0) * self.input_per_million + (output_tokens or 0) * self.output_per_million) / 1e6


def price_table() -> dict[str, tuple[float, float]]:
    """The built-in prices with the overrides of $JUDGEBIAS_PRICES applied."""
    table = dict(PRICES)
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
