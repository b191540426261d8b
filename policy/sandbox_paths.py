"""The paths the OS sandbox hides, shows read-only or protects (``cairn.policy.sandbox`` decides
which profile a command runs in; this module says what each profile keeps from it).
"""

from __future__ import annotations

import functools
import glob
import os
from collections.abc import Mapping
from pathlib import Path

from cairn.policy.path_names import SECRET_FILE_GLOBS, SECRET_FILE_NAMES, SECRET_TEMPLATES
from cairn.policy.paths import cairn_dirs, home_dir

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
    patterns = [*WORKSPACE_CREDENTIALS, *sorted(SECRET_FILE_NAMES), *SECRET_FILE_GLOBS, *extra]
    patterns += [f"!*{suffix}" for suffix in SECRET_TEMPLATES]
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
