"""Environment variables that change what a command executes (and the harmless common ones)."""

from __future__ import annotations

import re

from cairn.policy.vocab import words

__all__ = ["dangerous_env", "harmless_env"]

_DANGEROUS = words(
    """PATH LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV PROMPT_COMMAND PS0 PS1 PS2 PS4 SHELLOPTS
    BASHOPTS IFS HOME CDPATH GLOBIGNORE ZDOTDIR PAGER GIT_PAGER MANPAGER MANOPT LESSOPEN LESSCLOSE
    LESS EDITOR VISUAL GIT_EDITOR GIT_SEQUENCE_EDITOR SUDO_ASKPASS SSH_ASKPASS GIT_ASKPASS GIT_SSH
    GIT_SSH_COMMAND GIT_PROXY_COMMAND GIT_EXTERNAL_DIFF GIT_EXEC_PATH GIT_DIR GIT_WORK_TREE
    GIT_TEMPLATE_DIR GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT PYTHONPATH PYTHONSTARTUP PYTHONHOME
    PYTHONWARNINGS PYTHONINSPECT NODE_OPTIONS NODE_PATH PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB
    JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS BROWSER RIPGREP_CONFIG_PATH GREP_OPTIONS
    FZF_DEFAULT_COMMAND TAR_OPTIONS CURL_HOME WGETRC XDG_CONFIG_HOME MAKEFLAGS GNUMAKEFLAGS
    PIP_INDEX_URL PIP_EXTRA_INDEX_URL NPM_CONFIG_REGISTRY CARGO_HOME RUSTC_WRAPPER CC CXX SHELL
    TERMINAL TERMINFO HISTFILE"""
)
_DANGEROUS_PREFIXES = tuple(
    words("LD_ DYLD_ GIT_CONFIG npm_config_ NPM_CONFIG_ BASH_FUNC_ BAT_ LESSKEY GROFF_ MANROFF JQ_ YQ_")
)
#: Any variable naming a pager runs it: PAGER, GIT_PAGER, BAT_PAGER, DELTA_PAGER, AWS_PAGER...
_DANGEROUS_SUFFIXES = ("PAGER", "_EDITOR", "_PROGRAM", "_COMMAND", "_CMD", "_ASKPASS", "_SHELL")
#: Families whose variables point programs at other code, config, catalogs or output files
#: (GIT_TEST_FSMONITOR, GIT_COMMON_DIR, GIT_TRACE=FILE, GCONV_PATH, OPENSSL_CONF, MANPATH …).
_DANGEROUS_FAMILIES = tuple(
    words(
        """GIT_ GCONV_ OPENSSL_ SSL_ MANPATH MANSECT TEXTDOMAIN NLSPATH LOCPATH HOSTALIASES RESOLV_
        LOCALDOMAIN PYTHON PERL RUBY GEM_ BUNDLE_ NODE_ JAVA DOCKER_ KUBECONFIG TERMINFO XDG_ MAGIC WGET
        CURL_ SQLITE PSQLRC MYSQL INPUTRC TMPDIR"""
    )
)
#: Variables that may stand before a command without asking: locale, time zone, colours and
#: terminal size change how output looks, never what a program runs, loads or writes.
_HARMLESS = words(
    """CI NODE_ENV RUST_BACKTRACE RUST_LOG PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE PYTHONIOENCODING
    NO_COLOR FORCE_COLOR CLICOLOR CLICOLOR_FORCE TERM LANG LANGUAGE TZ DEBUG VERBOSE GOOS GOARCH
    CGO_ENABLED COLUMNS LINES GIT_TERMINAL_PROMPT DEBIAN_FRONTEND"""
)
_QUIET_PAGERS = ("cat", "less", "more", "")


def dangerous_env(name: str, value: str | None = None) -> bool:
    """Whether setting ``name`` can make commands run other code or read other config.

    Used for assignments that only reach child processes when the variable is already exported
    (``X=1; cmd``); an assignment *before* a command reaches it for sure and is judged by
    :func:`harmless_env` instead."""
    if harmless_env(name, value):
        return False
    return (
        name in _DANGEROUS
        or name.startswith(_DANGEROUS_PREFIXES + _DANGEROUS_FAMILIES)
        or name.upper().endswith(_DANGEROUS_SUFFIXES)
    )


def harmless_env(name: str, value: str | None = None) -> bool:
    """Whether ``NAME=value cmd`` (or ``env``/``export``) may run without asking: the short list
    above, ``LC_*``, a pager set to ``cat``/``less``/``more``, or ``IFS`` set to plain separators."""
    if name.upper().endswith("PAGER"):
        return value in _QUIET_PAGERS
    if name == "IFS":
        return value in (" \t\n", "\n", "\t", ",", ":", "", " ", ";", "|", "=")
    return name in _HARMLESS or bool(re.fullmatch(r"LC_[A-Z]+", name))
