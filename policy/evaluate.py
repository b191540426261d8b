"""``evaluate``: the one entry point that judges a tool call.

Pure apart from resolving real paths.  Host names in URLs are judged by their text only: no
DNS name is resolved before a person (or a rule) approved the call, so a rejected
``web_fetch`` to ``https://<secret>.attacker.example`` has leaked nothing.  The web tool
resolves the name after approval, checks the addresses and connects only to them.  Pass a
``resolver`` to judge resolved addresses too (tests, ``cairn policy check --dns``).  Never raises for bad input: an internal error is reported as
an ``ask`` verdict (fail closed), never as ``allow``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cairn.policy.bashpolicy import decide_bash
from cairn.policy.decide import Assessment, decide
from cairn.policy.filetools import assess_file_tool, bind_to_lane
from cairn.policy.levels import MODES, Decision, RiskLevel, Verdict, max_risk
from cairn.policy.matching import path_matches
from cairn.policy.rules import Rule, Rules
from cairn.policy.sandbox import SANDBOX_STATES, apply_sandbox
from cairn.policy.table import (
    DEFAULT_TOOL_RISK,
    DEFAULT_UNKNOWN_RISK,
    EDIT_TOOLS,
    PLAN_TOOLS,
    READ_TOOLS,
    canonical_tool_name,
)
from cairn.policy.urls import Resolver, check_url, no_dns, system_resolver
from cairn.tools.workspace import Workspace

__all__ = ["as_workspace", "evaluate"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH
_REFINED = {"bash", "web_fetch"} | READ_TOOLS | EDIT_TOOLS


def as_workspace(workspace: Workspace | str | os.PathLike[str]) -> Workspace:
    return workspace if isinstance(workspace, Workspace) else Workspace(workspace)


def evaluate(
    tool_name: str,
    args: Mapping[str, Any] | str | None,
    *,
    workspace: Workspace | str | os.PathLike[str],
    mode: str = "default",
    rules: Rules | None = None,
    cwd: str | os.PathLike[str] | None = None,
    resolver: Resolver | None = None,
    resolve_dns: bool = False,
    sandbox: str = "on",
    sandbox_gaps: Mapping[str, Sequence[str]] | None = None,
) -> Verdict:
    """Judge one tool call.  ``cwd`` is the shell's working directory when it is not the root.

    ``sandbox`` says whether shell commands can be sandboxed: ``"on"`` (a backend works),
    ``"off"`` (settings turned it off) or ``"unavailable"`` (fail closed: what would run
    sandboxed without a person asks).  ``sandbox_gaps``: per profile, the guarantees the
    working backend lacks on this machine (``missing_guarantees``); a command that would run
    unattended in such a profile asks instead.  See :mod:`cairn.policy.sandbox`.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if sandbox not in SANDBOX_STATES:
        raise ValueError(f"unknown sandbox state {sandbox!r}; expected one of {', '.join(SANDBOX_STATES)}")
    try:
        ws = as_workspace(workspace)
        rules = rules if rules is not None else Rules()
        if isinstance(args, str):
            args = json.loads(args) if args.strip() else {}
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            return Verdict(Decision.ASK, MEDIUM, f"arguments for {tool_name} are not an object")
        start = Path(os.path.realpath(os.path.join(ws.root, os.fspath(cwd)))) if cwd is not None else None
        dns = resolver if resolver is not None else (system_resolver if resolve_dns else no_dns)
        name = canonical_tool_name(tool_name)
        verdict = _evaluate(name, args, ws, mode, rules, start, dns)
        verdict = _apply_risk_override(name, verdict, rules, mode)
        return apply_sandbox(name, verdict, mode, sandbox, sandbox_gaps)
    except Exception as exc:  # fail closed: a policy bug must never allow a call
        verdict = Verdict(
            Decision.ASK, HIGH, f"the policy could not evaluate this call ({type(exc).__name__}: {exc})"
        )
        return apply_sandbox(canonical_tool_name(tool_name), verdict, mode, sandbox, sandbox_gaps)


