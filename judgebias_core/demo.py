"""First-launch demo runs: the simulated judge on 40 SummEval summaries, so every rubric chart has content.

Two runs on the first 10 articles x systems M8, M9, M10, M11 (stored order), rubric summeval-coherence: a
rubric-permutation run over the balanced set (10 orderings) and a rubric-repeat run (10 repeats of the canonical
ordering). The judge is simulated, labelled so in the store, with its parameters stored and shown. Both runs ask
for log-probabilities, so the simulated judge also returns its (simulated) score probabilities and the G-Eval
expected score has content; the sampled scores are the same as without them.
"""

from __future__ import annotations

from judgebias_core.bootstrap import FirstLaunchStep
from judgebias_core.protocols.spec import RunSettings, RunSpec, SimulatedParams
from judgebias_core.store import run_queries
from judgebias_core.store.handle import Store

DEMO_SYSTEMS = ("M8", "M9", "M10", "M11")
DEMO_ITEMS = 40
DEMO_RUBRIC = "summeval-coherence"
DEMO_PARAMS = SimulatedParams(position_prob=0.3, position_weights=(0.4, 0.2, 0.15, 0.15, 0.1), noise=0.6, seed=0)
DEMO_RUNS: dict[str, str] = {
    "demo-summeval-coherence-permutation": "rubric-permutation",
    "demo-summeval-coherence-repeat": "rubric-repeat",
}


def demo_spec(protocol: str) -> RunSpec:
    return RunSpec(dataset_id="summeval", protocol=protocol, provider="simulated", model="demo-judge",
                   rubric_id=DEMO_RUBRIC, limit_items=DEMO_ITEMS, candidates=DEMO_SYSTEMS, orderings="balanced",
                   repeats=10, simulated=DEMO_PARAMS, seed=DEMO_PARAMS.seed, logprobs=True)


def ensure_demo_runs(store: Store) -> list[str]:
    """Run the demo runs that are not complete yet (idempotent); returns the ids it ran."""
    ran = []
    for run_id, protocol in DEMO_RUNS.items():
        with store.reader() as reader:
            record = run_queries.run_record(reader, run_id)
        if record is not None and record["status"] == "complete":
            continue
        from judgebias_core.engine import start_run  # noqa: PLC0415 - the engine only when a run is missing

        _claim_or_set_aside(store)
        start_run(store, demo_spec(protocol), RunSettings(concurrency=16, flush_every=500, flush_interval_s=5.0),
                  run_id=run_id)
        ran.append(run_id)
    return ran


def _claim_or_set_aside(store: Store) -> None:
    """A run folder left by an earlier store of the same file name is set aside (kept, renamed), not replayed: the
    demo runs of a new store start from nothing, and the first launch is not blocked by another store's journals."""
    from judgebias_core.engine.folder_identity import claim_run_folder, set_aside_run_folder  # noqa: PLC0415
    from judgebias_core.errors import ForeignRunFolder  # noqa: PLC0415

    try:
        claim_run_folder(store)
    except ForeignRunFolder:
        set_aside_run_folder(store)


FIRST_LAUNCH_STEP = FirstLaunchStep("demo runs", ensure_demo_runs)
