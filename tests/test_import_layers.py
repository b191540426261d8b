"""The one-way import rule (docs/architecture.md), checked over the source tree.

Every ``import`` statement counts — module level, inside functions and under
``TYPE_CHECKING`` alike — because a lazy or type-only import that points upward is still a
dependency in the wrong direction.  Two checks:

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
#: The base layer, in cairn/ itself (every layer may import it): the CairnError root, the
#: per-user directories, the settings-file reader and the atomic-write helper.
BASE = ("errors", "userdirs", "settings_files", "atomic")
GRAPH_CORE = (
    "settings",
    "settings_tables",
    "state",
    "context",
    "messages",
    "prompts",
    "rules",
    "call_details",
    "loops",
    "profiles",
    "sandboxing",
    "calllog",
    "call_args",
    "events",
    "tool_selection",
    "agent_reports",
)
#: (module prefix, unit, rank): the longest matching prefix names a module's unit. A unit may
#: import from units of a lower rank only.
LAYERS: list[tuple[str, str, int]] = [
    *((f"cairn.{name}", "base", -1) for name in BASE),  # every layer may import these
    ("cairn.checkpoints", "checkpoints", 0),
    ("cairn.tools", "tools", 0),
    ("cairn.policy", "policy", 1),
    *((f"cairn.graph.{name}", "graph core", 2) for name in GRAPH_CORE),
    ("cairn.graph.models", "models", 2),
    ("cairn.graph.core.cost", "cost", 2),  # issue 34
    ("cairn.graph.core.telemetry", "telemetry", 3),  # issue 34
    ("cairn.graph.core.export", "export", 4),  # issue 34
    ("cairn.graph.display", "display", 3),
    ("cairn.graph.core.compaction", "compaction", 3),
    ("cairn.graph.core.hooks", "hooks", 3),
    ("cairn.graph.nodes", "nodes", 4),
    ("cairn.graph.build", "build", 5),
    ("cairn.graph.session", "session", 6),
    ("cairn.graph.apps.acp", "acp", 6.5),  # ACP hook-in (issue 33): the editor's server, started by the CLI
    ("cairn.graph.apps.notebook", "notebook", 7),
    ("cairn.graph.apps.cli", "cli", 7),
    ("cairn.graph", "graph package", 8),
    ("cairn", "cairn", 9),
]


def source_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package, folder in SOURCE_DIRS.items():
        for path in folder.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if package == "cairn" and parts and parts[0] not in BASE:  # __init__ + the base layer
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


def unit_of(module: str) -> tuple[str, int]:
    best = max(
        (layer for layer in LAYERS if module == layer[0] or module.startswith(layer[0] + ".")),
        key=lambda layer: len(layer[0]),
    )
    return best[1], best[2]


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
    assert unit_of("cairn.graph.nodes.reasoning") == ("nodes", 4)
    assert unit_of("cairn.graph.session.runs")[1] > unit_of("cairn.graph.build")[1]
    assert unit_of("cairn.graph.core.state") == ("graph core", 2)
