"""The environment shell commands run with: no secrets, nothing that waits for a person.

A command the model runs can print its environment (``env``, ``printenv``, a failing
test that dumps ``os.environ``) and that text goes to a model provider, so API keys
and tokens are removed before the command starts.  Matching is by exact name or by
``fnmatch`` pattern, case-insensitively.  The patterns lean towards withholding: a
harmless ``*_KEY`` variable lost costs little, a key that reaches a transcript costs a lot.
``SSH_AUTH_SOCK`` is deliberately kept: it is a socket path, not a secret, and without it
``git push`` over ssh fails (commands can *use* the ssh agent, never read its keys).

Removing a variable from a command's environment does not hide it from a command that
reads the agent's own environment (``/proc/$PPID/environ``); :func:`protect_agent_environment`
closes that path for a non-root agent on Linux.

The defaults make interactive programs fail fast instead of hanging until the
timeout: git never prompts for credentials or opens an editor, pagers are ``cat``,
``ssh`` runs in batch mode.  ``CI`` is deliberately *not* set (see docs/shell.md).
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Iterable, Mapping

#: Always withheld (in addition to the patterns below).
SECRET_NAMES: tuple[str, ...] = (
    "SECRET_KEY",  # Django, Flask
    "API_KEY",
    "TOKEN",
    "SECRET",
    "AWS_ACCESS_KEY_ID",  # without its secret the AWS CLI fails ("partial credentials") instead of
    # falling back to ~/.aws profiles, so it goes with it
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "HF_TOKEN",
    "APIKEY",
    "JWT",
    "CREDENTIALS",
    "DATABASE_URL",
    "REDIS_URL",
    "MONGO_URL",
    "AMQP_URL",
    "RABBITMQ_URL",
    "CELERY_BROKER_URL",
    "SENTRY_DSN",
    "NPM_AUTH",
    "PGPASSFILE",
    # cairn's own database: a postgresql:// URL may carry a password, and commands have no
    # business writing to the session store the agent itself runs on.
    "CAIRN_DB",
)

#: Name patterns withheld (fnmatch, case-insensitive).
SECRET_PATTERNS: tuple[str, ...] = (
    "*_KEY",  # *_API_KEY, *_SECRET_KEY, *_PRIVATE_KEY, *_ACCESS_KEY, STRIPE_KEY, ...
    "*_API_KEY*",
    "*SECRET*",
    "*_TOKEN",
    "*PASSWORD*",
    "*PASSWD*",
    "*_PWD",  # MYSQL_PWD (PWD and OLDPWD have no underscore before it)
    "*_URI",  # MONGODB_URI, DATABASE_URI: connection strings carry passwords
    "*_DSN",  # SENTRY_DSN, DB_DSN
    "*DATABASE_URL*",
    "*_DB_URL",
    "*REDIS*URL*",
    "*CONNECTION_STRING*",
    "*CONN_STR*",
    "*WEBHOOK*",  # SLACK_WEBHOOK_URL: posting to it is the secret
    "*APIKEY*",
    "*API_KEY*",
    "*_PAT",  # GITHUB_PAT, AZURE_DEVOPS_PAT
    "*_PAT_*",
    "*JWT*",
    "*COOKIE*",
    "*AUTH*",  # *_AUTH_TOKEN, NPM_AUTH, BASIC_AUTH (AUTHOR and SSH_AUTH_SOCK are kept, below)
    "*CREDENTIAL*",
    "*PASSPHRASE*",
    "*PRIVATE*",
    "*_SALT",
    "*SIGNING*",
)

#: Names kept although a pattern matches: not secrets, and needed (git commits, the ssh agent).
KEEP_NAMES: tuple[str, ...] = ("SSH_AUTH_SOCK", "*AUTHOR*", "XAUTHORITY", "*AUTHORITY*")

#: Set unless the person's environment already sets them (the person knows best).
DEFAULTS_IF_UNSET: dict[str, str] = {
    "GIT_SSH_COMMAND": "ssh -o BatchMode=yes",
    "PIP_NO_INPUT": "1",
    "DEBIAN_FRONTEND": "noninteractive",
}

#: Always set: these are what keep a command from waiting on a terminal that is not there.
FORCED: dict[str, str] = {
    "GIT_TERMINAL_PROMPT": "0",  # git: fail instead of asking for a username/password
    "GCM_INTERACTIVE": "never",  # Git Credential Manager: no dialogs
    "GIT_EDITOR": "true",  # `git commit` without -m aborts instead of opening vim
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "",
    "TERM": "dumb",  # no full-screen UIs, fewer escape sequences
    "NO_COLOR": "1",
    "PYTHONUNBUFFERED": "1",  # Python output streams live to the progress callback
}

#: Variables cairn itself uses to talk to its children; never inherited by commands.
_INTERNAL = ("BASH_ENV", "__CAIRN_CWD_FILE", "__CAIRN_BASH_ENV")


_PR_SET_DUMPABLE = 4
#: ``scheme://user:password@host``: a URL carrying a password, whatever the variable is called.
_PASSWORD_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")


def protect_agent_environment() -> bool:
    """Best effort (Linux): make this process non-dumpable so that commands it starts, which run
    as the same user, cannot read ``/proc/<agent>/environ`` (the agent's own API keys), nor its
    memory or fds.  Also disables core dumps and debugger attach for the agent; root
    (``CAP_SYS_PTRACE``) is not stopped by it.  Returns whether the flag was set."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # loaded when first needed (start-up)

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class SecretFilter:
    """Decides which environment variable names are secrets."""

    def __init__(self, extra_patterns: Iterable[str] = ()) -> None:
        extra_patterns = tuple(extra_patterns)
        self.names = frozenset(n.upper() for n in SECRET_NAMES)
        self.patterns = tuple(p.upper() for p in (*SECRET_PATTERNS, *extra_patterns) if p)
        self.extra = frozenset(p.upper() for p in extra_patterns if p and "*" not in p)
        self._by_name: dict[str, bool] = {}

    def is_secret(self, name: str, value: str | None = None) -> bool:
        """Whether ``name`` (or, when given, ``value``: a URL with a password, as in
        ``HTTPS_PROXY=http://user:pw@proxy``) is a secret."""
        if value is not None and _PASSWORD_URL.search(value):
            return True
        known = self._by_name.get(name)
        if known is None:  # (every command builds its environment: decide each name once)
            if len(self._by_name) > 4096:
                self._by_name.clear()
            known = self._by_name[name] = self._secret_name(name.upper())
        return known

    def _secret_name(self, upper: str) -> bool:
        if upper in self.names:
            return True
        if not any(fnmatch.fnmatchcase(upper, p) for p in self.patterns):
            return False
        return not any(fnmatch.fnmatchcase(upper, p) for p in KEEP_NAMES) or upper in self.extra


def build_env(
    base: Mapping[str, str] | None = None, *, secrets: SecretFilter | None = None, cwd: str | None = None
) -> tuple[dict[str, str], list[str]]:
    """The environment for a command, and the names of the variables withheld as secrets."""
    source = os.environ if base is None else base
    secrets = secrets or SecretFilter()
    env: dict[str, str] = {}
    withheld: list[str] = []
    for name, value in source.items():
        if name in _INTERNAL:
            continue
        if secrets.is_secret(name, value):
            withheld.append(name)
            continue
        env[name] = value
    for name, value in DEFAULTS_IF_UNSET.items():
        env.setdefault(name, value)
    env.update(FORCED)
    if not any(env.get(k) for k in ("LC_ALL", "LC_CTYPE", "LANG")):
        env["LANG"] = "C.UTF-8"  # so tools print UTF-8 (CJK file names) rather than '?'
    if cwd is not None:
        env["PWD"] = cwd
    return env, sorted(withheld)
