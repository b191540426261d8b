"""Loading ``corpus.toml`` and setting up the workspace a case needs.

Placeholders in commands and arguments: ``{ws}`` is the workspace root, ``{home}`` the (fake)
home directory.  ``setup`` entries create files, directories and symlinks before the call.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).with_name("corpus.toml")


@dataclass
class Case:
    id: str
    kind: str  # "adversarial" | "benign"
    category: str
    tool: str
    args: dict[str, Any]
    expect: str
    source: str = ""
    note: str = ""
    mode: str = "default"
    rules: dict[str, list[str]] = field(default_factory=dict)
    setup: list[dict[str, str]] = field(default_factory=list)
    reason: str = ""  # a substring the verdict's reason must contain
    dns: dict[str, list[str]] = field(default_factory=dict)
    bypass: str = ""  # the decision a must-refuse case still gets in bypass mode


def load_cases() -> list[Case]:
    data = tomllib.loads(CORPUS.read_text(encoding="utf-8"))
    cases = []
    for raw in data["case"]:
        raw = dict(raw)
        tool = raw.pop("tool", "bash")
        command = raw.pop("command", None)
        args = raw.pop("args", {})
        if command is not None:
            args = {"command": command}
        cases.append(Case(tool=tool, args=dict(args), **raw))
    return cases


def fill(value: Any, ws: Path, home: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{ws}", str(ws)).replace("{home}", str(home))
    if isinstance(value, dict):
        return {k: fill(v, ws, home) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, ws, home) for v in value]
    return value


def prepare(case: Case, ws: Path, home: Path) -> None:
    """Create the files, directories and symlinks the case describes."""
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text("not a real key\n")
    (home / ".bashrc").write_text("# rc\n")
    (ws / "src").mkdir(exist_ok=True)
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (ws / ".git" / "hooks").mkdir(parents=True, exist_ok=True)
    for item in case.setup:
        item = fill(item, ws, home)
        if "dir" in item:
            (ws / item["dir"]).mkdir(parents=True, exist_ok=True)
        if "file" in item:
            path = ws / item["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(item.get("content", ""))
        if "symlink" in item:
            link = ws / item["symlink"]
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(item["target"], link)
