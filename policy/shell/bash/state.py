"""State shared while walking one command string, and small helpers of the walker."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.policy.shell.bash.rewrite import Rewritten
from cairn.policy.shell.bash.words import UNKNOWN, WordExp
from cairn.policy.shell.bash.wordtypes import MAX_CANDIDATES
from cairn.policy.shell.result import ShellAnalysis, StageInfo
from cairn.tools.workspace import Workspace

__all__ = ["MAX_UNITS", "Base", "Ctx", "Cwds", "Shared", "argv_candidates", "short", "union", "walk_parts"]

Cwds = frozenset[Path] | None  # None: the working directory cannot be known
MAX_UNITS = 50
_HEREDOC_TEXT = re.compile(r"<<< __CAIRN_HEREDOC_\d+__")


@dataclass
class Shared:
    """State shared by the walkers of one command string (nested code included)."""

    workspace: Workspace
    result: ShellAnalysis
    env: dict[str, list[str]] = field(default_factory=dict)
    taint: dict[str, str] = field(default_factory=dict)  # variable -> "downloaded"/"decoded"
    functions: set[str] = field(default_factory=set)
    calls: dict[str, set[str]] = field(default_factory=dict)  # function -> functions it calls
    downloaded: set[str] = field(default_factory=set)
    network: list[str] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)
    exported: list[str] = field(default_factory=list)
    fds: dict[str, str] = field(
        default_factory=dict
    )  # file descriptor -> the file opened on it  # NAME=value exported for later commands
    input_vars: set[str] = field(default_factory=set)  # filled from input by read/mapfile/getopts
    arith: list[str] = field(default_factory=list)  # texts evaluated as arithmetic
    units: int = 0
    git_repos: dict[str, str | None] = field(default_factory=dict)
    resolved: dict[tuple[str, Any], Any] = field(
        default_factory=dict
    )  # (word, cwd) -> PathInfo  # start dir -> shipped repo reason
    #: Analyses nested shell code (``bash -c``, ``eval``); set by ``analysis`` so the walker,
    #: which it drives, need not import it back.
    parse_nested: Any = None


@dataclass
class Ctx:
    """Per-command context: what feeds its stdin, and what its wrapper passes down."""

    upstream: list[StageInfo] = field(default_factory=list)
    placeholder: str | None = None  # "{}" in find -exec / xargs -I
    placeholder_paths: list[str] = field(default_factory=list)
    placeholder_critical: bool = False  # the placeholder can be the start point itself (find without tests)
    extra_operands: bool = False  # xargs appends operands from stdin
    stdin_text: str | None = None  # here-doc / here-string body
    stdin_file: str | None = None  # `< file`
    stdin_unknown: bool = False
    source: str = ""


class Base:
    """Attributes the walker mixins share (set in ``Walker.__init__``)."""

    s: Shared
    r: ShellAnalysis
    ws: Workspace
    src: str
    depth: int
    procsubs: dict[str, StageInfo]
    heredocs: list[Any]

    def text(self, node: Any) -> str:
        start, end = node.pos
        return self.src[start:end]

    def __init__(self, shared: Shared, rewritten: Rewritten, depth: int = 0) -> None:
        self.s = shared
        self.r = shared.result
        self.ws = shared.workspace
        self.src = rewritten.text
        self.heredocs = rewritten.heredocs
        self.depth = depth
        self.procsubs = {}


def walk_parts(node: Any) -> Iterator[Any]:
    stack = list(getattr(node, "parts", []) or [])
    while stack:
        part = stack.pop(0)
        yield part
        if part.kind in ("commandsubstitution", "processsubstitution"):
            continue  # their commands are visited separately
        stack.extend(getattr(part, "parts", []) or [])


def union(a: Cwds, b: Cwds) -> Cwds:
    if a is None or b is None:
        return None
    return a | b


def short(text: str, limit: int = 160) -> str:
    text = _HEREDOC_TEXT.sub("<<EOF", " ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def argv_candidates(exps: list[WordExp]) -> list[list[str]]:
    argvs: list[list[str]] = [[]]
    for exp in exps:
        nxt: list[list[str]] = []
        for argv in argvs:
            for fields in exp.values or [[]]:
                candidate = argv + fields
                if candidate not in nxt:
                    nxt.append(candidate)
        if len(nxt) > MAX_CANDIDATES:  # the rest was not checked: one candidate stands for it
            nxt = [*nxt[: MAX_CANDIDATES - 1], [*nxt[MAX_CANDIDATES - 1][:1], UNKNOWN]]
        argvs = nxt
    return argvs
