"""Which OS sandbox a shell command runs in: the rule, the settings, and the paths it protects.

The rule: every shell command that runs without a person approving that very call runs
sandboxed.

* allowed because it is LOW risk (read-only analysis)            -> ``read-only``
* allowed by a settings allow rule, a session "always" rule,
  accept-edits mode or bypass mode                                -> ``workspace-write``
* asks: a person approves it                                      -> ``workspace-write``
  (unless the person picks "run without sandbox": ``off``)
* denied                                                          -> none
* settings ``sandbox = "off"``                                    -> ``off`` (today's behaviour)
* no sandbox backend works on the machine: what would run sandboxed without a person asks
  instead, and runs unsandboxed once a person approves it (fail closed).

* the backend works but lacks a guarantee on this machine (``missing_guarantees``, e.g.
  Landlock without libseccomp): what would run unattended in a profile lacking it asks.

Only the ``bash`` tool runs in an OS sandbox.  The file tools allowed without a person get the
profile of their lane (``read-only`` for reads, ``workspace-write`` for writes), which the
policy enforces itself (:mod:`cairn.policy.filetools`); other tools get ``Verdict.sandbox = None``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cairn.policy.errors import PolicyConfigError
from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.policy.sandbox_paths import (  # defined there; named here for cairn.graph.sandboxing
    SCAN_SKIP,
    hidden_paths,
    protected_in_workspace,
    readable_in_home,
    workspace_secret_patterns,
)
from cairn.tools.shell.sandbox.spec import DEFAULT_MAX_PROCESSES

__all__ = [
    "OFF",
    "READ_ONLY",
    "SANDBOX_STATES",
    "SCAN_SKIP",
    "WORKSPACE_WRITE",
    "SandboxSettings",
    "apply_sandbox",
    "hidden_paths",
    "load_sandbox_settings",
    "protected_in_workspace",
    "readable_in_home",
    "sandbox_state",
    "workspace_secret_patterns",
]

READ_ONLY, WORKSPACE_WRITE, OFF = "read-only", "workspace-write", "off"
#: ``on``: a backend works; ``off``: settings turned it off; ``unavailable``: no backend works.
SANDBOX_STATES = ("on", "off", "unavailable")


def apply_sandbox(
    name: str,
    verdict: Verdict,
    mode: str,
    state: str = "on",
    gaps: Mapping[str, Sequence[str]] | None = None,
) -> Verdict:
    """``verdict`` with its ``sandbox`` profile set by the rule above.

    ``gaps``: per profile, the guarantees (``cairn.tools.shell.sandbox.guarantees``) the working
    backend lacks on this machine; a command that would run unattended in such a profile asks
    instead (fail closed, per missing guarantee).  The file tools get the profile of the lane
    they run in when allowed unattended (``read-only`` for reads, ``workspace-write`` for
    writes; :func:`cairn.policy.filetools.bind_to_lane` keeps writes inside it).
    """
    if name in _FILE_TOOLS:
        if verdict.decision != Decision.ALLOW:
            return dataclasses.replace(verdict, sandbox=None)
        return dataclasses.replace(verdict, sandbox=WORKSPACE_WRITE if name in _WRITE_TOOLS else READ_ONLY)
    if name != "bash" or verdict.decision == Decision.DENY:
        return dataclasses.replace(verdict, sandbox=None)
    if state == "off":
        return dataclasses.replace(verdict, sandbox=OFF)
    if verdict.decision == Decision.ASK:
        profile = OFF if state == "unavailable" else WORKSPACE_WRITE
        return dataclasses.replace(verdict, sandbox=profile)
    if verdict.rule is not None or mode == "bypass" or verdict.risk != RiskLevel.LOW:
        profile = WORKSPACE_WRITE  # a rule, bypass, or accept-edits allowed it
    else:
        profile = READ_ONLY
    if state == "unavailable":
        return Verdict(
            Decision.ASK,
            verdict.risk,
            f"no OS sandbox works on this machine, so a person must approve what would have run "
            f"in the {profile} sandbox: {verdict.reason}",
            verdict.rule,
            OFF,
        )
    missing = tuple((gaps or {}).get(profile, ()))
    if missing:
        from cairn.tools.shell.sandbox.guarantees import GUARANTEES

        lacking = "; ".join(GUARANTEES.get(g, g) for g in missing)
        return Verdict(
            Decision.ASK,
            verdict.risk,
            f"the sandbox on this machine does not guarantee ({lacking}), so a person must approve "
            f"what would have run in the {profile} sandbox: {verdict.reason}",
            verdict.rule,
            WORKSPACE_WRITE,
        )
    return dataclasses.replace(verdict, sandbox=profile)


#: Tools whose unattended calls run in a lane (see ``apply_sandbox``).
_WRITE_TOOLS = frozenset({"edit_file", "write_file"})
_FILE_TOOLS = frozenset({"read_file", "ls", "glob", "grep"}) | _WRITE_TOOLS


@dataclass(frozen=True)
class SandboxSettings:
    """The sandbox keys of the settings files: ``sandbox = "off"``, ``sandbox_hidden_paths``,
    ``sandbox_readable`` (paths under the hidden home shown read-only) and
    ``sandbox_max_processes``."""

    enabled: bool = True
    hidden: tuple[str, ...] = ()
    #: The file that turned the sandbox off (for the loud startup notice).
    off_by: str | None = None
    readable: tuple[str, ...] = ()
    max_processes: int = DEFAULT_MAX_PROCESSES


def load_sandbox_settings(
    workspace: str | os.PathLike[str], *, user_config: Path | None = None
) -> SandboxSettings:
    """Read the sandbox keys of the project's and the user's settings files."""
    from cairn.policy.settings import project_settings_path, read_settings, user_settings_path

    enabled, hidden, off_by = True, [], None
    readable: list[str] = []
    max_processes = DEFAULT_MAX_PROCESSES
    for path in (project_settings_path(workspace), user_config or user_settings_path()):
        data = read_settings(Path(path))
        value = data.get("sandbox", "on")
        if value not in ("on", "off"):
            raise PolicyConfigError(f'{path}: sandbox must be "on" or "off", got {value!r}')
        if value == "off":
            enabled, off_by = False, str(path)
        extra = data.get("sandbox_hidden_paths", [])
        if not isinstance(extra, list) or not all(isinstance(p, str) for p in extra):
            raise PolicyConfigError(f"{path}: sandbox_hidden_paths must be a list of paths")
        hidden.extend(extra)
        more = data.get("sandbox_readable", [])
        if not isinstance(more, list) or not all(isinstance(p, str) for p in more):
            raise PolicyConfigError(f"{path}: sandbox_readable must be a list of paths")
        readable.extend(more)
        if "sandbox_max_processes" in data:
            bound = data["sandbox_max_processes"]
            if isinstance(bound, bool) or not isinstance(bound, int) or bound < 16:
                raise PolicyConfigError(f"{path}: sandbox_max_processes must be an integer >= 16")
            max_processes = bound  # the user's file (read last) wins over the project's
    return SandboxSettings(enabled, tuple(hidden), off_by, tuple(readable), max_processes)


def sandbox_state(settings: SandboxSettings, backend_available: bool) -> str:
    if not settings.enabled:
        return "off"
    return "on" if backend_available else "unavailable"
