"""Notes for the model when a sandboxed command ran into the sandbox: a path it could not see
(the hidden home, a secret location, a credential file) or a protected name it could not
create or change.  Read from the command's stderr: the sandbox itself reports nothing."""

from __future__ import annotations

import fnmatch
import os
import re

from cairn.tools.shell.sandbox.spec import SandboxSpec

_PATH = re.compile(r"(?:~|/)[^\s:'\"`,;()\[\]{}<>]+")
_REFUSED = (
    "read-only file system",
    "device or resource busy",
    "permission denied",
    "operation not permitted",
    "is a directory",
    "file exists",
    "not a directory",
    "directory not empty",
)
_MAX_NOTES = 3


def sandbox_notes(spec: SandboxSpec | None, stderr: str, exit_code: int | None) -> list[str]:
    """At most a few lines saying what the sandbox hid or refused, for the command's result."""
    if spec is None or not spec.enabled or not stderr:
        return []
    lines = stderr.splitlines()[-200:]
    notes = _protected(spec, lines)
    if exit_code not in (0, None):
        notes += _hidden(spec, lines)
    return notes[:_MAX_NOTES]


def _protected(spec: SandboxSpec, lines: list[str]) -> list[str]:
    if not spec.writable_roots:
        return []
    root = spec.writable_roots[0]
    refused = [line for line in lines if any(word in line.lower() for word in _REFUSED)]
    found: list[str] = []
    for path in (*spec.read_only_paths, *spec.placeholder_dirs):
        rel = os.path.relpath(path, root) if path.startswith(root.rstrip("/") + "/") else path
        if any(
            path in line or re.search(rf"(^|[\s'\"`/]){re.escape(rel)}($|[\s'\"`:/])", line)
            for line in refused
        ):
            found.append(rel)
    if not found:
        return []
    names = ", ".join(dict.fromkeys(found))
    return [
        f"Note: the sandbox refused to create or change {names}: protected paths stay read-only "
        "(and cannot be created) for sandboxed commands. If the change is needed, say so: a "
        "person must make it, or approve the command to run without the sandbox."
    ]


def _hidden(spec: SandboxSpec, lines: list[str]) -> list[str]:
    home = os.path.realpath(spec.home) if spec.home else None
    shown = (*spec.home_readable, *spec.visible_roots, *spec.writable_roots)
    hidden_home: list[str] = []
    secrets: list[str] = []
    root = spec.visible_roots[0] if spec.visible_roots else None
    for line in lines:
        if root and "permission denied" in line.lower():  # "cat: .env: Permission denied"
            for piece in re.split(r"[:\s'\"`]+", line):
                if (
                    piece
                    and not piece.startswith(("/", "~"))
                    and _is_credential(spec, os.path.join(root, piece))
                ):
                    secrets.append(piece)
        for token in _PATH.findall(line):
            path = os.path.normpath(
                os.path.join(home, token[2:]) if token.startswith("~/") and home else token
            )
            if not os.path.isabs(path):
                continue
            if any(_under(path, h) for h in spec.hidden_paths) or _is_credential(spec, path):
                secrets.append(path)
            elif home and _under(path, home) and path != home and not any(_under(path, s) for s in shown):
                hidden_home.append(_first_level(path, home))
    notes = []
    if hidden_home:
        names = ", ".join(dict.fromkeys(hidden_home))
        notes.append(
            f"Note: {names} is hidden by the sandbox (the home directory is empty inside it, except "
            "toolchains and caches). If the command needs it, the person can add it to "
            '`sandbox_readable = ["..."]` in the settings (read-only inside the sandbox).'
        )
    if secrets:
        names = ", ".join(dict.fromkeys(secrets))
        notes.append(
            f"Note: {names} is a secret location the sandbox hides from commands that run "
            "without a person's approval of that call."
        )
    return notes


def _is_credential(spec: SandboxSpec, path: str) -> bool:
    if spec.person_approved or not any(_under(path, r) for r in spec.visible_roots):
        return False
    name = os.path.basename(path).casefold()
    include = [p.casefold() for p in spec.workspace_secrets if not p.startswith("!")]
    exclude = [p[1:].casefold() for p in spec.workspace_secrets if p.startswith("!")]
    return any(fnmatch.fnmatchcase(name, p) for p in include) and not any(
        fnmatch.fnmatchcase(name, p) for p in exclude
    )


def _first_level(path: str, home: str) -> str:
    """``~/.config/tool`` for ``$HOME/.config/tool/x.json``: what a person would allow."""
    parts = os.path.relpath(path, home).split(os.sep)
    keep = 2 if parts[0] in (".config", ".local", ".cache") and len(parts) > 1 else 1
    return "~/" + "/".join(parts[:keep])


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")
