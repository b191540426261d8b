"""Interpreters and shells: they run code, so every use asks except a shell's ``-c`` whose
command line is judged as its own commands (``bash -c 'ls src'``).

An interpreter's record names the options whose value is inline code (``runs_with``: ``python
-c``, ``node -e``); its handler (``interp.interpreter``) also knows ``python -m MODULE`` and
scripts.  A shell's handler (``interp.shell``) finds ``-c CODE``, ``--rcfile FILE`` and scripts.
"""

from __future__ import annotations

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.programs.record import Program, program
from cairn.policy.vocab import words

__all__ = ["FAMILY", "PYTHON_MODULES", "RECORDS"]

FAMILY = "interpreter"

#: Interpreters and the options whose value is code (default ``-e`` and ``-c``).  deno and bun
#: are judged as project tools (their records in ``programs/build.py``), not here.
_INLINE = {
    "python": "-c",
    "python2": "-c",
    "python3": "-c",
    "pypy": "-c",
    "pypy3": "-c",
    "node": "-e --eval -p --print",
    "nodejs": "-e --eval -p --print",
    "perl": "-e -E",
    "ruby": "-e",
    "php": "-r",
    "lua": "-e",
    "osascript": "-e",
    "Rscript": "-e",
    "R": "-e",
    "julia": "-e",
    "tclsh": "",
    "irb": "",
}
_OTHERS = """clisp elixir erl gawk-script ghci groovy guile iex jshell kotlin luajit racket sbcl scala
    swift-repl ts-node tsx wish"""
_SHELLS = tuple(
    ["ash", "bash", "busybox-sh", "csh", "dash", "fish", "ksh", "mksh", "rbash", "sh", "tcsh", "yash", "zsh"]
)


#: ``python -m MODULE``: modules that run project code, install, serve, or are standard-library
#: tools (any other module runs as code; ``-m pytest`` is judged as pytest).
PYTHON_MODULES = (
    (
        words("unittest mypy pyflakes pylint ruff black isort flake8 doctest tox nox"),
        "general",
        RiskLevel.MEDIUM,
        "runs project code (tests/linters)",
    ),
    (
        words("pip ensurepip venv pipx poetry uv"),
        "network",
        RiskLevel.HIGH,
        "installs packages or environments",
    ),
    (
        words("http.server SimpleHTTPServer smtpd ftplib telnetlib"),
        "network",
        RiskLevel.HIGH,
        "opens network services",
    ),
    (
        words("json.tool tokenize py_compile compileall site this platform sysconfig"),
        "general",
        RiskLevel.MEDIUM,
        "runs a standard-library tool",
    ),
)


def _interpreter(name: str, inline: str) -> Program:
    code = inline.split()[0] if inline else ""
    return program(
        name,
        runs_with=inline,
        handler="interp.interpreter",
        ask=(f"{name} {code} 1".replace("  ", " "), f"{name} script.x"),
    )


def _shell(name: str) -> Program:
    return program(
        name,
        "shell",
        handler="interp.shell",
        allow=(f"{name} -c 'ls src'",),
        ask=(f"{name} script.sh", f"{name} -c 'rm -r src'"),
    )


RECORDS: tuple[Program, ...] = tuple(
    [_interpreter(n, f) for n, f in _INLINE.items()]
    + [_interpreter(n, "-e -c") for n in _OTHERS.split()]
    + [_shell(n) for n in _SHELLS]
)
