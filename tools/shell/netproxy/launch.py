"""How a sandbox backend starts a command through the network bridge.

The bridge's source is passed with ``-c`` to the base interpreter (no site, isolated), so the
sandbox needs to see only that interpreter and its standard library, not cairn's install.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

__all__ = ["SOCKET_IN_SANDBOX", "bridge_argv", "interpreter_prefixes"]

#: Where the lane's socket is bound inside the sandbox (its private /tmp: nothing of the host's).
SOCKET_IN_SANDBOX = "/tmp/.cairn-egress.sock"


@functools.cache
def _source() -> str:
    return (Path(__file__).with_name("bridge.py")).read_text(encoding="utf-8")


def interpreter() -> str:
    """The base Python (not a virtualenv's launcher): what the bridge runs on."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base)


def interpreter_prefixes() -> tuple[str, ...]:
    """Directories the sandbox must show for :func:`interpreter` to start (the binary's
    prefix and the standard library's)."""
    return tuple(dict.fromkeys(os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)))


def bridge_argv(socket_path: str = SOCKET_IN_SANDBOX) -> list[str]:
    """The argv that runs the bridge, to be followed by the command's own argv."""
    return [interpreter(), "-I", "-S", "-c", _source(), socket_path, "--"]
