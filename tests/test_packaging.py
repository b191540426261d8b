"""cairn installs as one import package, ``cairn``, that nothing in a user's folder can shadow.

- pyproject's explicit package list names every source folder (a forgotten one would be
  missing from the wheel but still work in the editable install);
- run from a folder that holds ``tools.py``, ``graph/``, ``policy.py`` and ``checkpoints/``
  (modules that raise when imported), ``from cairn import Session`` still works and runs;
- a wheel built from the repository holds every source module under ``cairn/`` and runs
  ``cairn demo`` from where it was installed (CI also installs it into a clean venv).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "graph": "cairn.graph",
    "tools": "cairn.tools",
    "policy": "cairn.policy",
    "checkpoints": "cairn.checkpoints",
}
SHADOW = "raise SystemExit('the user folder shadowed cairn: ' + __name__)\n"


def source_packages() -> set[str]:
    found = {"cairn"}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.parent.relative_to(ROOT / folder)
            if "__pycache__" in rel.parts or "demo" in rel.parts:
                continue
            found.add(".".join([package, *rel.parts]))
    return found


def make_shadowing_folder(where: Path) -> Path:
    """A project folder with the names cairn's top-level folders used to install as."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "tools.py").write_text(SHADOW)
    (where / "policy.py").write_text(SHADOW)
    for package in ("graph", "checkpoints"):
        (where / package).mkdir(exist_ok=True)
        (where / package / "__init__.py").write_text(SHADOW)
    (where / "script.json").write_text(
        json.dumps(
            {
                "turns": [
                    {"tool_calls": [{"name": "read_file", "args": {"file_path": "tools.py"}, "id": "c1"}]},
                    {"content": "read it"},
                ]
            }
        )
    )
    return where


def test_pyproject_lists_every_source_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert set(config["packages"]) == source_packages()
    assert config["package-dir"] == {"cairn": "cairn", **{pkg: folder for folder, pkg in FOLDERS.items()}}


def test_a_user_folder_with_the_old_top_level_names_does_not_shadow_cairn(tmp_path):
    folder = make_shadowing_folder(tmp_path / "project")
    code = (
        "from cairn import Session, RunResult, ToolCallInfo, SessionError\n"
        "from cairn.policy import evaluate\n"
        "from cairn.tools import create_default_tools\n"
        "import cairn.tools.base\n"
        "s = Session('.', model='script:script.json', db=':memory:')\n"
        "r = s.send('read tools.py')\n"
        "print(r.status, r.tool_calls[0].status, evaluate('bash', {'command': 'ls'}, workspace='.').decision)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["done", "success", "allow"]


def test_no_source_file_imports_the_old_top_level_names():
    old = ("graph", "tools", "policy", "checkpoints")
    offenders = []
    for path in [*ROOT.glob("*/**/*.py"), *ROOT.glob("notebooks/*.ipynb")]:
        if ".venv" in path.parts or "build" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = line.strip().strip('"').replace("\\n", "")
            starts_old = any(text.startswith((f"import {n}", f"from {n} import", f"from {n}.")) for n in old)
            if starts_old and "demo" not in path.parts:
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {text}")
    assert offenders == []


@pytest.mark.slow
def test_the_wheel_holds_every_module_and_runs_the_demo(tmp_path):
    dist = tmp_path / "dist"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("cairn_agent-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"{FOLDERS[path.relative_to(ROOT).parts[0]].replace('.', '/')}/{'/'.join(path.relative_to(ROOT).parts[1:])}"
        for folder in FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert expected - names == set()
    assert "cairn/__init__.py" in names and "cairn/graph/apps/demo/script.json" in names

    target = tmp_path / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    env = {**os.environ, "PYTHONPATH": str(target), "CAIRN_HOME": str(tmp_path / "home")}
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cairn, cairn.graph; print(cairn.__file__); print(cairn.graph.__file__)",
        ],
        cwd=make_shadowing_folder(tmp_path / "project"),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert where.returncode == 0, where.stderr
    assert all(Path(line).is_relative_to(target) for line in where.stdout.split())
    demo = subprocess.run(
        [sys.executable, "-m", "cairn.graph.apps.cli", "demo"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
