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
import functools
import glob
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.policy.errors import PolicyConfigError
from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.policy.paths import (
    _SECRET_FILE_GLOBS,
    _SECRET_FILE_NAMES,
    _SECRET_TEMPLATES,
    cairn_dirs,
    home_dir,
)
from cairn.tools.shell.sandbox.spec import DEFAULT_MAX_PROCESSES

__all__ = [
    "OFF",
    "READ_ONLY",
    "SANDBOX_STATES",
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

#: Secret locations under the home directory, hidden inside every sandbox.
HIDDEN_IN_HOME = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".docker",
    ".config/gcloud",
    ".netrc",
    ".pypirc",
    ".git-credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".config/gh",
    ".config/hub",
    ".kube",
    ".azure",
    ".vault-token",
    ".password-store",
    ".local/share/keyrings",
    ".config/op",
    ".terraform.d/credentials.tfrc.json",
    ".claude/.credentials.json",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    # Inside the read-only allowlist below, or readable when the home is not hidden.
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",
    ".config/git/credentials",
    ".cargo/.crates2.json",
    ".pgpass",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".config/github-copilot",
)
#: Under the home directory, which every sandbox hides (an empty tmpfs): what tools need to
#: read, shown read-only (toolchains, caches, git's own config).  ``hidden_paths`` are hidden
#: again on top (``~/.cache/huggingface/token``).  Settings ``sandbox_readable`` adds more.
READABLE_IN_HOME = (
    ".cache",
    ".local/lib",
    ".local/bin",
    ".local/share/uv/python",
    ".local/share/pipx",
    ".local/share/pnpm",
    ".local/share/mise",
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".bun/bin",
    ".deno",
    ".asdf",
    ".sdkman/candidates",
    ".npm/_cacache",
    ".yarn/berry/cache",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    "go/pkg/mod",
    ".gitconfig",
    ".config/git",
)
#: Inside the workspace: credential files hidden from commands a person did not approve
#: (``fnmatch`` patterns on the file name, case-folded; ``!`` excludes), on top of the names
#: and patterns whose reads ask (``cairn.policy.paths``), templates excluded.  Not ``id_*``
#: whole: ``id_map.py`` is code; the SSH key names are listed.
WORKSPACE_CREDENTIALS = (
    ".env*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    ".pgpass",
)
#: Directories not searched for workspace credentials and hard links (big, written by tools).
SCAN_SKIP = (
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "site-packages",
    "target",
)
HIDDEN_SYSTEM = ("/etc/shadow", "/etc/gshadow")
#: Inside the workspace: read-only even in workspace-write, when they exist (they run code,
#: or cairn and other agents load them).
READ_ONLY_IN_WORKSPACE = (
    ".git/hooks",
    ".git/config",
    ".git/config.worktree",
    ".git/info",
    ".cairn",
    ".vscode",
    ".idea",
    ".envrc",
    ".devcontainer",
    ".husky",
    ".pre-commit-config.yaml",
    ".mcp.json",
    ".cursor",
    ".claude",
    ".gemini",
    ".codex",
    ".clinerules",
    "AGENTS.md",
    "CONTEXT.md",
)


#: Under the home directory: read-only when a writable root contains the home directory (a
#: workspace that is ~ itself or one of its ancestors): startup files and autostart locations.
READ_ONLY_IN_HOME = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".inputrc",
    ".gitconfig",
    ".config/git",
    ".config/fish",
    ".config/autostart",
    ".config/systemd",
    ".config/environment.d",
    ".local/bin",
    ".local/lib",
    "bin",
    ".pam_environment",
    ".ipython",
    ".pythonrc",
    ".claude",
    ".codex",
    ".gemini",
    ".cursor",
    ".config/Code/User",
)


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


def hidden_paths(extra: tuple[str, ...] = (), *, home: Path | None = None) -> tuple[str, ...]:
    """Absolute secret locations to hide: the built-in list (under ``home``, default the
    person's), cairn's own state, ``extra``."""
    home = home or home_dir()
    paths = [str(home / name) for name in HIDDEN_IN_HOME]
    paths += HIDDEN_SYSTEM
    paths += [str(d) for d in cairn_dirs()]
    paths += [os.path.abspath(os.path.expanduser(p)) for p in extra]
    return tuple(dict.fromkeys(paths))


