"""Small coding tasks for a real small model (bench_small_model.py, the local-model e2e test).

``TASKS``: the project's five.  ``NEW_TASKS`` (issue 31): five more of the same everyday kinds
(an answer from a config file, where a function is defined, a one-character fix so a test
passes, a file with given content, read-then-write), written after the harness changes they
measure, so no change was tuned on them.  ``TASK_SETS`` names both.

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


CONFIG_ANSWER = Task(
    "config_port",
    {
        "config/db.ini": "[primary]\nhost = db.internal\nport = 5433\nuser = app\n\n[replica]\nport = 5434\n",
        "config/app.ini": "[web]\nport = 8000\nworkers = 4\n",
        "README.md": "# shop\n\nDatabase settings are in config/db.ini.\n",
    },
    "Which port does the primary database use, according to config/db.ini? Answer with the number.",
    lambda ws, answer: "5433" in answer and "5434" not in answer,
)

CLASS_DEFINITION = Task(
    "where_class",
    {
        "svc/__init__.py": "",
        "svc/api.py": "from svc.net.limits import RateLimiter\n\nLIMIT = RateLimiter(10)\n",
        "svc/net/__init__.py": "",
        "svc/net/limits.py": (
            "import time\n\n\nclass RateLimiter:\n    def __init__(self, per_second):\n"
            "        self.per_second = per_second\n        self.last = time.monotonic()\n"
        ),
        "svc/net/retry.py": "def backoff(n):\n    return min(30, 2 ** n)\n",
        "docs/notes.md": "The API uses a RateLimiter to protect the database.\n",
    },
    "Where is the class RateLimiter defined? Answer with the file path.",
    lambda ws, answer: "limits.py" in answer,
)

FIX_COMPARISON = Task(
    "fix_even",
    {
        "parity.py": "def is_even(n):\n    return n % 2 == 1\n\n\ndef double(n):\n    return n * 2\n",
        "test_parity.py": (
            "from parity import double, is_even\n\n"
            "assert is_even(4) and not is_even(3), (is_even(4), is_even(3))\nassert double(3) == 6\nprint('ok')\n"
        ),
    },
    "`python test_parity.py` fails. Fix the one-character bug in parity.py so that it passes.",
    lambda ws, answer: _runs(ws, "test_parity.py", "ok"),
)

CREATE_LIST = Task(
    "create_list",
    {"README.md": "# palette\n"},
    "Create the file data/colors.txt with exactly three lines: red, green and blue (one per line).",
    lambda ws, answer: _lines(ws / "data" / "colors.txt") == ["red", "green", "blue"],
)

READ_THEN_WRITE = Task(
    "greeting",
    {"owner.txt": "Ada Lovelace\n", "README.md": "# card\n\nThe owner's name is in owner.txt.\n"},
    "Read owner.txt, then create greeting.txt containing one line: Hello, followed by the owner's "
    "name and an exclamation mark (for example: Hello, Grace Hopper!).",
    lambda ws, answer: _first_line(ws / "greeting.txt") == "Hello, Ada Lovelace!",
)


def _lines(path: Path) -> list[str]:
    try:
        return [line.strip() for line in path.read_text().strip().splitlines()]
    except OSError:
        return []


NEW_TASKS = [CONFIG_ANSWER, CLASS_DEFINITION, FIX_COMPARISON, CREATE_LIST, READ_THEN_WRITE]
TASK_SETS = {"project": TASKS, "new": NEW_TASKS}
