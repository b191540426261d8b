"""Five small coding tasks for a real small model (bench_small_model.py, the local-model e2e test).

Each task writes its files into a fresh workspace, gives cairn one prompt, and checks the
outcome by the workspace's files or the answer's text.  The checks only read files or run the
task's own little Python scripts (no shell).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Task:
    name: str
    files: dict[str, str]
    prompt: str
    check: Callable[[Path, str], bool]  # (workspace, final answer) -> finished?

    def setup(self, workspace: Path) -> None:
        for rel, text in self.files.items():
            path = workspace / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


def _runs(workspace: Path, script: str, expect_out: str | None = None) -> bool:
    """Does ``python SCRIPT`` exit 0 in the workspace (and print ``expect_out``)?"""
    if not (workspace / script).is_file():
        return False
    proc = subprocess.run(
        [sys.executable, script], cwd=workspace, capture_output=True, text=True, timeout=60, check=False
    )
    return proc.returncode == 0 and (expect_out is None or proc.stdout.strip() == expect_out)


def _first_line(path: Path) -> str:
    try:
        return path.read_text().strip().splitlines()[0].strip()
    except (OSError, IndexError):
        return ""


ANSWER = Task(
    "answer",
    {
        "settings.toml": '[server]\nhost = "0.0.0.0"\nport = 8080\n\n[client]\ntimeout = 30\nmax_retries = 7\n',
        "README.md": "# demo\n\nA tiny service. Settings live in settings.toml.\n",
    },
    "What is the value of max_retries in settings.toml? Answer with the number.",
    lambda ws, answer: "7" in answer,
)

DEFINITION = Task(
    "definition",
    {
        "app/__init__.py": "",
        "app/main.py": "from app.util.timeparse import parse_duration\n\n\ndef run(spec):\n    return parse_duration(spec) * 2\n",
        "app/util/__init__.py": "",
        "app/util/timeparse.py": (
            "UNITS = {'s': 1, 'm': 60, 'h': 3600}\n\n\n"
            "def parse_duration(text):\n    return int(text[:-1]) * UNITS[text[-1]]\n"
        ),
        "app/util/strings.py": "def shout(text):\n    return text.upper()\n",
    },
    "In which file is the function parse_duration defined? Answer with the file path.",
    lambda ws, answer: "timeparse.py" in answer,
)

FIX = Task(
    "fix",
    {
        "calc.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
        "test_calc.py": (
            "from calc import add, mul\n\nassert add(2, 3) == 5, add(2, 3)\nassert mul(2, 3) == 6\nprint('ok')\n"
        ),
    },
    "Running `python test_calc.py` fails. Fix the one-character bug in calc.py so that it passes.",
    lambda ws, answer: _runs(ws, "test_calc.py", "ok"),
)

CREATE = Task(
    "create",
    {"README.md": "# greeter\n"},
    "Create a file hello.py that prints exactly: Hello, cairn!",
    lambda ws, answer: _runs(ws, "hello.py", "Hello, cairn!"),
)

TWO_STEP = Task(
    "two_step",
    {"version.txt": "2.4.1\n", "README.md": "# lib\n\nThe version is in version.txt.\n"},
    "Read version.txt, then create CHANGELOG.md whose first line is '## ' followed by that version.",
    lambda ws, answer: _first_line(ws / "CHANGELOG.md") == "## 2.4.1",
)

TASKS = [ANSWER, DEFINITION, FIX, CREATE, TWO_STEP]