def _evaluate(
    name: str,
    args: Mapping[str, Any],
    ws: Workspace,
    mode: str,
    rules: Rules,
    cwd: Path | None,
    resolver: Resolver | None,
) -> Verdict:
    if name == "bash":
        from cairn.policy.shell.analysis import analyse

        command = args.get("command")
        if not isinstance(command, str):
            return Verdict(Decision.ASK, MEDIUM, "bash call without a command string")
        return decide_bash(analyse(command, ws, cwd), rules, mode, ws)
    if name in READ_TOOLS or name in EDIT_TOOLS:
        assessment, info = assess_file_tool(name, args, ws, cwd)
        tools = READ_TOOLS if name in READ_TOOLS else EDIT_TOOLS

        def matches(rule: Rule, kind: str) -> bool:
            if rule.specifier is None:
                return True
            if info is None:
                return False
            # deny/ask rules also match the path as written (before symlinks); allow rules only the real one
            return path_matches(rule.specifier, info, ws.root, lexical_too=kind != "allow")

        return bind_to_lane(name, decide(name, assessment, rules, mode, matches, tools), assessment, mode)
    if name == "web_fetch":
        return _web(args, rules, mode, resolver)
    if name == "web_search":
        return _search(args, rules, mode)
    return decide(
        name, _other(name, args, rules), rules, mode, lambda r, _kind: _action_matches(r.specifier, args)
    )


def _web(args: Mapping[str, Any], rules: Rules, mode: str, resolver: Resolver | None) -> Verdict:
    url = args.get("url")
    if not isinstance(url, str) or not url.strip():
        return Verdict(Decision.ASK, MEDIUM, "web_fetch call without a URL")
    verdict = check_url(url, rules=rules, resolver=resolver)
    if verdict.decision == Decision.DENY or verdict.rule is not None:
        return verdict  # SSRF/scheme refusals and domain rules decide in every mode
    assessment = Assessment(verdict.risk, verdict.reason, read_only=True)
    return decide("web_fetch", assessment, rules, mode, lambda r, _kind: r.specifier is None)


def _search(args: Mapping[str, Any], rules: Rules, mode: str) -> Verdict:
    provider = rules.search_provider
    if not provider:
        return Verdict(Decision.DENY, LOW, "no web search provider is configured")
    query = str(args.get("query", ""))[:120]
    assessment = Assessment(LOW, f"query to {provider}: {query!r}", read_only=True)
    return decide(
        "web_search", assessment, rules, mode, lambda r, _kind: r.specifier in (None, f"provider:{provider}")
    )


def _other(name: str, args: Mapping[str, Any], rules: Rules) -> Assessment:
    action = args.get("action")
    if name == "memory":
        if action == "view":
            return Assessment(LOW, "memory view only reads the notes", read_only=True)
        return Assessment(
            MEDIUM,
            f"memory {action or ''} changes notes that persist across sessions "
            "(a prompt-injection persistence vector)".replace("  ", " "),
        )
    if name == "gitignore":
        if action == "check":
            return Assessment(LOW, "gitignore check only reads", read_only=True)
        return Assessment(
            MEDIUM, f"gitignore {action or ''} changes .gitignore".replace("  ", " "), auto_edit=True
        )
    if name in DEFAULT_TOOL_RISK:
        risk = rules.tool_risk.get(name, DEFAULT_TOOL_RISK[name])
        read_only = name in PLAN_TOOLS or name in rules.read_only_tools
        what = "runs a sub-agent" if name == "agent" else f"{name} is {str(risk).lower()} risk"
        return Assessment(risk, what, read_only=read_only)
    risk = rules.tool_risk.get(name, DEFAULT_UNKNOWN_RISK)
    source = "configured" if name in rules.tool_risk else "default for tools not in the policy table"
    return Assessment(
        risk, f"{name} is {str(risk).lower()} risk ({source})", read_only=name in rules.read_only_tools
    )


def _action_matches(spec: str | None, args: Mapping[str, Any]) -> bool:
    return spec is None or args.get("action") == spec


def _apply_risk_override(name: str, verdict: Verdict, rules: Rules, mode: str) -> Verdict:
    """A configured ``tool_risk`` can raise (never lower) the risk of a refined built-in tool."""
    override = rules.tool_risk.get(name)
    if override is None or name not in _REFINED or verdict.decision == Decision.DENY:
        return verdict
    raised = max_risk(verdict.risk, override)
    if raised == verdict.risk:
        return verdict
    if verdict.decision == Decision.ALLOW and verdict.rule is None and mode != "bypass":
        return Verdict(Decision.ASK, raised, f"{verdict.reason} (tool_risk sets {name} to {override})")
    return Verdict(verdict.decision, raised, verdict.reason, verdict.rule)
