"""The layering docs/ARCHITECTURE.md states, checked on the source: metrics are pure, only the store opens DuckDB,
and the store does not reach back into the bundled sources or the first launch."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "judgebias_core"


def _imports(path: Path) -> set[str]:
    """Every module a file imports (top level or inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _offenders(files: list[Path], forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    offenders = {}
    for file in files:
        bad = sorted(m for m in _imports(file) if m.split(".")[0] in forbidden or m.startswith(forbidden))
        if bad:
            offenders[str(file.relative_to(PACKAGE.parent))] = bad
    return offenders


def test_no_metrics_module_imports_the_store_or_duckdb() -> None:
    metrics = sorted((PACKAGE / "metrics").glob("*.py"))
    assert len(metrics) > 10
    assert _offenders(metrics, ("duckdb", "judgebias_core.store")) == {}


def test_only_the_store_imports_duckdb() -> None:
    outside = [f for f in sorted(PACKAGE.rglob("*.py")) if (PACKAGE / "store") not in f.parents]
    assert _offenders(outside, ("duckdb",)) == {}


def test_the_store_does_not_import_the_bundled_sources_or_the_first_launch() -> None:
    store = sorted((PACKAGE / "store").glob("*.py"))
    assert _offenders(store, ("judgebias_core.bootstrap", "judgebias_core.sources", "judgebias_core.analyses",
                              "judgebias_core.metrics")) == {}


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    module = tmp_path / "pretend_metric.py"
    module.write_text("def f():\n    from judgebias_core.store.queries import dataset_summary\n    import duckdb\n")
    assert _imports(module) >= {"judgebias_core.store.queries", "duckdb"}
