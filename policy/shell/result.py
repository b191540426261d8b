"""What the shell classifier produces: per-command units, path effects and findings."""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.policy.levels import RiskLevel, max_risk
from cairn.policy.paths import PathInfo

__all__ = ["READ_ONLY_CATEGORIES", "Classified", "PathEffect", "ShellAnalysis", "StageInfo", "Unit", "make"]

#: Categories whose commands change nothing (given their path effects are reads inside the workspace).
READ_ONLY_CATEGORIES = frozenset({"neutral", "search", "read", "list", "silent"})


@dataclass
class Classified:
    """One simple command (argv) as the command table sees it, before paths are resolved."""

    category: str
    risk: RiskLevel
    reason: str
    reads: list[str] = field(default_factory=list)  # words naming paths it reads
    writes: list[str] = field(default_factory=list)  # words naming paths it writes
    destructive: bool = False  # deletes or overwrites in ways an undo cannot restore
    auto_edit: bool = False  # a plain file edit accept-edits mode may allow inside the workspace
    inner: list[str] | None = None  # a wrapped command (sudo CMD, timeout 5 CMD, xargs CMD)
    inner_extra_operands: bool = False  # xargs: the inner command gets operands from stdin
    inner_placeholder: str | None = None  # find -exec: "{}" stands for paths under the start points
    nested_code: list[str] = field(default_factory=list)  # shell code run by bash -c, eval, trap...
    inline_code: list[str] = field(default_factory=list)  # python -c / perl -e code (scanned as text)
    stdin_code: bool = False  # runs stdin as code (sh, bash -s, python -)
    exec_files: list[str] = field(default_factory=list)  # scripts/programs it runs (bash x.sh, ./x)
    download_stdout: bool = False  # writes data from the network to stdout
    download_files: list[str] = field(default_factory=list)  # files it fills with network data
    decoder: bool = False  # stdout is decoded/transformed data (base64 -d, xxd -r, rev)
    literal: str | None = None  # stdout is this literal text (echo/printf)
    lists_paths: bool = False  # stdout lists paths under its (read) operands: find, fd, git ls-files
    network: bool = False
    reverse_shell: bool = False  # nc -e, socat exec:, ...
    cd: str | None = None  # cd/pushd target word ("" = home, None = no change)
    hard_deny: list[str] = field(default_factory=list)
    critical: list[tuple[str, str]] = field(default_factory=list)  # (word, action): rm -r, chmod -R ...
    unknown_operands: bool = False  # operands cannot be known (xargs input, $VAR paths)
    assignments: list[str] = field(default_factory=list)  # NAME=VALUE set for the inner command (env)
    unfiltered: bool = False  # find without tests: -exec/-delete reach every path under the start points
    escalates: bool = False  # an option does more than a prefix rule for the program approves


@dataclass
class StageInfo:
    """What one pipeline stage writes to stdout, for the stages after it."""

    text: str
    download: bool = False
    decoder: bool = False
    literal: str | None = None
    literal_decoded: bool = False  # the literal used printf/echo -e escapes
    lists_inside: bool = False
    network: bool = False
    shell_like: bool = False  # a shell or interpreter
    endless: bool = False  # writes an endless stream (cat /dev/zero, yes)


@dataclass
class PathEffect:
    """A path a command reads or writes, judged against the workspace."""

    kind: str  # "read" | "write"
    given: str
    info: PathInfo | None  # None: the path cannot be known statically
    source: str  # the command text, for reasons
    via_redirect: bool = False
    unit_index: int | None = None


@dataclass
class Unit:
    """One simple command as run (a wrapped command is its own unit with ``parent`` set)."""

    text: str
    argv: list[str]
    category: str
    risk: RiskLevel
    reason: str
    forms: list[str]  # normalized command strings allow rules must match
    deny_forms: list[str]  # broader forms deny/ask rules are matched against
    parent: int | None = None
    auto_edit: bool = False
    destructive: bool = False
    escalated: bool = False  # a read-only command that an option made run programs

    @property
    def read_only(self) -> bool:
        return self.category in READ_ONLY_CATEGORIES and self.risk == RiskLevel.LOW


@dataclass
class ShellAnalysis:
    """Everything the classifier found in one bash command string."""

    command: str
    units: list[Unit] = field(default_factory=list)
    effects: list[PathEffect] = field(default_factory=list)
    hard_deny: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)
    fail_closed: list[str] = field(default_factory=list)
    asks: list[tuple[RiskLevel, str]] = field(default_factory=list)  # findings that always ask
    mentions: list[PathInfo] = field(default_factory=list)  # every path-like word (deny rules)
    cwd_unknown: bool = False

    def add_hard_deny(self, reason: str) -> None:
        if reason not in self.hard_deny:
            self.hard_deny.append(reason)

    def add_fail(self, reason: str) -> None:
        if reason not in self.fail_closed:
            self.fail_closed.append(reason)

    def add_ask(self, risk: RiskLevel, reason: str) -> None:
        if (risk, reason) not in self.asks:
            self.asks.append((risk, reason))

    @property
    def risk(self) -> RiskLevel:
        levels = [u.risk for u in self.units] + [r for r, _ in self.asks]
        return max_risk(*levels)


def make(category: str, risk: RiskLevel, reason: str, **kw: object) -> Classified:
    """A :class:`Classified` (handlers import this as ``_c``)."""
    return Classified(category=category, risk=risk, reason=reason, **kw)  # type: ignore[arg-type]
