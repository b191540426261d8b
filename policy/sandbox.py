"""Which OS sandbox a shell command runs in: the rule, the settings, and the paths it protects.

The rule: every shell command that runs without a person approving that very call runs
sandboxed.

* allowed because it is LOW risk (read-only analysis)            -> ``read-only``
* allowed by a settings allow rule, a session "always" rule,
  accept-edits mode or bypass mode                                -> ``workspace-write``
* asks: a person approves it                                      -> ``workspace-write``
  (unless the person picks "run without sandbox": ``off``)
* denied                                                          -> none
* the user's settings ``sandbox = "off"``                         -> ``off`` (a project file cannot)
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.policy.errors import PolicyConfigError
from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.policy.sandbox_paths import (  # defined there; named here for cairn.graph.core.sandbox_setup
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
    "sandbox_from_tables",
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
            network=verdict.network,
            network_offer=verdict.network_offer,
        )
    return dataclasses.replace(verdict, sandbox=profile)


#: Tools whose unattended calls run in a lane (see ``apply_sandbox``).
_WRITE_TOOLS = frozenset({"edit_file", "write_file"})
_FILE_TOOLS = frozenset({"read_file", "ls", "glob", "grep"}) | _WRITE_TOOLS


@dataclass(frozen=True)
class SandboxSettings:
    """The sandbox keys of the settings files: ``sandbox = "off"``, ``sandbox_hidden_paths``,
    ``sandbox_readable`` (paths under the hidden home shown read-only),
    ``sandbox_max_processes``, and the user's ``[sandbox]`` table: ``allowed_domains`` and
    ``network_hosts`` (network through the egress proxy; never from a project file)."""

    enabled: bool = True
    hidden: tuple[str, ...] = ()
    #: The file that turned the sandbox off (for the loud startup notice).
    off_by: str | None = None
    readable: tuple[str, ...] = ()
    max_processes: int = DEFAULT_MAX_PROCESSES
    #: Domains every command a person or a rule allowed (workspace-write) may reach.
    allowed_domains: tuple[str, ...] = ()
    #: Names pinned to addresses for the egress proxy (an internal mirror on a private address).
    network_hosts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def load_sandbox_settings(
    workspace: str | os.PathLike[str], *, user_config: Path | None = None
) -> SandboxSettings:
    """The sandbox keys of the project's and the user's settings files (for the policy's own
    command; a session gets them from its ``Settings``)."""
    from cairn.settings_files import read_tables

    tables = read_tables(workspace, user_file=user_config)
    return sandbox_from_tables(
        tables.user, tables.project, user_file=str(tables.user_file), project_file=str(tables.project_file)
    )


def sandbox_from_tables(
    user: Mapping[str, object],
    project: Mapping[str, object],
    *,
    user_file: str = "user settings",
    project_file: str = "project settings",
) -> SandboxSettings:
    """The sandbox keys from the user's and the project's tables (pure).

    A project file may only tighten: its ``sandbox = "off"`` and ``sandbox_readable`` are
    ignored (a cloned repository must not turn the sandbox off or unhide home paths), its
    ``sandbox_hidden_paths`` add to the user's, and its ``sandbox_max_processes`` counts only
    when the user's file sets none and it is below the default.
    """
    enabled, off_by = True, None
    hidden: list[str] = []
    readable: list[str] = []
    max_processes = DEFAULT_MAX_PROCESSES
    network: tuple[tuple[str, ...], dict[str, tuple[str, ...]]] = ((), {})
    for path, data, is_user in ((project_file, project, False), (user_file, user, True)):
        value = data.get("sandbox", "on")
        if isinstance(value, dict):  # the [sandbox] table: network keys, read from the user's file
            if is_user:  # never from a project file
                network = _network_settings(path, value)
            value = "off" if value.get("enabled", True) is False else "on"
        if value not in ("on", "off"):
            raise PolicyConfigError(f'{path}: sandbox must be "on" or "off", got {value!r}')
        if value == "off" and is_user:
            enabled, off_by = False, str(path)
        hidden.extend(_paths(data, "sandbox_hidden_paths", path))
        more = _paths(data, "sandbox_readable", path)
        if is_user:
            readable.extend(more)
        if "sandbox_max_processes" in data:
            bound = data["sandbox_max_processes"]
            if isinstance(bound, bool) or not isinstance(bound, int) or bound < 16:
                raise PolicyConfigError(f"{path}: sandbox_max_processes must be an integer >= 16")
            if is_user or bound < max_processes:
                max_processes = bound  # the user's file (read last) wins over the project's
    return SandboxSettings(
        enabled, tuple(hidden), off_by, tuple(readable), max_processes, network[0], network[1]
    )


def _network_settings(path: str, table: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """``allowed_domains`` and ``network_hosts`` of the user's ``[sandbox]`` table, checked."""
    from cairn.tools.shell.netproxy.domains import normalize_domain, normalize_domains

    unknown = sorted(set(table) - {"enabled", "allowed_domains", "network_hosts"})
    if unknown:
        raise PolicyConfigError(f"{path}: unknown key(s) in [sandbox]: {', '.join(unknown)}")
    domains = table.get("allowed_domains", [])
    if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
        raise PolicyConfigError(f"{path}: [sandbox] allowed_domains must be a list of domain names")
    hosts = table.get("network_hosts", {})
    if not isinstance(hosts, dict):
        raise PolicyConfigError(f'{path}: [sandbox] network_hosts must be a table (name = "address")')
    pinned: dict[str, tuple[str, ...]] = {}
    try:
        granted = normalize_domains(domains)
        for name, addresses in hosts.items():
            listed = [addresses] if isinstance(addresses, str) else addresses
            if not isinstance(listed, list) or not listed or not all(_is_address(a) for a in listed):
                raise ValueError(f"network_hosts.{name} must be an IP address or a list of them")
            pinned[normalize_domain(name)] = tuple(listed)
    except ValueError as exc:
        raise PolicyConfigError(f"{path}: [sandbox] {exc}") from None
    return granted, pinned


def _is_address(text: object) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(str(text))
    except ValueError:
        return False
    return isinstance(text, str)


def _paths(data: Mapping[str, object], key: str, path: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise PolicyConfigError(f"{path}: {key} must be a list of paths")
    return list(value)


def sandbox_state(settings: SandboxSettings, backend_available: bool) -> str:
    if not settings.enabled:
        return "off"
    return "on" if backend_available else "unavailable"
