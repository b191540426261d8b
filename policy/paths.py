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
import functools
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from cairn.policy.path_names import (
    AUTO_EXEC_GLOBS,
    AUTO_EXEC_NAMES,
    BLOCK_DEVICE_GLOBS,
    HOME_CREDENTIALS,
    HOME_PERSISTENCE,
    HOME_PERSISTENCE_GLOBS,
    HOME_RC,
    NEUTRAL_DEVICES,
    SECRET_FILE_GLOBS,
    SECRET_FILE_NAMES,
    SECRET_TEMPLATES,
    SENSITIVE_READ,
    SYSTEM_DIRS,
    SYSTEM_READ_SECRETS,
)
from cairn.tools.workspace import Workspace
from cairn.userdirs import cairn_home

__all__ = [
    "PathInfo",
    "cairn_dirs",
    "critical_reason",
    "device_reason",
    "fold",
    "hard_link_reason",
    "home_dir",
    "is_neutral_device",
    "protected_reason",
    "resolve_path",
    "sensitive_read_reason",
    "sensitive_write_reason",
]


@dataclass(frozen=True)
class PathInfo:
    """A path argument after resolution."""

    given: str
    path: Path  # real path (symlinks followed as far as they exist)
    lexical: Path  # absolute, ``..`` collapsed, symlinks not followed
    inside: bool  # real path is the workspace root or below it


def fold(text: str | os.PathLike[str]) -> str:
    """A path compared the way case-insensitive, normalizing file systems see it (macOS, Windows):
    ``.Git/HOOKS`` is ``.git/hooks``, fullwidth and composed letters are their plain forms."""
    return unicodedata.normalize("NFKC", os.fspath(text)).casefold()


def _env_key() -> tuple[str | None, ...]:
    names = ("HOME", "CAIRN_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME")
    return tuple(os.environ.get(n) for n in names)


def home_dir() -> Path:
    return _home_dir(_env_key())


@functools.lru_cache(maxsize=8)
def _home_dir(_key: tuple[str | None, ...]) -> Path:
    # Cached per environment: resolving it for every path word was most of the policy's time.
    return Path(os.path.realpath(os.path.expanduser("~")))


def cairn_dirs() -> list[Path]:
    """cairn's own state and config directories: its settings, checkpoints (with session
    rules) and memory notes live there, so the agent may not write them."""
    return list(_cairn_dirs(_env_key()))


@functools.lru_cache(maxsize=8)
def _cairn_dirs(_key: tuple[str | None, ...]) -> tuple[Path, ...]:
    dirs: list[Path] = []
    home = cairn_home()
    if home is not None:
        dirs.append(Path(os.path.realpath(home)))
    try:
        import platformdirs

        for fn in (platformdirs.user_config_dir, platformdirs.user_state_dir, platformdirs.user_data_dir):
            dirs.append(Path(os.path.realpath(fn("cairn"))))
    except Exception:
        pass
    return tuple(dirs)


def resolve_path(given: str, workspace: Workspace, cwd: Path | None = None) -> PathInfo:
    """Resolve a model-given path against ``cwd`` (default: the workspace root)."""
    base = cwd if cwd is not None else workspace.root
    expanded = os.path.expanduser(given)
    joined = expanded if os.path.isabs(expanded) else os.path.join(base, expanded)
    lexical = Path(os.path.normpath(joined))
    real = Path(os.path.realpath(joined))
    return PathInfo(given=given, path=real, lexical=lexical, inside=workspace.contains(real))


def _under(path: Path, base: Path) -> bool:
    """``path`` is ``base`` or below it, compared case-folded and Unicode-normalized."""
    p, b = fold(path), fold(base)
    return p == b or p.startswith(b.rstrip("/") + "/")


def _home_match(path: Path, names: tuple[str, ...] | list[str], home: Path) -> str | None:
    p, h = fold(path), fold(home).rstrip("/") + "/"
    if not p.startswith(h):
        return None
    rel = p[len(h) :]
    for name in names:
        low = name.casefold()
        if rel == low or rel.startswith(low + "/"):
            return "~/" + name
    return None


def _home_glob(path: Path, globs: tuple[str, ...], home: Path) -> str | None:
    p, h = fold(path), fold(home).rstrip("/") + "/"
    if not p.startswith(h):
        return None
    parts = p[len(h) :].split("/")
    for pattern in globs:
        depth = pattern.count("/") + 1
        if len(parts) >= depth and fnmatch.fnmatchcase("/".join(parts[:depth]), pattern):
            return "~/" + pattern
    return None


def is_neutral_device(path: Path) -> bool:
    """Devices that are harmless to read or write (``/dev/null``, ``/dev/stdout``, fds...)."""
    text = str(path)
    return text in NEUTRAL_DEVICES or text.startswith(("/dev/fd/", "/proc/self/fd/", "/dev/pts/"))


