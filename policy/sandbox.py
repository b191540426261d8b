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

Only the ``bash`` tool runs in a sandbox; other tools get ``Verdict.sandbox = None``.
"""

from __future__ import annotations

import dataclasses
import glob
import os
from dataclasses import dataclass
from pathlib import Path

from cairn.policy.errors import PolicyConfigError
from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.policy.paths import cairn_dirs, home_dir

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
    "sandbox_state",
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


def apply_sandbox(name: str, verdict: Verdict, mode: str, state: str = "on") -> Verdict:
    """``verdict`` with its ``sandbox`` profile set by the rule above (only for ``bash``)."""
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
    return dataclasses.replace(verdict, sandbox=profile)


@dataclass(frozen=True)
class SandboxSettings:
    """``sandbox = "off"`` and ``sandbox_hidden_paths = [...]`` from the settings files."""

    enabled: bool = True
    hidden: tuple[str, ...] = ()
    #: The file that turned the sandbox off (for the loud startup notice).
    off_by: str | None = None


def load_sandbox_settings(
    workspace: str | os.PathLike[str], *, user_config: Path | None = None
) -> SandboxSettings:
    """Read the sandbox keys of the project's and the user's settings files."""
    from cairn.policy.settings import project_settings_path, read_settings, user_settings_path

    enabled, hidden, off_by = True, [], None
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
    return SandboxSettings(enabled, tuple(hidden), off_by)


def sandbox_state(settings: SandboxSettings, backend_available: bool) -> str:
    if not settings.enabled:
        return "off"
    return "on" if backend_available else "unavailable"


def hidden_paths(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Absolute secret locations to hide: the built-in list, cairn's own state, ``extra``."""
    home = home_dir()
    paths = [str(home / name) for name in HIDDEN_IN_HOME]
    paths += HIDDEN_SYSTEM
    paths += [str(d) for d in cairn_dirs()]
    paths += [os.path.abspath(os.path.expanduser(p)) for p in extra]
    return tuple(dict.fromkeys(paths))


def protected_in_workspace(root: str | os.PathLike[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(read_only_paths, placeholder_dirs)`` for a workspace-write sandbox of ``root``."""
    root = os.fspath(root)
    git = os.path.join(root, ".git")
    read_only = [os.path.join(root, name) for name in READ_ONLY_IN_WORKSPACE]
    if os.path.isfile(git):  # a worktree or submodule: the file says where the repository is
        read_only.append(git)
    for sub in glob.glob(os.path.join(glob.escape(git), "modules", "**", "config"), recursive=True):
        read_only.append(sub)
    for sub in glob.glob(os.path.join(glob.escape(git), "modules", "**", "hooks"), recursive=True):
        read_only.append(sub)
    home = str(home_dir())
    if home == root or home.startswith(root.rstrip("/") + "/"):
        read_only += [os.path.join(home, name) for name in READ_ONLY_IN_HOME]
    placeholders = [os.path.join(root, ".cairn")]
    if os.path.isdir(git):
        placeholders.append(os.path.join(git, "hooks"))
    return tuple(read_only), tuple(placeholders)