def readable_in_home(
    extra: tuple[str, ...] = (), *, environ: Mapping[str, str] | None = None, home: Path | None = None
) -> tuple[str, ...]:
    """Absolute paths under the home directory a sandboxed command may read (the home itself is
    hidden): :data:`READABLE_IN_HOME`, the install prefixes under HOME of the programs on
    ``PATH``, the active virtualenv / conda prefix and the interpreter it was made from (read
    from ``environ``, default this process's), and ``extra`` (settings ``sandbox_readable``).
    Missing ones are dropped by the backend."""
    environ = os.environ if environ is None else environ
    home = str(home or home_dir())
    paths = [os.path.join(home, name) for name in READABLE_IN_HOME]
    paths += _toolchain_prefixes(home, environ.get("PATH", ""))
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = environ.get(var)
        if prefix and os.path.isabs(prefix):
            paths += [prefix, *_venv_base(prefix)]
    paths += [os.path.abspath(os.path.expanduser(p)) for p in extra]
    return tuple(dict.fromkeys(p for p in paths if _under(p, home)))


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


@functools.lru_cache(maxsize=8)
def _toolchain_prefixes(home: str, search_path: str) -> tuple[str, ...]:
    """Where the programs on PATH under ``home`` are installed: ``~/go/bin`` -> ``~/go``, a
    pipx shim ``~/.local/bin/x`` -> its venv.  Never ``~`` or ``~/.local`` whole (secrets
    live there): only the bin directory itself then.  Cached per (HOME, PATH)."""
    found: list[str] = []
    for entry in search_path.split(os.pathsep):
        if not entry or not os.path.isabs(entry) or not _under(entry, home) or entry == home:
            continue
        found.append(_prefix_of(entry, home))
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        for name in names[:500]:
            real = os.path.realpath(os.path.join(entry, name))
            if real != os.path.join(entry, name) and _under(real, home):
                prefix = _prefix_of(os.path.dirname(real), home)
                found += [prefix, *_venv_base(prefix)]
    return tuple(dict.fromkeys(found))


def _prefix_of(bin_dir: str, home: str) -> str:
    parent = os.path.dirname(bin_dir)
    if os.path.basename(bin_dir) not in ("bin", "sbin", "shims") or parent in (
        home,
        os.path.join(home, ".local"),
    ):
        return bin_dir
    return parent


def _venv_base(prefix: str) -> list[str]:
    """The installation a virtualenv was made from (``home =`` in its ``pyvenv.cfg``)."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    return [os.path.dirname(value.strip())]
    except OSError:
        pass
    return []


def workspace_secret_patterns(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """File-name patterns of the credential files hidden inside the workspace from commands a
    person did not approve: :data:`WORKSPACE_CREDENTIALS`, the secret names and patterns whose
    reads ask, ``extra``; ``!pattern`` entries exclude (templates such as ``.env.example``)."""
    patterns = [*WORKSPACE_CREDENTIALS, *sorted(_SECRET_FILE_NAMES), *_SECRET_FILE_GLOBS, *extra]
    patterns += [f"!*{suffix}" for suffix in _SECRET_TEMPLATES]
    return tuple(dict.fromkeys(patterns))


def protected_in_workspace(root: str | os.PathLike[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(read_only_paths, placeholder_dirs)`` for a workspace-write sandbox of ``root``."""
    root = os.fspath(root)
    git = os.path.join(root, ".git")
    read_only = [os.path.join(root, name) for name in READ_ONLY_IN_WORKSPACE]
    if os.path.isfile(git):  # a worktree or submodule: the file says where the repository is
        read_only.append(git)
    for sub in glob.glob(os.path.join(glob.escape(git), "modules", "**", "config"), recursive=True):
        read_only.append(sub)
        read_only.append(os.path.join(os.path.dirname(sub), "hooks"))  # protected even when missing
    for sub in glob.glob(os.path.join(glob.escape(git), "modules", "**", "hooks"), recursive=True):
        read_only.append(sub)
    home = str(home_dir())
    if home == root or home.startswith(root.rstrip("/") + "/"):
        read_only += [os.path.join(home, name) for name in READ_ONLY_IN_HOME]
    placeholders = [os.path.join(root, ".cairn")]
    if os.path.isdir(git):
        placeholders.append(os.path.join(git, "hooks"))
    return tuple(dict.fromkeys(read_only)), tuple(placeholders)
