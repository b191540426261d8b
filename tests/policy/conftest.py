"""Fixtures for the policy tests: a fake home directory and a small project workspace.

Every test string is data handed to the policy; nothing here runs a shell.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake ``~`` with an SSH key and a shell rc file, so no test looks at the real home."""
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".ssh" / "id_rsa").write_text("not a real key\n")
    (path / ".bashrc").write_text("# rc\n")
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def ws(workspace: str, home: Path) -> Path:
    """The ``workspace`` fixture with ``src/app.py`` and a ``.git`` directory."""
    root = Path(workspace)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    return root
