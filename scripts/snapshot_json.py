"""Capture every metric the CLI prints with ``--json`` on a first-launch store, as one JSON file.

The reference for refactors that must leave every bundled figure unchanged: run it before and after, then diff.

    python scripts/snapshot_json.py --db /tmp/store.duckdb --out /tmp/snapshot_before.json

Without ``--db`` a first-launch store (``ensure_store_ready``) is built into a temporary file. Bootstrap seeds are
fixed, so two runs on the same store give the same file, except where a figure is already non-deterministic run to
run (``--compare`` lists every difference). The HTML report is kept with its generation time blanked.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgebias_core.bootstrap import ensure_store_ready  # noqa: E402
from judgebias_core.cli import main  # noqa: E402
from judgebias_core.dataset_groups import DATASET_GROUPS  # noqa: E402
from judgebias_core.metrics.agreement import ENSEMBLE_JUDGE  # noqa: E402
from judgebias_core.metrics.stepwise import TARGETS  # noqa: E402
from judgebias_core.store.handle import Store  # noqa: E402

GATE_THRESHOLD = "0.2"
GENERATED_AT = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")


def run_cli(db: Path, args: list[str]) -> dict[str, Any]:
    """One CLI call in this process: exit code, parsed stdout (JSON when it is), stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["--db", str(db), *args])
        except SystemExit as exit_:  # argparse errors
            code = int(exit_.code or 0)
    text = out.getvalue()
    try:
        stdout: Any = json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        stdout = text
    return {"exit": code, "stdout": stdout, "stderr": err.getvalue()}


def store_scope(db: Path) -> tuple[list[tuple[str, str, str, list[str]]], list[tuple[str, str, str]]]:
    """(dataset, study, kind, judges) of every stored study, and (run_id, dataset, protocol) of every run."""
    with duckdb.connect(str(db), read_only=True) as con:
        studies = con.execute(
            "SELECT dataset_id, study, kind, list(DISTINCT judge ORDER BY judge) FROM judge_calls "
            "GROUP BY ALL ORDER BY ALL").fetchall()
        runs = con.execute("SELECT run_id, dataset_id, protocol FROM runs ORDER BY run_id").fetchall()
        datasets = [row[0] for row in con.execute("SELECT dataset_id FROM datasets ORDER BY dataset_id").fetchall()]
    return [(d, s, k, list(j)) for d, s, k, j in studies], [(r, d, p) for r, d, p in runs] + [
        ("", d, "") for d in datasets]


def preference_labelled(db: Path) -> set[str]:
    """Datasets with human pairwise preferences (where `metrics ppi` estimates a win rate)."""
    with duckdb.connect(str(db), read_only=True) as con:
        return {row[0] for row in con.execute(
            "SELECT DISTINCT dataset_id FROM human_labels WHERE preference IS NOT NULL").fetchall()}


