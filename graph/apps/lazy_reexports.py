"""Deferred ``__init__`` for a few third-party packages whose ``__init__`` only re-exports.

``import langgraph`` pulls in two packages a ``cairn`` run never uses unless it traces or talks
to a LangGraph server: ``langsmith.types`` (its ``__init__`` imports ~150 modules defining
~310 pydantic models, because ``langsmith.client`` needs one enum from one of them) and
``langgraph_sdk`` (its ``__init__`` imports the HTTP client, httpx and rich, because
``langgraph.runtime`` needs one protocol class from ``langgraph_sdk.auth.types``).  Together
that was about a quarter of a ``cairn -p`` run's CPU (0.35 s of 1.47 s in paired runs under
load; docs/cli.md, "Start-up").

:func:`install` adds a meta-path finder for exactly the packages in :data:`PACKAGES`.  When such
a package is first imported, the finder reads its ``__init__.py``; if every statement is a
docstring, ``from X import name [as alias]`` or a literal assignment (``__version__``,
``__all__``), the package is created with those literals and a module ``__getattr__``
(PEP 562) that imports a re-exported name's module on first access.  Submodules import as
usual.  Anything else in the ``__init__`` (a star import, a call, a name that is also a
submodule) and the package loads normally: the finder only ever changes *when* a re-export's
module runs, never what a name refers to.

Only the command-line entry points call :func:`install` (no import-time side effects); a
library user's ``import cairn`` is unaffected.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

# No importlib.abc, ast or pathlib up here: `cairn --help` imports this module too (importlib.abc
# alone pulls in importlib.resources and tempfile, ~12 ms).

PACKAGES = frozenset({"langsmith.types", "langgraph_sdk"})

Plan = tuple[dict[str, tuple[str, str]], dict[str, Any]]


def plan_reexports(source: str, package: str, submodules: frozenset[str] = frozenset()) -> Plan | None:
    """``({name: (module, attribute)}, {literal name: value})`` for a re-export-only
    ``__init__``, or None when it does anything else (then the package loads normally).

    ``submodules`` are the names of the package's own modules: a re-exported name equal to
    one of them is refused, since importing that submodule would set the attribute first.
    """
    import ast
    import importlib.util

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    names: dict[str, tuple[str, str]] = {}
    literals: dict[str, Any] = {}
    for index, node in enumerate(tree.body):
        if index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            literals["__doc__"] = node.value.value
        elif isinstance(node, ast.ImportFrom):
            if node.module == "__future__":
                continue
            module = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            if module == package:  # `from . import x`: its own attribute, not a re-export
                return None
            for alias in node.names:
                bound = alias.asname or alias.name
                if alias.name == "*" or bound in submodules or bound in names:
                    return None
                names[bound] = (module, alias.name)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.startswith("__")
        ):
            try:
                literals[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                return None
        else:
            return None
    return names, literals


class _DeferredInit:
    """Runs a package's re-export plan instead of its ``__init__`` code; anything else a loader
    is asked (``get_source`` for tracebacks, ``get_resource_reader``...) goes to the real one."""

    def __init__(self, plan: Plan, real: Any) -> None:
        self.names, self.literals = plan
        self.real = real

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.real, attr)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # the default module, with __path__ and __spec__ set by the import system

    def exec_module(self, module: ModuleType) -> None:
        names = self.names
        module.__dict__.update(self.literals)
        module.__dict__.setdefault("__all__", sorted(names))

        def __getattr__(attr: str) -> Any:
            if attr not in names:
                raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
            # No lock of our own (the import system locks each module; a second lock could
            # deadlock against it): two threads may both resolve a name, to the same value.
            source, original = names[attr]
            owner = importlib.import_module(source)
            try:
                value = getattr(owner, original)
            except AttributeError:  # `from package import submodule`
                value = importlib.import_module(f"{source}.{original}")
            setattr(module, attr, value)
            return value

        def __dir__() -> list[str]:
            return sorted(set(module.__dict__) | set(names))

        module.__getattr__ = __getattr__  # type: ignore[method-assign]
        module.__dir__ = __dir__  # type: ignore[method-assign]


class DeferredReexports:
    """The finder :func:`install` puts first on ``sys.meta_path``."""

    def __init__(self, packages: frozenset[str] = PACKAGES) -> None:
        self.packages = packages

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.packages:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not spec.submodule_search_locations:
            return spec
        if os.path.basename(spec.origin) != "__init__.py":
            return spec
        try:
            with open(spec.origin, encoding="utf-8") as init:
                source = init.read()
        except OSError:
            return spec
        plan = plan_reexports(source, fullname, _submodule_names(spec.submodule_search_locations))
        if plan is not None:
            spec.loader = _DeferredInit(plan, spec.loader)
        return spec


def _submodule_names(locations: Sequence[str]) -> frozenset[str]:
    found: set[str] = set()
    for location in locations:
        try:
            entries = list(os.scandir(location))
        except OSError:
            continue
        for entry in entries:
            stem, suffix = os.path.splitext(entry.name)
            if suffix == ".py" and stem != "__init__":
                found.add(stem)
            elif entry.is_dir() and os.path.exists(os.path.join(entry.path, "__init__.py")):
                found.add(entry.name)
    return frozenset(found)


def install() -> None:
    """Defer the listed packages' re-exports in this process (idempotent; a package already
    imported stays as it is)."""
    if not any(isinstance(finder, DeferredReexports) for finder in sys.meta_path):
        sys.meta_path.insert(0, DeferredReexports())
