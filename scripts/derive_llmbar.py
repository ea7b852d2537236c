"""Derive data/llmbar/ (gzipped JSON Lines) from the published LLMBar tarball.

    python scripts/derive_llmbar.py --tarball ../shared/data/llmbar/llmbar_dataset.tar.gz

The tarball holds the repository's Dataset/LLMBar and Dataset/Processed folders (91 MB of JSON). The bundle keeps
only what judgebias reads, every reply verbatim:
- pairs.jsonl.gz: one line per pair of every subset's dataset.json (input, both outputs, the label);
- judgments.jsonl.gz: one line per judge call (judge x strategy x pair x order): the reply text and finish reason,
  the published winner (the authors' parsing, "1"/"2" or null), the published prompt where there is one, the
  strategy's earlier generations (metrics questions, a generated reference; on the original-order line only,
  since both orders share them) and the Rating strategies' two score replies;
- statistics.jsonl.gz: the authors' statistics.json beside each result.json, verbatim.
Reads the tarball's members directly (nothing is unpacked) and writes the files in a stable order, so a rerun
gives the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import tarfile
from pathlib import Path
from typing import Any

OUT_DIR = Path(__file__).resolve().parents[1] / "data" / "llmbar"

# subset folder -> (dataset id, item id prefix, label kind)
SUBSETS: dict[str, tuple[str, str, str]] = {
    "LLMBar/Natural": ("llmbar-natural", "natural", "gold"),
    "LLMBar/Adversarial/Neighbor": ("llmbar-neighbor", "neighbor", "gold"),
    "LLMBar/Adversarial/GPTInst": ("llmbar-gptinst", "gptinst", "gold"),
    "LLMBar/Adversarial/GPTOut": ("llmbar-gptout", "gptout", "gold"),
    "LLMBar/Adversarial/Manual": ("llmbar-manual", "manual", "gold"),
    "Processed/FairEval": ("llmbar-faireval", "faireval", "human"),
    "Processed/LLMEval^2": ("llmbar-llmeval2", "llmeval2", "human"),
    "Processed/MT-Bench": ("llmbar-mtbench", "mtbench", "human"),
}
_RESULT = re.compile(r"^Dataset/(?P<subset>.+)/evaluators/(?P<judge>[^/]+)/(?P<strategy>[^/]+)/result\.json$")
_ORDERS = (("swap = False", "original"), ("swap = True", "swapped"))


def _read_members(tarball: Path) -> dict[str, bytes]:
    """Every JSON file of the tarball in one pass (random access into a gzipped tar rereads it from the start)."""
    with tarfile.open(tarball, mode="r|gz") as archive:
        return {member.name: archive.extractfile(member).read()  # type: ignore[union-attr]
                for member in archive if member.isfile() and member.name.endswith(".json")}


def _json(files: dict[str, bytes], name: str) -> Any:
    if name not in files:
        raise SystemExit(f"{name} is not a file in the tarball")
    return json.loads(files[name].decode("utf-8"))


def _item_id(prefix: str, index: int) -> str:
    return f"{prefix}-{index + 1:03d}"


def _calls(dataset_id: str, prefix: str, judge: str, strategy: str, results: list[dict]) -> list[dict]:
    rows = []
    for index, entry in enumerate(results):
        *generations, final = entry["results"]
        scores = {k: final[k] for k in ("score_1", "score_2") if k in final}
        for key, order in _ORDERS:
            call = final[key]
            completion = call.get("completion")
            rows.append({
                "dataset_id": dataset_id, "item_id": _item_id(prefix, index), "judge": judge, "strategy": strategy,
                "order": order,
                "reply": completion[0] if completion else None,
                "finish_reason": completion[1] if completion and len(completion) > 1 else None,
                "winner": call.get("winner"),
                "prompt": call.get("prompt"),
                "generations": generations if generations and order == "original" else None,
                "scores": scores or None,
            })
    return rows


def derive(tarball: Path, out_dir: Path) -> dict[str, int]:
    pairs: list[dict] = []
    calls: list[dict] = []
    statistics: list[dict] = []
    archive = _read_members(tarball)
    names = sorted(archive)
    for folder, (dataset_id, prefix, label_kind) in SUBSETS.items():
        for index, pair in enumerate(_json(archive, f"Dataset/{folder}/dataset.json")):
            pairs.append({"dataset_id": dataset_id, "item_id": _item_id(prefix, index), "seq": index,
                          "subset": folder.split("/")[-1], "input": pair["input"],
                          "output_1": pair["output_1"], "output_2": pair["output_2"],
                          "label": int(pair["label"]), "label_kind": label_kind})
    for name in names:
        match = _RESULT.match(name)
        if not match:
            continue
        dataset_id, prefix, _ = SUBSETS[match["subset"]]
        results = _json(archive, name)
        calls.extend(_calls(dataset_id, prefix, match["judge"], match["strategy"], results))
        statistics.append({"dataset_id": dataset_id, "judge": match["judge"], "strategy": match["strategy"],
                           "pairs": len(results),
                           "statistics": _json(archive, name.replace("result.json", "statistics.json"))})
    out_dir.mkdir(parents=True, exist_ok=True)
    for file_name, rows in (("pairs", pairs), ("judgments", calls), ("statistics", statistics)):
        # mtime=0: the same input gives the same bytes (the prebuilt manifest digests these files)
        with open(out_dir / f"{file_name}.jsonl.gz", "wb") as raw, \
                gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as handle:
            for row in rows:
                handle.write((json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    return {"pairs": len(pairs), "judgments": len(calls), "statistics": len(statistics)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tarball", type=Path, required=True, help="llmbar_dataset.tar.gz as published")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help=f"output folder (default {OUT_DIR})")
    args = parser.parse_args()
    counts = derive(args.tarball, args.out)
    for name, count in counts.items():
        size = (args.out / f"{name}.jsonl.gz").stat().st_size
        print(f"{name:<11} {count:>7,} lines  {size / 1e6:5.1f} MB")


if __name__ == "__main__":
    main()
