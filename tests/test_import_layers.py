"""The one-way import rule (docs/architecture.md), checked over the source tree.

Every ``import`` statement counts — module level, inside functions and under
``TYPE_CHECKING`` alike — because a lazy or type-only import that points upward is still a
dependency in the wrong direction.  The layers are graph/'s folders (``GRAPH_LAYERS`` orders
them).  Three checks:

- every folder of graph/ is a layer (a new one must be placed);
- no import cycle among cairn's modules;
- an import that crosses from one layer unit to another goes strictly down.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where each top-level folder installs (pyproject's package-dir mapping).
SOURCE_DIRS = {
    "cairn": ROOT / "cairn",
    "cairn.graph": ROOT / "graph",
    "cairn.tools": ROOT / "tools",
    "cairn.policy": ROOT / "policy",
    "cairn.checkpoints": ROOT / "checkpoints",
}
#: The lower packages, below everything in graph/ (tools never imports policy).  Below them all,
#: the modules in cairn/ itself other than ``__init__`` (the base layer: every layer may use it).
LOWER = {"cairn.checkpoints": 0, "cairn.tools": 0, "cairn.policy": 1}
BASE_RANK = -1
#: graph/'s layers, lowest first: each is a folder of graph/, except ``build`` (the one module
#: at its root: it wires the nodes into the graph, so it sits above them).  A layer may import
#: only from the layers before it; each application under ``apps/`` is a unit of its own, so
#: the apps never import each other, except that the command line (``LAUNCHER``) may start
#: another (``cairn acp`` runs the editor server).
GRAPH_LAYERS = ("models", "core", "display", "nodes", "build", "session", "apps")
LAUNCHER = "cli"
#: Old public paths kept as one-line aliases at graph/'s root (notebook.py re-exports apps/notebook/).
GRAPH_ALIASES = ("notebook",)
GRAPH_RANK = {name: len(LOWER) + i for i, name in enumerate(GRAPH_LAYERS)}
#: ``cairn.graph`` itself and its aliases, then ``cairn`` (the composition root).
FACE_RANK = len(LOWER) + len(GRAPH_LAYERS)


def source_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package, folder in SOURCE_DIRS.items():
        for path in folder.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if package == "cairn" and len(parts) > 1:  # cairn/__init__.py and the base layer
                continue
            modules[".".join([package, *parts])] = path
    return modules


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[tuple[str, int]]:
    """(imported cairn module, line) for every import statement in the file."""
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("cairn"):
                    yield _nearest(alias.name, known), node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if not base.startswith("cairn"):
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                yield (candidate if candidate in known else _nearest(base, known)), node.lineno


def _nearest(module: str, known: set[str]) -> str:
    while module not in known and "." in module:
        module = module.rsplit(".", 1)[0]
    return module


def unit_of(module: str) -> tuple[str, float]:
    """(unit, rank) of a module, read from where it lives (see ``GRAPH_LAYERS``)."""
    parts = module.split(".")
    if parts == ["cairn"]:
        return "cairn", FACE_RANK + 1
    if parts[:2] != ["cairn", "graph"]:
        top = ".".join(parts[:2])
        return (top.removeprefix("cairn."), LOWER[top]) if top in LOWER else ("base", BASE_RANK)
    if len(parts) == 2 or parts[2] in GRAPH_ALIASES:
        return "graph package", FACE_RANK
    layer = parts[2]
    if layer == "apps" and len(parts) > 3:
        return f"apps.{parts[3]}", GRAPH_RANK[layer] + (0.5 if parts[3] == LAUNCHER else 0)
    return layer, GRAPH_RANK[layer]


def graph_entries() -> set[str]:
    """The folders (with Python modules) and root modules of graph/, ``__init__`` aside."""
    folder = SOURCE_DIRS["cairn.graph"]
    dirs = {
        p.name for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__" and any(p.rglob("*.py"))
    }
    return dirs | {p.stem for p in folder.glob("*.py")} - {"__init__"}


def import_graph() -> dict[str, dict[str, int]]:
    modules = source_modules()
    known = set(modules)
    edges: dict[str, dict[str, int]] = {m: {} for m in modules}
    for name, path in modules.items():
        for target, line in imports_of(name, path, known):
            if target != name and target in known:
                edges[name].setdefault(target, line)
    return edges


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_source_tree_is_found():
    edges = import_graph()
    assert "cairn.graph.session.session" in edges
    assert "cairn.graph.nodes.reasoning" in edges
    assert "cairn.graph.core.state" in edges["cairn.graph.nodes.reasoning"]


def test_every_folder_of_graph_is_a_layer():
    """A new folder (or root module) in graph/ must be given its place in ``GRAPH_LAYERS``."""
    assert graph_entries() == set(GRAPH_LAYERS) | set(GRAPH_ALIASES)
    for alias in GRAPH_ALIASES:  # an alias re-exports, it holds no code of its own
        lines = (SOURCE_DIRS["cairn.graph"] / f"{alias}.py").read_text(encoding="utf-8").splitlines()
        code = [line for line in lines if line.startswith(("from ", "import ", "def ", "class "))]
        assert code and all(line.startswith("from cairn.graph.apps.") for line in code)


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_imports_flow_one_way():
    edges = import_graph()
    wrong = []
    for source, targets in edges.items():
        unit, rank = unit_of(source)
        for target, line in targets.items():
            target_unit, target_rank = unit_of(target)
            if target_unit != unit and target_rank >= rank:
                wrong.append(f"{source}:{line} imports {target} ({unit} -> {target_unit})")
    assert wrong == []


def test_the_checks_catch_a_cycle_and_an_upward_import():
    edges = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert unit_of("cairn.graph.nodes.reasoning") == ("nodes", GRAPH_RANK["nodes"])
    assert unit_of("cairn.graph.core.compaction.view") == ("core", GRAPH_RANK["core"])
    assert (
        unit_of("cairn.graph.session.runs")[1]
        > unit_of("cairn.graph.build")[1]
        > unit_of("cairn.graph.nodes")[1]
    )
    assert (
        unit_of("cairn.graph.core.state")[1]
        > unit_of("cairn.graph.models.factory")[1]
        > unit_of("cairn.policy")[1]
    )
    # the applications are separate units of one rank: cli may not import notebook
    assert unit_of("cairn.graph.apps.notebook") == ("apps.notebook", GRAPH_RANK["apps"])
    assert unit_of("cairn.graph.apps.server") == ("apps.server", GRAPH_RANK["apps"])
    # ... and the command line may start another app (cairn acp), never the other way round
    assert unit_of("cairn.graph.apps.cli.tui.render")[1] > unit_of("cairn.graph.apps.acp.command")[1]
    assert unit_of("cairn.graph.apps.cli")[1] < unit_of("cairn.graph")[1]
    assert unit_of("cairn.graph.apps.server")[1] > unit_of("cairn.graph.session")[1]
    # cairn/ itself: __init__ is the composition root on top, any other module the base below all
    assert unit_of("cairn")[1] > unit_of("cairn.graph")[1]
    assert unit_of("cairn.errors") == ("base", BASE_RANK) and unit_of("cairn.tools")[1] > BASE_RANK
