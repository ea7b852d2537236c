"""What a run will do before it is launched: calls, estimated tokens, cost and time (all labelled estimates)."""

from __future__ import annotations

from dataclasses import dataclass

from judgebias_core.judges.prices import PlanEstimate, estimate_plan, price_of
from judgebias_core.protocols.plans import build_plan
from judgebias_core.protocols.spec import RunSettings, RunSpec
from judgebias_core.providers import get_provider
from judgebias_core.store import run_queries
from judgebias_core.store.handle import StoreReader


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


def preview_run(reader: StoreReader, spec: RunSpec, settings: RunSettings,
                run_id: str | None = None) -> RunPreview:
    """Plan the run without sending anything."""
    provider = get_provider(spec.provider)
    plan = build_plan(reader, spec, run_id)
    estimate = estimate_plan([len(c.system) + len(c.user) for c in plan.calls], spec.model, spec.max_tokens,
                             settings.concurrency, provider.assumed_latency_s, paid=provider.paid)
    record = run_queries.run_record(reader, plan.run_id)
    return RunPreview(
        run_id=plan.run_id, calls=len(plan.calls), items=len({c.item_id for c in plan.calls}), estimate=estimate,
        price_known=not provider.paid or price_of(spec.model) is not None, template_name=plan.template.name,
        template_text=plan.template.text, sample_prompt=plan.calls[0].prompt if plan.calls else "",
        judge_description=provider.describe(spec), existing_status=str(record["status"]) if record else None,
    )