def commands(db: Path, out_dir: Path, exclude: tuple[str, ...] = ()) -> list[list[str]]:
    studies, runs = store_scope(db)
    if exclude:  # datasets whose id starts with an excluded prefix get no per-dataset commands (global ones stay)
        studies = [row for row in studies if not row[0].startswith(exclude)]
        runs = [row for row in runs if not row[1].startswith(exclude)]
    pairwise = [(d, s, j) for d, s, k, j in studies if k == "pairwise"]
    datasets = sorted({d for d, _, _ in pairwise})
    all_datasets = sorted({d for _, d, _ in runs})
    cmds: list[list[str]] = [["datasets", "--json"], ["runs", "--json"]]
    for metric in ("pairwise", "repetition", "listwise"):
        cmds.append(["metrics", metric, "--json"])
        for dataset in datasets:
            cmds.append(["metrics", metric, "--dataset", dataset, "--json"])
        for dataset, study, judges in pairwise:
            cmds.append(["metrics", metric, "--dataset", dataset, "--study", study, "--json"])
            for judge in judges:
                cmds.append(["metrics", metric, "--dataset", dataset, "--study", study, "--judge", judge, "--json"])
    for dataset, study, judges in pairwise:
        if len(judges) > 1:
            cmds.append(["metrics", "pairwise-compare", "--dataset", dataset, "--study", study, "--judge-a", judges[0],
                         "--judge-b", judges[1], "--json"])
        for judge in judges:
            cmds.append(["gate", "--dataset", dataset, "--study", study, "--judge", judge,
                         "--max-flip-rate", GATE_THRESHOLD, "--json"])
        for target in TARGETS:
            for start in ("empty", "full"):
                cmds.append(["analysis", "stepwise", "--dataset", dataset, "--study", study, "--target", target,
                             "--start", start, "--json"])
        cmds.append(["metrics", "agreement", "--dataset", dataset, "--study", study, "--json"])
        cmds.append(["metrics", "agreement", "--dataset", dataset, "--study", study, "--repetition", "1", "--json"])
        cmds.append(["metrics", "verbosity", "--dataset", dataset, "--study", study, "--json"])
        cmds.append(["metrics", "verbosity", "--dataset", dataset, "--study", study, "--cluster", "candidate",
                     "--control", "candidate", "--json"])
        cmds.append(["analysis", "stepwise", "--dataset", dataset, "--study", study, "--target", TARGETS[0],
                     "--weights", "pairs", "--cluster", "candidate", "--json"])
        for judge in [*judges, ENSEMBLE_JUDGE]:
            cmds.append(["metrics", "leaderboard", "--dataset", dataset, "--study", study, "--judge", judge,
                         "--resamples", "300", "--json"])
            cmds.append(["metrics", "calibration", "--dataset", dataset, "--study", study, "--judge", judge,
                         "--json"])
    for dataset in datasets:
        studies_of = [s for d, s, _ in pairwise if d == dataset]
        cmds.append(["metrics", "agreement", "--dataset", dataset,
                     *[a for s in studies_of for a in ("--study", s)], "--json"])
        cmds.append(["metrics", "verbosity", "--dataset", dataset, "--json"])
        first_judges = next(j for d, _, j in pairwise if d == dataset)
        cmds.append(["metrics", "leaderboard", "--dataset", dataset, "--judge", first_judges[0], "--json"])
        cmds.append(["metrics", "calibration", "--dataset", dataset, "--judge", first_judges[0], "--json"])
        if dataset in preference_labelled(db):
            cmds.append(["metrics", "ppi", "--dataset", dataset, "--judge", first_judges[0], "--json"])
    rubric_runs = [(r, d, p) for r, d, p in runs if p.startswith("rubric")]
    repeat = next((r for r, _, p in rubric_runs if p == "rubric-repeat"), None)
    for run_id, dataset, protocol in rubric_runs:
        cmds.append(["metrics", "rubric", "--run-id", run_id, "--json"])
        cmds.append(["metrics", "rubric", "--run-id", run_id, "--resamples", "200", "--seed", "3", "--json"])
        if protocol == "rubric-permutation" and repeat:
            cmds.append(["metrics", "rubric", "--run-id", run_id, "--repeat-run-id", repeat, "--json"])
            cmds.append(["metrics", "rubric", "--run-id", repeat, "--probe-run-id", run_id, "--json"])
        for judge in {j for d, s, k, js in studies if k == "rubric" and d == dataset for j in js}:
            cmds.append(["metrics", "calibration", "--dataset", dataset, "--judge", judge, "--json"])
            cmds.append(["metrics", "calibration", "--dataset", dataset, "--judge", judge, "--study", run_id,
                         "--json"])
            cmds.append(["metrics", "ppi", "--dataset", dataset, "--judge", judge, "--json"])
            cmds.append(["metrics", "ppi", "--dataset", dataset, "--judge", judge, "--study", run_id,
                         "--label-fraction", "0.5", "--seed", "3", "--method", "ppi", "--json"])
        cmds.append(["export", "trials", "--run-id", run_id, "--format", "csv",
                     "--out", str(out_dir / f"{run_id}.csv"), "--json"])
    groups = [g for g, group in DATASET_GROUPS.items() if not any(d.startswith(exclude) for d in group.datasets)]
    for dataset in [*datasets, *groups]:
        cmds.append(["scorecard", "--dataset", dataset, "--json"])
    for dataset in all_datasets:
        cmds.append(["report", "--dataset", dataset, "--out", str(out_dir / f"report-{dataset}.html"), "--json"])
    # Errors are part of the contract too (exit 2, the message).
    cmds.append(["gate", "--dataset", "nope", "--judge", "x", "--max-flip-rate", "0.1", "--json"])
    cmds.append(["metrics", "rubric", "--run-id", "nope", "--json"])
    return cmds


def snapshot(db: Path, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    results: dict[str, Any] = {}
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(tmp)
        for args in commands(db, out_dir, exclude):
            key = " ".join(args).replace(str(out_dir), "<out>")
            started = time.perf_counter()
            results[key] = run_cli(db, args)
            timings[key] = time.perf_counter() - started
        # The temporary folder's name appears in some outputs ("wrote ... to <folder>/x.csv"): blank it.
        results = json.loads(json.dumps(results).replace(str(out_dir), "<out>"))
        files: dict[str, str] = {}
        for file in sorted(out_dir.iterdir()):
            text = file.read_text(encoding="utf-8-sig")
            files[file.name] = GENERATED_AT.sub("<generated_at>", text)
    slowest = sorted(timings.items(), key=lambda kv: -kv[1])[:5]
    for key, seconds in slowest:
        print(f"{seconds:6.2f} s  {key}", file=sys.stderr)
    print(f"{len(results)} commands in {sum(timings.values()):.1f} s", file=sys.stderr)
    return {"commands": results, "files": files}


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    """Every path at which two snapshots differ, with both values (shortened)."""
    if type(before) is not type(after):
        return [f"{where}: {before!r:.80} | {after!r:.80}"]
    if isinstance(before, dict):
        found = [f"{where}/{key}: only in one" for key in sorted(set(before) ^ set(after))]
        for key in sorted(set(before) & set(after)):
            found += differences(before[key], after[key], f"{where}/{key}")
        return found
    if isinstance(before, list):
        if len(before) != len(after):
            return [f"{where}: {len(before)} items | {len(after)} items"]
        return [d for n, (b, a) in enumerate(zip(before, after, strict=True))
                for d in differences(b, a, f"{where}[{n}]")]
    return [] if before == after else [f"{where}: {before!r:.100} | {after!r:.100}"]


def main_cli() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="a store built by ensure_store_ready (default: build one)")
    parser.add_argument("--out", type=Path, help="the JSON file to write")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"),
                        help="print every difference between two snapshot files and exit (1 when any)")
    parser.add_argument("--exclude", action="append", metavar="PREFIX",
                        help="no per-dataset commands for datasets whose id starts with PREFIX (repeatable; e.g. "
                        "llmbar- : its 349 studies would add thousands of commands)")
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(path.read_text(encoding="utf-8")) for path in args.compare)
        found = differences(before, after)
        print("\n".join(found) or "no difference")
        return 1 if found else 0
    if args.out is None:
        parser.error("--out is required unless --compare is given")
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "store.duckdb"
            ensure_store_ready(Store.open(db))
        payload = snapshot(db, tuple(args.exclude or ()))
    args.out.write_text(json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main_cli())
