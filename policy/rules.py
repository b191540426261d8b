"""Permission rules: ``tool`` or ``tool(specifier)`` strings in allow/ask/deny lists.

Specifiers by tool:

* ``bash(git status)`` exact command; ``bash(npm run test:*)`` that command followed by nothing
  or more arguments; ``*`` elsewhere is a wildcard (``bash(git log *)``).  A bash rule is matched
  against every simple command of a compound command, never against the whole string.  An allow
  rule may grant network by domain to the commands it allows, through the sandbox's egress proxy:
  ``bash(pip install:*; domain:pypi.org,files.pythonhosted.org)``.
* file tools (``read_file``, ``edit_file``, ``write_file``, ``ls``, ``glob``, ``grep``): a path
  pattern, gitignore style: ``src/**`` (workspace-relative), ``~/.ssh/**``, ``/etc/hosts``,
  ``.env`` (no slash: that name at any depth).  Read rules also govern paths shell commands
  read, edit/write rules the paths they write.
* ``web_fetch(domain:docs.python.org)``, ``web_fetch(domain:*.python.org)``.
* ``web_search(provider:tavily)``: searches while that provider is the configured one.
* ``memory(view|add|remove)``, ``gitignore(check|add)``.
* any other tool: the bare name; MCP tool names may use ``*`` (``mcp__github__*``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from cairn.policy.errors import PolicyConfigError
from cairn.policy.levels import RiskLevel
from cairn.policy.table import DEFAULT_TOOL_RISK, PATH_ARG, canonical_tool_name

__all__ = ["Rule", "Rules", "parse_rule"]

_RULE_RE = re.compile(r"^\s*([A-Za-z_*][A-Za-z0-9_.:*-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_DOMAIN_RE = re.compile(r"^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+\.?$|^\[[0-9a-f:.]+\]$|^[0-9.]+$")
_ACTIONS = {"memory": {"view", "add", "remove"}, "gitignore": {"check", "add"}}


@dataclass(frozen=True)
class Rule:
    """One parsed rule.  ``tool`` is canonical; ``specifier`` is ``None`` for a bare tool name."""

    tool: str
    specifier: str | None
    text: str
    #: Domains a bash allow rule grants the commands it allows (``; domain:a,b``).
    domains: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.domains:
            command = self.specifier or "*"
            return f"{self.tool}({command}; domain:{','.join(self.domains)})"
        return self.tool if self.specifier is None else f"{self.tool}({self.specifier})"


def parse_rule(text: str) -> Rule:
    """Parse and validate one rule string; raises ``PolicyConfigError`` saying what is wrong."""
    if not isinstance(text, str):
        raise PolicyConfigError(f"rule must be a string, got {type(text).__name__}: {text!r}")
    if "\x00" in text:
        raise PolicyConfigError(f"rule {text!r} contains a NUL character")
    match = _RULE_RE.match(text)
    if not match:
        raise PolicyConfigError(f"rule {text!r} is not of the form tool or tool(specifier)")
    raw_tool, spec = match.group(1), match.group(2)
    tool = raw_tool if "*" in raw_tool else canonical_tool_name(raw_tool)
    if (
        "*" in raw_tool
        and raw_tool != "*"
        and canonical_tool_name(raw_tool.replace("*", "")) in DEFAULT_TOOL_RISK
    ):
        raise PolicyConfigError(f"rule {text!r}: wildcards in tool names are only for MCP/custom tools")
    domains: tuple[str, ...] = ()
    if spec is not None and tool == "bash":
        spec, domains = _bash_domains(text, spec)
    if spec is not None:
        spec = spec.strip()
        if spec in ("", "*") and tool != "web_fetch":
            spec = None  # bash(*) and bash() mean the bare tool
    if spec is not None:
        spec = _validate_specifier(text, tool, spec)
    return Rule(tool=tool, specifier=spec, text=text, domains=domains)


_BASH_DOMAINS = re.compile(r";\s*domain:([^;]*)$")


def _bash_domains(text: str, spec: str) -> tuple[str, tuple[str, ...]]:
    """``pip install:*; domain:pypi.org,files.pythonhosted.org`` → the command and its domains."""
    match = _BASH_DOMAINS.search(spec)
    if match is None:
        return spec, ()
    from cairn.tools.shell.netproxy.domains import normalize_domains

    names = [name for name in match.group(1).split(",") if name.strip()]
    if not names:
        raise PolicyConfigError(f"rule {text!r}: domain: needs at least one domain name")
    try:
        domains = normalize_domains(names)
    except ValueError as exc:
        raise PolicyConfigError(f"rule {text!r}: {exc}") from None
    return spec[: match.start()], domains


def _validate_specifier(text: str, tool: str, spec: str) -> str:
    if tool == "bash":
        return _validate_bash(text, spec)
    if tool in PATH_ARG:
        if spec.startswith("~") and not (spec == "~" or spec.startswith("~/")):
            raise PolicyConfigError(f"rule {text!r}: only ~/ paths are supported, not ~user")
        return spec
    if tool == "web_fetch":
        if not spec.startswith("domain:"):
            raise PolicyConfigError(
                f"rule {text!r}: web_fetch rules take domain:HOST (e.g. domain:docs.python.org)"
            )
        host = spec[len("domain:") :].strip().lower()
        if not host or not _DOMAIN_RE.match(host):
            raise PolicyConfigError(f"rule {text!r}: {host!r} is not a host name or *.domain pattern")
        return f"domain:{host.rstrip('.')}"
    if tool == "web_search":
        name = spec.removeprefix("provider:").strip().lower()
        if not spec.startswith("provider:") or not re.fullmatch(r"[a-z0-9_-]+", name):
            raise PolicyConfigError(
                f"rule {text!r}: web_search rules take provider:NAME (e.g. provider:tavily)"
            )
        return f"provider:{name}"
    if tool in _ACTIONS:
        if spec not in _ACTIONS[tool]:
            allowed = ", ".join(sorted(_ACTIONS[tool]))
            raise PolicyConfigError(f"rule {text!r}: {tool} specifier must be one of {allowed}")
        return spec
    raise PolicyConfigError(f"rule {text!r}: {tool} takes no specifier; use the bare name {tool!r}")


def _validate_bash(text: str, spec: str) -> str:
    spec = " ".join(spec.split())
    quote = ""
    for i, ch in enumerate(spec):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in ";|&`\n" or spec.startswith("$(", i):
            raise PolicyConfigError(
                f"rule {text!r}: a bash rule matches one simple command; shell operators such as "
                f"{ch!r} are not allowed (write one rule per command)"
            )
    if quote:
        raise PolicyConfigError(f"rule {text!r}: unbalanced quote")
    if ":*" in spec[:-2]:
        raise PolicyConfigError(f"rule {text!r}: ':*' is only allowed at the end (prefix rule)")
    return spec


def _as_tuple(values: Iterable[str] | str | None, name: str) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        raise PolicyConfigError(f"{name} must be a list of rule strings, not a single string {values!r}")
    out: list[str] = []
    for value in values:
        if value not in out:
            out.append(value)
    return tuple(out)


def _as_risk_map(values: Mapping[str, RiskLevel | str] | None) -> Mapping[str, RiskLevel]:
    table: dict[str, RiskLevel] = {}
    for name, level in (values or {}).items():
        try:
            risk = RiskLevel(str(level).upper())
        except ValueError:
            raise PolicyConfigError(
                f"tool_risk for {name!r} must be LOW, MEDIUM or HIGH, got {level!r}"
            ) from None
        table[canonical_tool_name(name)] = risk
    return MappingProxyType(table)


@dataclass(frozen=True)
class Rules:
    """The rules in force for a session: configured lists plus session "always allow" grants.

    Built from settings files by :func:`cairn.policy.load_rules`; invalid rule strings raise
    ``PolicyConfigError`` at construction, so a ``Rules`` object always holds valid rules.
    """

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    tool_risk: Mapping[str, RiskLevel] = field(default_factory=dict, hash=False)
    read_only_tools: frozenset[str] = frozenset()
    #: The web search provider queries go to (user settings / environment), for ``provider:`` rules.
    search_provider: str | None = None
    _parsed: dict[str, tuple[Rule, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "allow", _as_tuple(self.allow, "allow"))
        object.__setattr__(self, "ask", _as_tuple(self.ask, "ask"))
        object.__setattr__(self, "deny", _as_tuple(self.deny, "deny"))
        object.__setattr__(self, "tool_risk", _as_risk_map(self.tool_risk))
        object.__setattr__(
            self, "read_only_tools", frozenset(canonical_tool_name(t) for t in self.read_only_tools)
        )
        parsed = {}
        for kind in ("allow", "ask", "deny"):
            rules = []
            for text in getattr(self, kind):
                try:
                    rule = parse_rule(text)
                except PolicyConfigError as exc:
                    raise PolicyConfigError(f"invalid {kind} rule: {exc}") from None
                if rule.domains and kind != "allow":
                    raise PolicyConfigError(
                        f"invalid {kind} rule: {text!r}: domain: grants network, so it belongs in allow rules"
                    )
                rules.append(rule)
            parsed[kind] = tuple(rules)
        object.__setattr__(self, "_parsed", parsed)

    def parsed(self, kind: str) -> tuple[Rule, ...]:
        """The parsed rules of one list: ``"allow"``, ``"ask"`` or ``"deny"``."""
        return self._parsed[kind]

    def with_allow(self, rule: str) -> Rules:
        """A copy with one more allow rule (a session "always allow" grant)."""
        parse_rule(rule)
        if rule in self.allow:
            return self
        return Rules(
            (*self.allow, rule),
            self.ask,
            self.deny,
            self.tool_risk,
            self.read_only_tools,
            self.search_provider,
        )

    def without_domains(self) -> Rules:
        """A copy whose allow rules grant no network (a project file's rules: only the person's
        own settings can open the network to a domain)."""
        allow = tuple(
            str(dataclasses.replace(rule, domains=())) if rule.domains else rule.text
            for rule in self.parsed("allow")
        )
        if allow == self.allow:
            return self
        return dataclasses.replace(self, allow=allow)

    def merged(self, other: Rules) -> Rules:
        """Both rule sets together; ``other``'s tool_risk entries win over this one's."""
        risk = dict(self.tool_risk)
        risk.update(other.tool_risk)
        return Rules(
            self.allow + tuple(r for r in other.allow if r not in self.allow),
            self.ask + tuple(r for r in other.ask if r not in self.ask),
            self.deny + tuple(r for r in other.deny if r not in self.deny),
            risk,
            self.read_only_tools | other.read_only_tools,
            other.search_provider or self.search_provider,
        )

    def to_dict(self) -> dict[str, object]:
        """A serializable form (for checkpointed session state)."""
        return {
            "allow": list(self.allow),
            "ask": list(self.ask),
            "deny": list(self.deny),
            "tool_risk": {k: str(v) for k, v in self.tool_risk.items()},
            "read_only_tools": sorted(self.read_only_tools),
            "search_provider": self.search_provider,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Rules:
        return cls(
            allow=tuple(data.get("allow", ()) or ()),  # type: ignore[arg-type]
            ask=tuple(data.get("ask", ()) or ()),  # type: ignore[arg-type]
            deny=tuple(data.get("deny", ()) or ()),  # type: ignore[arg-type]
            tool_risk=dict(data.get("tool_risk", {}) or {}),  # type: ignore[arg-type]
            read_only_tools=frozenset(data.get("read_only_tools", ()) or ()),  # type: ignore[arg-type]
            search_provider=data.get("search_provider") or None,  # type: ignore[arg-type]
        )
