"""What a run will do before it is launched: calls, estimated tokens, cost and time (all labelled estimates)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from judgebias_core.judges.prices import PlanEstimate, estimate_plan, price_of
from judgebias_core.protocols.plans import build_plan
from judgebias_core.protocols.spec import RunSettings, RunSpec, SimulatedParams
from judgebias_core.store import run_queries

# Assumed seconds per call for the time estimate (simulated and replay answer at once).
ASSUMED_LATENCY_S = {"openai": 5.0, "anthropic": 5.0, "simulated": 0.002, "replay": 0.002}


@dataclass(frozen=True)
class RunPreview:
    run_id: str
    calls: int
    items: int
    estimate: PlanEstimate
    price_known: bool
    template_name: str
    template_text: str
    sample_prompt: str
    judge_description: str
    existing_status: str | None  # the run id exists already: launching resumes it


def preview_run(db_path: str | os.PathLike[str], spec: RunSpec, settings: RunSettings,
                run_id: str | None = None) -> RunPreview:
    """Plan the run without sending anything."""
    plan = build_plan(db_path, spec, run_id)
    paid = spec.provider in ("openai", "anthropic")
    estimate = estimate_plan([len(c.system) + len(c.user) for c in plan.calls], spec.model, spec.max_tokens,
                             settings.concurrency, ASSUMED_LATENCY_S[spec.provider], paid=paid)
    record = run_queries.run_record(db_path, plan.run_id)
    if spec.provider == "simulated":
        description = (spec.simulated or SimulatedParams()).describe()
    elif spec.provider == "replay":
        description = f"replay of {spec.model}'s recorded replies (study {spec.replay_study}); no model is called"
    else:
        description = f"{spec.provider} {spec.model}" + (f" at {spec.base_url}" if spec.base_url else "")
    return RunPreview(
        run_id=plan.run_id, calls=len(plan.calls), items=len({c.item_id for c in plan.calls}), estimate=estimate,
        price_known=not paid or price_of(spec.model) is not None, template_name=plan.template.name,
        template_text=plan.template.text, sample_prompt=plan.calls[0].prompt if plan.calls else "",
        judge_description=description, existing_status=str(record["status"]) if record else None,
    )
