"""The layer table of docs/ARCHITECTURE.md ("Layers and what each may import"), enforced whole on the source.

``LAYERS`` below is that table: every package and top-level module of judgebias_core, app.py, app_pages/ and ui/
is a row (a module named on its own row is judged by its row, not its package's) with its layer and what it may
import. An import counts wherever it is written (module level, under TYPE_CHECKING, inside a function). A new
package or top-level module fails ``test_every_package_has_a_row`` until it is placed; the document's table must be
this one (``test_the_documented_table_is_the_enforced_one``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "judgebias_core"
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
TABLE_HEADING = "## Layers and what each may import"

# Lower layers first; a row may import only rows of its own layer or below.
LAYER_ORDER = ("pure", "store", "domain", "service", "interface")
EXTERNAL = ("duckdb", "streamlit")  # the third-party imports the table places (everything else is free)

# The table: row -> (layer, what it may import). Rows are judgebias_core's packages (``store/``) and top-level modules
# (``models.py``), a few modules placed apart from their package (``store/handle.py``), and the dashboard's
# ``app.py``, ``app_pages/`` and ``ui/``; "may import" names rows and the external modules of ``EXTERNAL``.
_PURE = ("errors.py", "models.py", "text.py", "identity.py", "names.py")
_OPENING = ("store/handle.py", "store/connection.py", "store/failures.py")
_RUN_DOMAIN = ("run_types.py", "prompts/", "protocols/", "protocols/orderings.py", "providers/", "judges/", "parsing/")
LAYERS: dict[str, tuple[str, frozenset[str]]] = {unit: (layer, frozenset(allowed)) for unit, layer, allowed in (
    # pure: no I/O, no store; standard library, numpy, pandas, scipy, statsmodels, pydantic
    ("__init__.py", "pure", ()),
    ("text.py", "pure", ()),
    ("errors.py", "pure", ("text.py",)),
    ("models.py", "pure", ()),
    ("names.py", "pure", ()),
    ("identity.py", "pure", ()),
    ("registry.py", "pure", ("errors.py",)),
    ("explanations.py", "pure", ()),
    ("plain_words.py", "pure", ()),
    ("dataset_groups.py", "pure", ()),
    ("simulated.py", "pure", ()),
    ("access.py", "pure", ("errors.py",)),
    ("prompts/", "pure", ("errors.py", "models.py")),
    ("run_types.py", "pure", ("models.py", "prompts/")),
    ("protocols/orderings.py", "pure", ("errors.py", "run_types.py")),
    ("stats/", "pure", ()),
    ("metrics/", "pure", ("errors.py", "identity.py", "models.py", "stats/", "protocols/orderings.py")),
    # store: the only DuckDB
    ("store/connection.py", "store", ("duckdb", "errors.py")),
    ("store/failures.py", "store", ("duckdb", "errors.py", "store/", "store/connection.py")),
    ("store/handle.py", "store", ("duckdb", "store/", "store/connection.py")),
    ("store/", "store", ("duckdb", "errors.py", "models.py", "text.py", *_OPENING)),
    # domain: what a run is and how a judge is called; charts and wording from results
    ("parsing/", "domain", ("models.py",)),
    ("protocols/", "domain", (*_PURE, "prompts/", "protocols/orderings.py", "providers/", "run_types.py", "store/", "store/handle.py")),
    ("providers/", "domain", ("errors.py", "registry.py", "run_types.py", "judges/", "protocols/", "store/", "store/handle.py",
                              "engine/batch_types.py", "engine/batch_openai.py", "engine/batch_anthropic.py")),
    ("judges/", "domain", ("errors.py", "prompts/", "protocols/", "providers/", "run_types.py", "store/", "store/handle.py")),
    ("engine/batch_types.py", "domain", ("store/",)),
    ("engine/batch_openai.py", "domain", ("engine/batch_types.py", "judges/", "protocols/", "providers/", "store/")),
    ("engine/batch_anthropic.py", "domain", ("engine/batch_types.py", "judges/", "protocols/", "providers/",
                                             "store/")),
    ("charts/", "domain", ("metrics/", "simulated.py")),
    ("wording/", "domain", ("metrics/", "simulated.py", "stats/", "text.py")),
    ("exports.py", "domain", ("charts/", "errors.py")),
    # services: what the interfaces call
    ("engine/", "service", (*_PURE, *_RUN_DOMAIN, "engine/batch_types.py", "store/", "store/handle.py", "store/connection.py")),
    ("sources/", "service", (*_PURE, "registry.py", "parsing/", "protocols/", "store/", "store/connection.py",
                             "store/handle.py")),
    ("analyses/", "service", (*_PURE, "dataset_groups.py", "simulated.py", "engine/", "judges/", "metrics/",
                              "protocols/", "stats/", "store/", "store/handle.py", "wording/")),
    ("report/", "service", ("__init__.py", "analyses/", "charts/", "errors.py", "explanations.py", "metrics/",
                            "models.py", "stats/", "store/handle.py", "topics/", "wording/")),
    ("topics/", "service", ("analyses/", "registry.py", "report/", "store/handle.py")),
    ("demo.py", "service", ("bootstrap.py", "engine/", "errors.py", "protocols/", "store/", "store/handle.py")),
    ("bootstrap.py", "service", ("registry.py", "sources/", "store/", "store/handle.py")),
    # interfaces: the CLI and the dashboard. Pages and ui/ read views from analyses/ and call the services; they
    # never import store queries, metrics or stats (only the store's opening, to open it and name its failures).
    ("cli/", "interface", ("__init__.py", "errors.py", "registry.py", "analyses/", "bootstrap.py", "engine/", "exports.py",
                           "metrics/", "protocols/", "providers/", "report/", "sources/", "stats/", "store/",
                           *_OPENING)),
    ("__main__.py", "interface", ("cli/",)),
    ("app.py", "interface", ("__init__.py", "analyses/", "store/connection.py", "streamlit", "ui/")),
    ("app_pages/", "interface", ("access.py", "analyses/", "charts/", "engine/", "errors.py", "identity.py",
                                 "judges/", "prompts/", "protocols/", "providers/", "report/", "streamlit", "ui/",
                                 "wording/")),
    ("ui/", "interface", ("__init__.py", "access.py", "analyses/", "bootstrap.py", "charts/", "engine/",
                          "errors.py", "explanations.py", "exports.py", "models.py", "names.py", "protocols/",
                          "providers/", "report/", "simulated.py", "sources/", "streamlit", "text.py", "wording/",
                          *_OPENING)),
)}


def _imports(path: Path, modules: dict[str, str] | None = None) -> set[str]:
    """Every module a file names in an import, wherever written; ``from pkg import name`` names ``pkg.name`` when
    that is a module of ``modules``, else ``pkg``."""
    modules = modules or {}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.update(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                         for alias in node.names)
    return found


def _source_files(root: Path = ROOT) -> list[Path]:
    dashboard = [root / "app.py", *sorted((root / "app_pages").glob("*.py")), *sorted((root / "ui").glob("*.py"))]
    return [*sorted((root / "judgebias_core").rglob("*.py")), *(file for file in dashboard if file.exists())]


def unit_of(path: str, rows: set[str]) -> str:
    """The row a file (``judgebias_core/store/handle.py``, ``ui/state.py``, ``app.py``) is judged by."""
    parts = path.split("/")
    if parts[0] != "judgebias_core":
        return path if len(parts) == 1 else parts[0] + "/"
    inner = "/".join(parts[1:])
    return inner if inner in rows or len(parts) == 2 else parts[1] + "/"


def _module_files(root: Path) -> dict[str, str]:
    """Dotted module name -> its file relative to the repository (a package: its __init__.py)."""
    files = {}
    for file in sorted((root / "judgebias_core").rglob("*.py")):
        rel = file.relative_to(root).as_posix()
        dotted = rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        files[dotted] = rel
    return files


def imported_units(file: Path, rows: set[str], root: Path = ROOT) -> dict[str, set[str]]:
    """Row -> the imports of ``file`` that fall on it (the table's external names count as rows)."""
    modules = _module_files(root)
    found: dict[str, set[str]] = {}
    for name in _imports(file, modules):
        top = name.split(".")[0]
        if top in EXTERNAL:
            found.setdefault(top, set()).add(name)
        elif top in ("ui", "app_pages"):
            found.setdefault(top + "/", set()).add(name)
        elif top == "judgebias_core" and name in modules:
            found.setdefault(unit_of(modules[name], rows), set()).add(name)
    return found


def violations(root: Path = ROOT, layers: dict[str, tuple[str, frozenset[str]]] | None = None) -> dict[str, list[str]]:
    """file -> the imports its row does not allow."""
    layers = LAYERS if layers is None else layers
    rows = set(layers)
    bad: dict[str, list[str]] = {}
    for file in _source_files(root):
        rel = file.relative_to(root).as_posix()
        unit = unit_of(rel, rows)
        allowed = layers[unit][1] if unit in layers else frozenset()
        refused = sorted(name for target, names in imported_units(file, rows, root).items()
                         if target != unit and target not in allowed for name in names)
        if refused:
            bad[rel] = refused
    return bad


def _rows_in_the_document() -> dict[str, tuple[str, frozenset[str]]]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split(TABLE_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            names = frozenset(re.findall(r"`([^`]+)`", cells[2]))
            rows[cells[0].strip("`")] = (cells[1], names)
    return rows


def test_the_documented_table_is_the_enforced_one() -> None:
    documented = _rows_in_the_document()
    assert set(documented) == set(LAYERS)
    assert {unit: row for unit, row in documented.items() if row != LAYERS[unit]} == {}


def test_every_package_and_module_has_a_row() -> None:
    """A new package or top-level module fails here until the table places it."""
    rows = set(LAYERS)
    units = {unit_of(file.relative_to(ROOT).as_posix(), rows) for file in _source_files()}
    assert units - rows == set()
    assert {row for row in rows if not (PACKAGE / row).exists() and not (ROOT / row).exists()} == set()
    allowed = set().union(*(names for _, names in LAYERS.values()))
    assert allowed - rows - set(EXTERNAL) == set()


def test_every_row_imports_only_its_layer_or_below() -> None:
    rank = {layer: index for index, layer in enumerate(LAYER_ORDER)}
    upward = {unit: sorted(name for name in names if name in LAYERS and rank[LAYERS[name][0]] > rank[layer])
              for unit, (layer, names) in LAYERS.items()}
    assert {unit: names for unit, names in upward.items() if names} == {}


def test_the_table_keeps_its_promises() -> None:
    """What docs/ARCHITECTURE.md says of the layers, read off the table."""
    pure = {unit for unit, (layer, _) in LAYERS.items() if layer == "pure"}
    assert {"metrics/", "stats/", "models.py", "errors.py", "run_types.py", "registry.py"} <= pure
    assert {unit for unit, (_, names) in LAYERS.items() if "duckdb" in names} == {
        unit for unit in LAYERS if unit.startswith("store/")}
    assert {unit for unit, (_, names) in LAYERS.items() if "streamlit" in names} == {"app.py", "app_pages/", "ui/"}
    for dashboard in ("app.py", "app_pages/", "ui/"):
        assert LAYERS[dashboard][1] & {"store/", "metrics/", "stats/"} == set()
    assert "store/" not in LAYERS["report/"][1]
    assert not any(name.startswith("store/") for name in LAYERS["charts/"][1])


def test_every_import_follows_the_table() -> None:
    found = {file: [name.removeprefix("judgebias_core.") for name in names] for file, names in violations().items()}
    assert found == {}


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    (tmp_path / "judgebias_core" / "metrics").mkdir(parents=True)
    (tmp_path / "judgebias_core" / "store").mkdir()
    for name in ("__init__.py", "metrics/__init__.py", "store/__init__.py", "store/queries.py"):
        (tmp_path / "judgebias_core" / name).write_text("")
    (tmp_path / "judgebias_core" / "metrics" / "pretend.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from judgebias_core.store import queries\n"
        "def f():\n    import duckdb\n    from judgebias_core.metrics import pretend\n")
    layers = {"__init__.py": ("pure", frozenset()), "metrics/": ("pure", frozenset()),
              "store/": ("store", frozenset({"duckdb"}))}
    assert violations(tmp_path, layers) == {"judgebias_core/metrics/pretend.py": ["duckdb",
                                                                                 "judgebias_core.store.queries"]}
