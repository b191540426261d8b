"""``suggest_rule``: the narrow, readable rule an "always allow" decision adds.

One scope rule (docs/policy.md, "Always allow"): the same tool doing the same kind of thing.

- A shell command: its program, with its subcommand for tools that have them, and any
  arguments: ``touch a`` -> ``bash(touch:*)``, ``git commit -m x`` -> ``bash(git commit:*)``,
  ``npm run test`` -> ``bash(npm run test:*)``.  Programs that run arbitrary code, delete, move
  or fetch (interpreters, ``rm``, ``mv``, ``sed``, ``curl`` ...), a path to a program
  (``./run.sh``) and a command starting with an option are only ever allowed exactly.
- A shell command that needed approval only for a file it writes (``echo hi > notes.txt``) or
  reads outside the workspace gets no rule (``ValueError``; it is approved once): a bash rule
  never covers files, and a ``write_file`` rule would allow another tool.
- A file tool: the exact path.  ``web_fetch``: the host.  ``memory``/``gitignore``: the action.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from cairn.policy.errors import PolicyConfigError
from cairn.policy.paths import home_dir, resolve_path
from cairn.policy.rules import Rules, parse_rule
from cairn.policy.shell.result import ShellAnalysis
from cairn.policy.table import EDIT_TOOLS, READ_TOOLS, canonical_tool_name
from cairn.policy.vocab import words
from cairn.tools.workspace import Workspace

__all__ = ["always_rule", "suggest_rule"]

_SUBCOMMAND_TOOLS = words(
    """git npm yarn pnpm bun deno cargo go docker podman kubectl helm pip pip3 uv poetry pdm hatch make
    gh dotnet mvn gradle brew apt apt-get terraform rustup conda mix swift composer bundle rake just
    task"""
)
_RUN_WORDS = {"run", "run-script", "exec"}
#: Commands that must only ever be allowed exactly (a prefix would allow arbitrary code or damage).
_EXACT_ONLY = words(
    """sh bash zsh dash ksh fish python python2 python3 node nodejs perl ruby php lua deno bun eval
    exec sudo su doas env xargs rm rmdir mv cp dd chmod chown chgrp curl wget nc ncat socat ssh scp
    rsync find sed awk gawk perl tee source . command builtin nohup timeout nice time watch busybox
    npx pnpx bunx git-shell kill pkill killall ln tar unzip truncate shred"""
)


def always_rule(
    tool_name: str, args: Mapping[str, Any], *, workspace: Workspace | str | os.PathLike[str]
) -> str | None:
    """The rule "always" adds for this call, or None when none fits (the call is approved once).

    A rule that does not parse would break every later routing of the session, so it is
    checked here, while a person is still looking.  Used by the CLI prompt and the node.
    """
    try:
        rule = suggest_rule(tool_name, args, workspace=workspace)
        Rules().with_allow(rule)
    except Exception:
        return None
    return rule


def suggest_rule(
    tool_name: str, args: Mapping[str, Any], *, workspace: Workspace | str | os.PathLike[str]
) -> str:
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    name = canonical_tool_name(tool_name)
    if name == "bash":
        return _bash_rule(str(args.get("command", "")), ws)
    if name in READ_TOOLS or name in EDIT_TOOLS:
        from cairn.policy.filetools import file_path_of

        given = file_path_of(name, args) or "."
        return f"{name}({_path_spec(given, ws)})"
    if name == "web_fetch":
        try:
            host = urlsplit(str(args.get("url", ""))).hostname
        except ValueError:
            host = None
        if not host:
            raise ValueError(f"cannot suggest a rule for the URL {args.get('url')!r}: it has no host")
        return f"web_fetch(domain:{host.lower().rstrip('.')})"
    action = args.get("action")
    if name in ("memory", "gitignore") and isinstance(action, str):
        return f"{name}({action})"
    return name


def _path_spec(given: str, ws: Workspace) -> str:
    info = resolve_path(given, ws)
    if info.inside:
        rel = ws.display(info.path)
        return rel if rel != "." else "./**"
    home = home_dir()
    if info.path.is_relative_to(home):
        return "~/" + str(info.path.relative_to(home))
    return str(info.path)


def _bash_rule(command: str, ws: Workspace) -> str:
    from cairn.policy.shell.analysis import analyse

    analysis = analyse(command, ws)
    tops = [u for u in analysis.units if u.parent is None]
    risky = next((u for u in tops if str(u.risk) != "LOW"), None)
    if risky is None and not analysis.hard_deny and not analysis.fail_closed:
        path = _effect_path(analysis)
        if path:  # `echo hi > notes.txt`, `cat /etc/hosts`: the path is what needs approval
            raise ValueError(
                f"no 'always' rule for {command!r}: it needs approval for the file {path}, and a bash "
                "rule does not cover files (approve it once)"
            )
    unit = risky or (tops[0] if tops else None)
    if unit is None or not unit.argv:
        return _exact(command.split() or [command])
    argv = unit.argv
    name = os.path.basename(argv[0])
    if analysis.hard_deny or (unit.category == "exec" and len(argv) == 1) or analysis.fail_closed:
        return _exact([command.strip()])  # only this exact text: nothing narrower is safe
    if name in _EXACT_ONLY or "/" in argv[0]:
        return _exact(argv)
    if name in _SUBCOMMAND_TOOLS and len(argv) > 1:
        if argv[1].startswith("-") or (argv[1] in _RUN_WORDS and len(argv) == 2):
            return _exact(argv)  # `git -C dir ...`, `npm run` (lists scripts): nothing narrower fits
        return _rule(argv[: 3 if argv[1] in _RUN_WORDS else 2], prefix=True)
    return _rule(argv[:1], prefix=True)


def _effect_path(analysis: ShellAnalysis) -> str | None:
    """The first file read-only commands write, or read outside the workspace (what asks)."""
    for effect in analysis.effects:
        if effect.info is None or (effect.kind == "read" and effect.info.inside):
            continue
        return str(effect.info.path)
    return None


def _rule(words: list[str], prefix: bool) -> str:
    text = "bash(" + " ".join(shlex.quote(w) for w in words) + (":*" if prefix else "") + ")"
    try:
        parse_rule(text)
    except PolicyConfigError:
        return _exact(words)
    return text


def _exact(words: list[str]) -> str:
    return "bash(" + " ".join(shlex.quote(w) for w in words) + ")"
