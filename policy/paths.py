"""Path checks: which real paths are inside the workspace, protected, sensitive or devices.

Everything is judged on the real path (``..`` collapsed, symlinks followed, through
``cairn.tools.workspace.Workspace``); a few checks also look at the lexical path, because
``/dev/stdout`` resolves to a pipe and deny rules must catch the name a person wrote.

* protected: writing there is refused in every mode (``.git`` internals and hooks,
  ``.cairn/settings*``, shell rc files, ``~/.ssh`` and other credentials, cairn's own state and
  config, agent configs, system directories).
* sensitive to write: inside the workspace but auto-executed by other tools (``.vscode/``,
  ``.envrc``, ``.husky/``...): always asked, even in accept-edits mode.
* sensitive to read: credentials; reading them always asks, and sending them anywhere is refused.
* critical: recursive deletion of these is on the hard-deny list (``/``, top-level system
  directories, home and its ancestors, the workspace root and its ancestors).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from cairn.policy.vocab import words
from cairn.tools.workspace import Workspace

__all__ = [
    "PathInfo",
    "cairn_dirs",
    "critical_reason",
    "device_reason",
    "home_dir",
    "is_neutral_device",
    "protected_reason",
    "resolve_path",
    "sensitive_read_reason",
    "sensitive_write_reason",
]

_HOME_RC = words(
    """.bashrc .bash_profile .bash_login .bash_logout .bash_aliases .profile .zshrc .zshenv .zprofile
    .zlogin .zlogout .kshrc .mkshrc .cshrc .tcshrc .login .logout .inputrc .xprofile .xinitrc
    .xsession .xsessionrc .pam_environment .config/fish .config/environment.d .config/nushell"""
)
_HOME_CREDENTIALS = words(
    """.ssh .aws .gnupg .netrc .git-credentials .gitconfig .config/git .docker .kube .npmrc .yarnrc
    .yarnrc.yml .pypirc .pip .config/pip .config/gh .config/hub .config/gcloud .azure
    .m2/settings.xml .gradle/gradle.properties .cargo/credentials .cargo/credentials.toml
    .terraform.d .vault-token .password-store .local/share/keyrings .config/op
    .claude/.credentials.json"""
)
_HOME_PERSISTENCE = words(
    """.config/autostart .config/systemd Library/LaunchAgents .local/bin bin .config/Code/User .claude
    .codex .gemini .cursor .continue .cline .config/cairn .local/state/cairn .local/share/cairn"""
)
_SENSITIVE_READ = words(
    """.ssh .aws .gnupg .netrc .git-credentials .docker/config.json .kube .npmrc .pypirc .config/gh
    .config/gcloud .azure .cargo/credentials .cargo/credentials.toml
    .terraform.d/credentials.tfrc.json .vault-token .password-store .local/share/keyrings .config/op
    .claude/.credentials.json"""
)
_SYSTEM_READ_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/root")
_SYSTEM_DIRS = words(
    """/etc /usr /bin /sbin /lib /lib32 /lib64 /libx32 /boot /opt /sys /proc /dev /System /Library
    /private/etc /var/spool/cron /var/db /root /snap"""
)
_NEUTRAL_DEVICES = words(
    """/dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/stdin /dev/stdout /dev/stderr
    /dev/tty"""
)
_BLOCK_DEVICE_GLOBS = words(
    """/dev/sd* /dev/hd* /dev/vd* /dev/xvd* /dev/nvme* /dev/mmcblk* /dev/disk* /dev/rdisk*
    /dev/mapper/* /dev/dm-* /dev/md* /dev/loop* /dev/sr* /dev/nbd* /dev/zram* /dev/mem /dev/kmem
    /dev/port /proc/sysrq-trigger /dev/fb*"""
)
#: Inside the workspace: files other tools execute on their own (IDE tasks, direnv, git hook managers).
_AUTO_EXEC_NAMES = words(
    """.vscode .idea .envrc .devcontainer .husky .pre-commit-config.yaml .mcp.json .cursor .claude
    .gemini .codex .clinerules .cairn"""
)


@dataclass(frozen=True)
class PathInfo:
    """A path argument after resolution."""

    given: str
    path: Path  # real path (symlinks followed as far as they exist)
    lexical: Path  # absolute, ``..`` collapsed, symlinks not followed
    inside: bool  # real path is the workspace root or below it


def home_dir() -> Path:
    return Path(os.path.realpath(os.path.expanduser("~")))


def cairn_dirs() -> list[Path]:
    """cairn's own state and config directories: its settings, checkpoints (with session
    rules) and memory notes live there, so the agent may not write them."""
    dirs: list[Path] = []
    cairn_home = os.environ.get("CAIRN_HOME")
    if cairn_home:
        dirs.append(Path(os.path.realpath(os.path.expanduser(cairn_home))))
    try:
        import platformdirs

        for fn in (platformdirs.user_config_dir, platformdirs.user_state_dir, platformdirs.user_data_dir):
            dirs.append(Path(os.path.realpath(fn("cairn"))))
    except Exception:
        pass
    return dirs


def resolve_path(given: str, workspace: Workspace, cwd: Path | None = None) -> PathInfo:
    """Resolve a model-given path against ``cwd`` (default: the workspace root)."""
    base = cwd if cwd is not None else workspace.root
    expanded = os.path.expanduser(given)
    joined = expanded if os.path.isabs(expanded) else os.path.join(base, expanded)
    lexical = Path(os.path.normpath(joined))
    real = Path(os.path.realpath(joined))
    return PathInfo(given=given, path=real, lexical=lexical, inside=workspace.contains(real))


def _under(path: Path, base: Path) -> bool:
    return path == base or path.is_relative_to(base)


def _home_match(path: Path, names: tuple[str, ...] | list[str], home: Path) -> str | None:
    for name in names:
        target = home / name
        if _under(path, target):
            return "~/" + name
    return None


def is_neutral_device(path: Path) -> bool:
    """Devices that are harmless to read or write (``/dev/null``, ``/dev/stdout``, fds...)."""
    text = str(path)
    return text in _NEUTRAL_DEVICES or text.startswith(("/dev/fd/", "/proc/self/fd/", "/dev/pts/"))


def device_reason(path: Path) -> str | None:
    """Why writing ``path`` would damage a disk, memory or the kernel, or ``None``."""
    text = str(path)
    for pattern in _BLOCK_DEVICE_GLOBS:
        if fnmatch.fnmatchcase(text, pattern):
            return f"{text} is a disk, memory or kernel device"
    return None


def protected_reason(info: PathInfo, workspace: Workspace) -> str | None:
    """Why writing this path is refused in every mode, or ``None``."""
    home = home_dir()
    for path in {info.path, info.lexical}:
        if is_neutral_device(path):
            continue
        reason = _protected_one(path, workspace, home)
        if reason:
            return reason
    return None


def _protected_one(path: Path, workspace: Workspace, home: Path) -> str | None:
    root = workspace.root
    if workspace.contains(path):
        rel = path.relative_to(root).parts
        if ".git" in rel:
            return f"{path} is inside a .git directory (git internals, hooks and config run code)"
        if len(rel) >= 2 and rel[0] == ".cairn" and rel[1].startswith("settings"):
            return f"{path} is cairn's project settings (the agent may not change its own permissions)"
        # A workspace inside a system directory (/usr/src/app) is still the workspace.
        return _personal_reason(path, home)
    if _under(root, path) and path != root:
        return f"{path} contains the workspace"
    reason = _personal_reason(path, home)
    if reason:
        return reason
    for base in _SYSTEM_DIRS:
        if _under(path, Path(base)):
            return f"{path} is a system location ({base})"
    return None


def _personal_reason(path: Path, home: Path) -> str | None:
    name = _home_match(path, _HOME_RC, home)
    if name:
        return f"{name} is a shell startup file (runs in every new shell)"
    name = _home_match(path, _HOME_CREDENTIALS, home)
    if name:
        return f"{name} holds credentials or configuration that runs code"
    name = _home_match(path, _HOME_PERSISTENCE, home)
    if name:
        return f"{name} is an autostart, PATH or agent configuration location"
    for base in cairn_dirs():
        if _under(path, base):
            return f"{path} is cairn's own state or configuration"
    return None


def sensitive_write_reason(info: PathInfo, workspace: Workspace) -> str | None:
    """Inside the workspace, but run automatically by other tools: always ask."""
    if not info.inside:
        return None
    rel = info.path.relative_to(workspace.root).parts
    for part in rel:
        if part in _AUTO_EXEC_NAMES:
            return f"{part} is run or loaded automatically by other tools (IDE, direnv, git hooks, agents)"
    return None


def sensitive_read_reason(info: PathInfo) -> str | None:
    """Why reading this path exposes credentials, or ``None``."""
    home = home_dir()
    for path in (info.path, info.lexical):
        name = _home_match(path, _SENSITIVE_READ, home)
        if name:
            return f"{name} holds credentials"
        for base in cairn_dirs():
            if _under(path, base):
                return f"{path} is cairn's state (transcripts, settings)"
        for secret in _SYSTEM_READ_SECRETS:
            if _under(path, Path(secret)) and not _under(home, Path(secret)):
                return f"{secret} holds system secrets"
        text = str(path)
        if text.startswith("/proc/") and text.endswith("/environ"):
            return f"{text} holds a process's environment (API keys)"
    return None


def critical_reason(path: Path, workspace: Workspace) -> str | None:
    """Why recursively deleting, moving or re-permissioning ``path`` is catastrophic."""
    home = home_dir()
    if path == Path("/"):
        return "the filesystem root"
    if len(path.parts) == 2:
        return f"top-level system directory {path}"
    if path == home or _under(home, path):
        return "the home directory" if path == home else f"{path} contains the home directory"
    if path == workspace.root:
        return "the workspace root itself"
    if _under(workspace.root, path):
        return f"{path} contains the workspace"
    return None
