"""Strip outputs from notebooks before they are committed.

    python tests/notebooks/strip.py notebooks/*.ipynb          # clear outputs in place
    python tests/notebooks/strip.py --check notebooks/*.ipynb  # exit 1 if any notebook has outputs

Clears code-cell outputs and execution counts and drops volatile metadata (execution timing,
widget state), so diffs show only what a person wrote.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled")
VOLATILE_NOTEBOOK_METADATA = ("widgets",)


def is_stripped(nb: nbformat.NotebookNode) -> bool:
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if cell.get("outputs") or cell.get("execution_count") is not None:
            return False
        if any(key in cell.metadata for key in VOLATILE_CELL_METADATA):
            return False
    return not any(key in nb.metadata for key in VOLATILE_NOTEBOOK_METADATA)


def strip(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
    for key in VOLATILE_NOTEBOOK_METADATA:
        nb.metadata.pop(key, None)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="only report; exit 1 if any has outputs")
    args = parser.parse_args(argv)
    dirty = []
    for path in args.paths:
        nb = nbformat.read(path, as_version=4)
        if is_stripped(nb):
            continue
        dirty.append(path)
        if not args.check:
            nbformat.write(strip(nb), path)
    verb = "has outputs" if args.check else "stripped"
    for path in dirty:
        print(f"{path}: {verb}", file=sys.stderr if args.check else sys.stdout)
    return 1 if args.check and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
