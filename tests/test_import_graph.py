"""No import circle in judgebias_core, checked on the source.

The graph: one node per module of the package (a package's ``__init__`` is the node named after the package); an
edge for every ``import`` / ``from ... import`` of a judgebias_core module anywhere in a file: at module level,
under ``if TYPE_CHECKING:`` (a circle of annotations is still a circle a reader must untangle) and inside functions
(a lazy import usually hides a circle rather than removing it, so it counts too). ``from pkg import name`` is an
edge to ``pkg.name`` when that is a module, else to ``pkg``. Modules loaded by name at run time
(``judgebias_core/registry.py`` importing the built-in records with ``importlib``) are not edges: the registry
names them as data, and loading them cannot re-enter the module that asked.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "judgebias_core"


def module_name(file: Path, root: Path) -> str:
    parts = list(file.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: set[str],
              package: str) -> set[str]:
    """The package's modules one import statement names."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name.split(".")[0] == package}
    base = node.module or ""
    if node.level:  # relative: from the module's package, one level up per extra dot
        here = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(here[:len(here) - (node.level - 1)] + ([node.module] if node.module else []))
    if base.split(".")[0] != package:
        return set()
    return {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names}


def import_graph(root: Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (see the module docstring for what counts)."""
    files = {module_name(file, root): file for file in sorted((root / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, file in files.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _imported(node, module, file.name == "__init__.py", set(files), package)
        graph[module] = {edge for edge in edges if edge in files and edge != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle (its modules in import order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_judgebias_core_has_no_import_circle() -> None:
    graph = import_graph(ROOT)
    assert len(graph) > 100 and sum(map(len, graph.values())) > 300  # the walk saw the package
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or ())


def test_the_checker_finds_a_circle_in_a_made_up_package(tmp_path: Path) -> None:
    package = tmp_path / "madeup"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from typing import TYPE_CHECKING\n"
                                                 "if TYPE_CHECKING:\n    from madeup.a import A\n")
    (package / "a.py").write_text("def f():\n    from .b import g\n")
    (package / "b.py").write_text("from madeup import sub\nfrom madeup.sub import anything\n")
    (package / "c.py").write_text("import madeup.a\nimport importlib\nimportlib.import_module('madeup.c')\n")
    graph = import_graph(tmp_path, "madeup")
    assert graph["madeup.b"] == {"madeup.sub"}  # a module by name, and a name inside a package
    assert graph["madeup.c"] == {"madeup.a"}  # importlib is no edge
    assert find_cycle(graph) == ["madeup.a", "madeup.b", "madeup.sub", "madeup.a"]
    (package / "sub" / "__init__.py").write_text("")
    assert find_cycle(import_graph(tmp_path, "madeup")) is None


def test_the_judge_client_interface_imports_no_pandas_nor_duckdb() -> None:
    """A judge client, a provider module or a test's fake judge gets its types without the analysis stack."""
    code = ("import sys\nimport judgebias_core.run_types\nimport judgebias_core.judges.base\n"
            "import judgebias_core.providers.keys\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'duckdb', 'numpy', 'scipy'}))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
