"""Report button on the analysis pages, and dataset/judge/candidate/task names that stay literal in markdown."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from judgebias_core.store.handle import Store
from judgebias_core.store.writes import StoreBatch, write_batch
from tests.app_helpers import open_page
from ui.share import escape_markdown

IMG = "<img src=x onerror=alert(1)>"
MARKDOWN = "**bold** [link](http://x)"
DATASET = f"ds{IMG}"
JUDGES = (f"judge {MARKDOWN}", f"judge{IMG}")
CANDIDATES = (f"cand {MARKDOWN}", f"cand{IMG}")
BASELINE = f"base{IMG}"
TASKS = (f"task {MARKDOWN}", f"task{IMG}")
# Outside code spans, a hostile name may only appear escaped: no raw tag, bold, or link target.
RAW_MARKUP = re.compile(r"(?<!\\)<img|(?<!\\)\*\*bold|(?<!\\)\]\(http")
CODE_SPAN = re.compile(r"`[^`]*`")
# The issue asks for a report button on every analysis page; these also pick a pairwise dataset by "Dataset".
ANALYSIS_PAGES = ("pairwise_bias.py", "factors.py", "other_biases.py", "judges.py", "leaderboard.py",
                  "compare_judges.py")
TEXT_ELEMENTS = ("markdown", "caption", "info", "warning", "success", "error", "title", "header", "subheader")


def _verdicts(item: int, judge: int, candidate: int) -> tuple[str, str]:
    """A mix of consistent, primacy and recency pairs (original order verdict, swapped order verdict)."""
    return [("A", "B"), ("B", "A"), ("A", "A"), ("B", "B"), ("C", "C"), ("A", "C")][(item + judge + 2 * candidate) % 6]


def write_hostile_dataset(path: Path) -> None:
    """Add to the store at ``path`` a small pairwise dataset whose every name is hostile markup."""
    items = [f"item{n}" for n in range(12)]
    calls = []
    for j, judge in enumerate(JUDGES):
        for c, candidate in enumerate(CANDIDATES):
            for n, item in enumerate(items):
                original, swapped = _verdicts(n, j, c)
                for label, slots, verdict in (("original", [BASELINE, candidate], original),
                                              ("swapped", [candidate, BASELINE], swapped)):
                    calls.append({
                        "call_id": f"{j}-{c}-{item}-{label}", "run_id": "polish-run", "dataset_id": DATASET,
                        "study": "full", "judge": judge, "item_id": item, "kind": "pairwise", "repetition": 1,
                        "options": 3, "slots": slots, "first_candidate": slots[0], "second_candidate": slots[1],
                        "order_label": label, "raw_output": f"{IMG} [[{verdict}]]", "verdict": verdict,
                        "parse_status": "ok", "parser": "mtbench",
                    })
    write_batch(Store.open(path), StoreBatch(
        datasets=pd.DataFrame([{"dataset_id": DATASET, "name": f"Hostile {MARKDOWN}", "kind": "pairwise",
                                "source": IMG, "licence": MARKDOWN, "description": IMG,
                                "baseline_candidate": BASELINE, "origin": "upload"}]),
        items=pd.DataFrame({"dataset_id": DATASET, "item_id": items, "seq": range(len(items)),
                            "task": [TASKS[n % 2] for n in range(len(items))], "question": IMG}),
        answers=pd.DataFrame([{"dataset_id": DATASET, "item_id": item, "candidate": candidate,
                               "answer": "x" * (10 + 40 * n + 7 * k)}
                              for n, item in enumerate(items) for k, candidate in enumerate((BASELINE, *CANDIDATES))]),
        judges=pd.DataFrame([{"judge": judge, "provider": "upload", "family": f"family{IMG}", "simulated": False}
                             for judge in JUDGES]),
        runs=pd.DataFrame([{"run_id": "polish-run", "dataset_id": DATASET, "study": "full", "origin": "upload",
                            "protocol": "pairwise-swap", "provider": "upload", "judge": JUDGES[0], "model": IMG,
                            "simulated": False, "status": "complete"}]),
        judge_calls=pd.DataFrame(calls),
    ))


@pytest.fixture(scope="module")
def hostile_db(bundled_db_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first-launch store plus the hostile dataset."""
    path = tmp_path_factory.mktemp("polish") / "hostile.duckdb"
    path.write_bytes(bundled_db_master.read_bytes())
    write_hostile_dataset(path)
    return path


def _shown_text(at: AppTest) -> list[str]:
    return [str(element.value) for kind in TEXT_ELEMENTS for element in at.get(kind)]


def _assert_escaped(at: AppTest) -> None:
    texts = _shown_text(at)
    unsafe = [t for t in texts if RAW_MARKUP.search(CODE_SPAN.sub("", t))]
    assert not unsafe, unsafe
    assert any("\\<img src\\=x" in t or f"`{DATASET}`" in t for t in texts), texts


@pytest.mark.parametrize("page", ANALYSIS_PAGES)
def test_report_button_and_hostile_names_shown_escaped(hostile_db: Path, monkeypatch: pytest.MonkeyPatch,
                                                       page: str) -> None:
    monkeypatch.setenv("JUDGEBIAS_DB", str(hostile_db))
    at = open_page(page)
    assert not at.exception
    assert "Report (HTML)" in [button.label for button in at.get("download_button")]  # on the bundled MTBench
    next(box for box in at.selectbox if box.label == "Dataset").set_value(DATASET).run()
    assert not at.exception
    assert "Report (HTML)" in [button.label for button in at.get("download_button")]
    _assert_escaped(at)
    if page == "pairwise_bias.py":
        # the drill-down names the slots and the verdict's winner
        texts = _shown_text(at)
        assert any(t.startswith(f"**Original order**: A = {escape_markdown(BASELINE)}, B = cand") for t in texts)
        verdicts = [t for t in texts if t.startswith("Verdict **")]
        assert verdicts and all(t.endswith(("tie", escape_markdown(BASELINE), *map(escape_markdown, CANDIDATES)))
                                for t in verdicts)
