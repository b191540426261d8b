"""Size limits of the package (issue 29): no module over 400 lines, no function over 80."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The folders installed as the ``cairn`` package (pyproject's ``package-dir``).
PACKAGE_DIRS = ("cairn", "graph", "tools", "policy", "checkpoints")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
#: Modules over the limit that another change of issue 29 splits: path -> who and why.


def package_modules() -> list[Path]:
    return sorted(p for d in PACKAGE_DIRS for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def module_lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def long_functions(path: Path) -> list[tuple[str, int]]:
    """(qualified name, lines from ``def`` to the last line) of every function over the limit."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}."
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (child.end_lineno or child.lineno) - child.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append((name[:-1], length))
            visit(child, name)

    visit(tree, "")
    return found


def test_the_package_is_found():
    names = {rel(p) for p in package_modules()}
    assert "graph/session/session.py" in names and "policy/paths.py" in names
    assert len(names) > 100


def test_no_module_over_the_line_limit():
    over = {rel(p): module_lines(p) for p in package_modules() if module_lines(p) > MAX_MODULE_LINES}
    assert over == {}, f"modules over {MAX_MODULE_LINES} lines: split them by job"


def test_no_function_over_the_line_limit():
    over = {f"{rel(p)}:{name}": n for p in package_modules() for name, n in long_functions(p)}
    assert over == {}, f"functions over {MAX_FUNCTION_LINES} lines: split them into named steps"


def test_the_function_measure_counts_nested_and_methods(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"class A:\n    def long(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n\ndef short():\n    pass\n"
    path = tmp_path / "m.py"
    path.write_text(source)
    assert long_functions(path) == [("A.long", MAX_FUNCTION_LINES + 1)]
