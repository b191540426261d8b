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
from cairn.policy.decide import Assessment, decide, plan_denial
from cairn.policy.filetools import assess_file_tool, bind_to_lane
from cairn.policy.levels import MODES, Decision, RiskLevel, Verdict, max_risk
from cairn.policy.matching import path_matches
from cairn.policy.rules import Rule, Rules
from cairn.policy.sandbox import SANDBOX_STATES, apply_sandbox
from cairn.policy.table import DEFAULT_UNKNOWN_RISK, canonical_tool_name, plan_offers, tool_action, tool_facts
from cairn.policy.urls import Resolver, check_url, no_dns, system_resolver
from cairn.tools.workspace import Workspace

__all__ = ["as_workspace", "evaluate"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH
#: Built-in tools whose every call the policy refines (besides the file tools): ``tool_risk`` only raises them.
_REFINED = frozenset({"bash", "web_fetch"})


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
        if mode == "plan":
            verdict = _plan_gate(name, args, verdict, rules)
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
    facts = tool_facts()
    if name in facts.read or name in facts.edit:
        assessment, info = assess_file_tool(name, args, ws, cwd)
        tools = facts.read if name in facts.read else facts.edit

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
    """Built-in tools judged by their declared facts (per action when they have actions), and
    MCP/custom tools by ``[tool_risk]`` and ``read_only_tools``."""
    if tool_facts().classes.get(name) is not None:
        risk, action = tool_action(name, args)
        read_only = plan_offers(name, args) or name in rules.read_only_tools
        if action is not None:
            what = f"{name} {args.get('action')} {action.why}"
            return Assessment(risk, what, read_only=read_only, auto_edit=action.accept_edits)
        risk = rules.tool_risk.get(name, risk)
        return Assessment(risk, f"{name} is {str(risk).lower()} risk", read_only=read_only)
    risk = rules.tool_risk.get(name, DEFAULT_UNKNOWN_RISK)
    source = "configured" if name in rules.tool_risk else "default for tools not in the policy table"
    return Assessment(
        risk, f"{name} is {str(risk).lower()} risk ({source})", read_only=name in rules.read_only_tools
    )


def _plan_gate(name: str, args: Mapping[str, Any], verdict: Verdict, rules: Rules) -> Verdict:
    """Plan mode refuses a call its tool's facts do not allow there, whatever the classifiers said.

    The same predicate decides what the graph binds in plan mode (``plan_allows``), so a tool the
    model is offered there is one the policy can allow.  Refusals and ask rules keep their verdict,
    as in :func:`cairn.policy.decide.decide` (deny rules, then ask rules, then plan mode).
    """
    if plan_offers(name, args) or name in rules.read_only_tools:
        return verdict
    if verdict.decision == Decision.DENY or (verdict.decision == Decision.ASK and verdict.rule is not None):
        return verdict
    return plan_denial(name, "is not offered in plan mode")


def _action_matches(spec: str | None, args: Mapping[str, Any]) -> bool:
    return spec is None or args.get("action") == spec


def _apply_risk_override(name: str, verdict: Verdict, rules: Rules, mode: str) -> Verdict:
    """A configured ``tool_risk`` can raise (never lower) the risk of a refined built-in tool."""
    override = rules.tool_risk.get(name)
    facts = tool_facts()
    refined = name in _REFINED or name in facts.read or name in facts.edit
    if override is None or not refined or verdict.decision == Decision.DENY:
        return verdict
    raised = max_risk(verdict.risk, override)
    if raised == verdict.risk:
        return verdict
    if verdict.decision == Decision.ALLOW and verdict.rule is None and mode != "bypass":
        return Verdict(Decision.ASK, raised, f"{verdict.reason} (tool_risk sets {name} to {override})")
    return Verdict(verdict.decision, raised, verdict.reason, verdict.rule)
