"""Helpers for the deny-by-default bubblewrap tests: commands run through the ``bash`` tool
under the spec the graph builds (``cairn.graph.core.sandbox_setup.build_spec``), with the ``area``
fixture's temporary HOME (under /var/tmp, never /tmp: the sandbox's private /tmp would hide it
and make a probe pass for the wrong reason)."""

from __future__ import annotations

import dataclasses
import time

import pytest

from cairn.graph.core.sandbox_setup import build_spec
from cairn.policy.sandbox import SandboxSettings
from cairn.tools.base import RiskLevel, ToolContext
from cairn.tools.shell.sandbox import detect_backend, placeholders
from tests.shell.sandbox.conftest import Sandboxed


def text(result) -> str:
    out = result.output if isinstance(result.output, str) else ""
    return out + (result.error or "")


class Bwrap(Sandboxed):
    """The ``bash`` tool of one session whose sandboxed commands run under bubblewrap."""

    def spec(
        self, profile: str, *, approved: bool = False, settings: SandboxSettings | None = None, **fields
    ):
        spec = build_spec(profile, self.area.ws, settings or SandboxSettings(), approved=approved)
        return dataclasses.replace(spec, **fields) if fields else spec

    def run(self, command: str, profile: str | None, *, approved: bool = False, settings=None, **fields):
        spec = self.spec(profile, approved=approved, settings=settings, **fields) if profile else None
        return self.bash.execute({"command": command}, ToolContext(risk=RiskLevel.LOW, sandbox=spec))


def settle(timeout: float = 5.0) -> None:
    """Wait until no command holds a placeholder (released by a watcher thread once the sandbox
    has exited), then make sure none is left."""
    end = time.monotonic() + timeout
    while any(placeholders.held().values()) and time.monotonic() < end:
        time.sleep(0.02)
    placeholders.sweep()


def bwrap_tools(area):
    """For a ``bw`` fixture in each test module: ``yield from bwrap_tools(area)``."""
    status = detect_backend("bwrap")
    if not status.available:
        pytest.skip(f"bubblewrap does not work on this machine: {status.problem}")
    tools = Bwrap(area, status)
    yield tools
    tools.close()
    settle()  # the area is deleted next: no placeholder may linger in it
