"""AppTest of the swap study plan on the New run page: defaults from an earlier run, typed values, other protocols."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from scipy.stats import norm

from tests.app_helpers import open_page

PLAN_LABELS = ("Expected interval width", "Items for a target width", "Cost for that many items (estimate)")


def _width(flip_rate: float, design_effect: float, items: int, pairs: int) -> float:
    return 2 * float(norm.ppf(0.975)) * math.sqrt(flip_rate * (1 - flip_rate) * design_effect / (items * pairs))


def _metrics(at: object) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}  # type: ignore[attr-defined]


def _captions(at: object) -> list[str]:
    return [c.value.replace("\\", "") for c in at.caption]  # type: ignore[attr-defined]


def _number(at: object, label: str) -> Any:
    return next(n for n in at.number_input if n.label == label)  # type: ignore[attr-defined]


def test_swap_plan_next_to_the_cost(app_env: Path) -> None:
    at = open_page("new_run.py")  # MTBench, pairwise-swap, the simulated judge: no earlier run of it
    assert not at.exception
    assert any(c.startswith("No earlier run of this judge on mtbench") for c in _captions(at))
    flip_rate, design_effect = _number(at, "Expected flip rate").value, _number(at, "Design effect").value
    assert _metrics(at)["Expected interval width"] == f"{_width(flip_rate, design_effect, 10, 30):.3f}"

    next(box for box in at.selectbox if box.label == "Judge provider").set_value("replay").run()
    next(m for m in at.multiselect if m.label == "Recorded judge(s)").set_value(["gpt-4-0613"]).run()
    assert not at.exception  # the recorded gpt-4-0613 judged MTBench before: 443 flips in 2,400 pairs
    assert any(c.startswith("Estimated from gpt-4-0613 (full on mtbench): 443 flips in 2,400 pairs")
               for c in _captions(at))
    assert _number(at, "Expected flip rate").value == round(443 / 2400, 3)
    metrics = _metrics(at)
    design_effect = _number(at, "Design effect").value
    assert metrics["Items for a target width"] == "73"
    assert metrics["Cost for that many items (estimate)"] == "$0.00"  # a replayed judge is free
    assert float(metrics["Width met with 80% assurance"]) > float(metrics["Expected interval width"])
    next(r for r in at.radio if r.label.startswith("Plan the items")).set_value("assurance").run()
    assert not at.exception and int(_metrics(at)["Items for a target width"].replace(",", "")) > 73
    next(r for r in at.radio if r.label.startswith("Plan the items")).set_value("expected").run()

    _number(at, "Expected flip rate").set_value(0.3).run()
    assert any(c.startswith("Typed in: flip rate 0.300") for c in _captions(at))
    assert _metrics(at)["Expected interval width"] == f"{_width(0.3, design_effect, 10, 30):.3f}"
    # 10 items: the studentized item bootstrap applies (its exact fallback, and the note, start below 10)
    assert not any(c.startswith("Below 10 items") for c in _captions(at))

    next(box for box in at.selectbox if box.label == "Protocol").set_value("listwise").run()
    assert not at.exception and not set(PLAN_LABELS) & set(_metrics(at))