def device_reason(path: Path) -> str | None:
    """Why writing ``path`` would damage a disk, memory or the kernel, or ``None``."""
    text = str(path)
    for pattern in BLOCK_DEVICE_GLOBS:
        if fnmatch.fnmatchcase(text, pattern):
            return f"{text} is a disk, memory or kernel device"
    return None


def protected_reason(info: PathInfo, workspace: Workspace) -> str | None:
    """Why writing this path is refused in every mode, or ``None``."""
    return _protected(info.path, info.lexical, workspace, _env_key())


@functools.lru_cache(maxsize=4096)
def _protected(real: Path, lexical: Path, workspace: Workspace, _key: tuple[str | None, ...]) -> str | None:
    info = PathInfo(given="", path=real, lexical=lexical, inside=False)
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
    rel_text = _relative(path, root)
    if rel_text is not None:
        rel = [fold(part) for part in rel_text.split("/") if part]
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
    for base in SYSTEM_DIRS:
        if _under(path, Path(base)):
            return f"{path} is a system location ({base})"
    return None


def _personal_reason(path: Path, home: Path) -> str | None:
    name = _home_match(path, HOME_RC, home)
    if name:
        return f"{name} is a shell startup file (runs in every new shell)"
    name = _home_match(path, HOME_CREDENTIALS, home)
    if name:
        return f"{name} holds credentials or configuration that runs code"
    name = _home_match(path, HOME_PERSISTENCE, home) or _home_glob(path, HOME_PERSISTENCE_GLOBS, home)
    if name:
        return f"{name} is an autostart, PATH, startup or agent configuration location (runs later)"
    for base in cairn_dirs():
        if _under(path, base):
            return f"{path} is cairn's own state or configuration"
    return None


def _relative(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` (case-folded comparison), or ``None`` when outside."""
    p, r = os.fspath(path), os.fspath(root).rstrip("/")
    if fold(p) == fold(r):
        return ""
    if fold(p).startswith(fold(r) + "/") and len(p) > len(r):
        return p[len(r) + 1 :]
    return None


_AUTO_EXEC_FOLDED = frozenset(n.casefold() for n in AUTO_EXEC_NAMES)


def sensitive_write_reason(info: PathInfo, workspace: Workspace) -> str | None:
    """Inside the workspace, but run later by other tools or loaded into cairn's own prompt
    (AGENTS.md, CONTEXT.md): always ask, even in accept-edits mode."""
    for path in {info.path, info.lexical}:
        rel = _relative(path, workspace.root)
        if not rel:
            continue
        for part in rel.split("/"):
            low = fold(part)
            if low in _AUTO_EXEC_FOLDED or any(fnmatch.fnmatchcase(low, g) for g in AUTO_EXEC_GLOBS):
                return (
                    f"{part} is run or loaded automatically later (by builds, package managers, "
                    "IDEs, direnv, git, other agents, or cairn's own prompt)"
                )
    return None


def _secret_name(name: str) -> bool:
    low = fold(name)
    if low.endswith(SECRET_TEMPLATES):
        return False
    return low in SECRET_FILE_NAMES or any(fnmatch.fnmatchcase(low, g) for g in SECRET_FILE_GLOBS)


def sensitive_read_reason(info: PathInfo) -> str | None:
    """Why reading this path exposes credentials, or ``None``."""
    return _sensitive_read(info.path, info.lexical, _env_key())


@functools.lru_cache(maxsize=4096)
def _sensitive_read(real: Path, lexical: Path, _key: tuple[str | None, ...]) -> str | None:
    # Pure string work on the two paths (home and cairn's dirs are cached per environment),
    # so the answer is cached: the walker and the decision ask it several times per path.
    home = home_dir()
    for path in (real, lexical):
        name = _home_match(path, SENSITIVE_READ, home)
        if name:
            return f"{name} holds credentials"
        if _secret_name(path.name):
            return f"{path.name} is a file that holds credentials or private keys"
        for base in cairn_dirs():
            if _under(path, base):
                return f"{path} is cairn's state (transcripts, settings)"
        for secret in SYSTEM_READ_SECRETS:
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


def hard_link_reason(info: PathInfo) -> str | None:
    """Why writing an existing file with more than one name is unsafe, or ``None``.

    A hard link is the same file under another name: ``ln .git/hooks/pre-commit x`` then
    ``echo … > x`` writes the hook.  Which other names a file has cannot be known cheaply.
    """
    try:
        st = os.lstat(info.path)
    except OSError:
        return None
    import stat as stat_mod

    if stat_mod.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return f"{info.path} has {st.st_nlink} hard links (another name of it may be a protected file)"
    return None
