"""``cairn policy programs [NAME] [--json]``: what runs without asking, per program.

Without ``NAME``, one line per program (a screen a reviewer can audit); with ``NAME``, every
option that runs unasked, the paths the program may read and its example commands.  The
workspace's own bash allow rules and the mode widen that surface, so they are listed after it.
"""

from __future__ import annotations

import json
import sys

from cairn.policy.errors import PolicyConfigError
from cairn.policy.settings import load_rules
from cairn.policy.surface import ProgramSurface, programs

__all__ = ["run_programs"]

#: What each mode adds to the programs' own surface.
MODE_NOTES = {
    "default": "",
    "accept-edits": "accept-edits mode also runs commands that only create or change ordinary workspace files",
    "plan": "plan mode runs read-only commands only (this list) and refuses the rest",
    "bypass": "bypass mode runs every command the hard-deny set, deny rules and protected paths allow",
}


def run_programs(name: str | None, *, as_json: bool, workspace: str, mode: str) -> int:
    """Print the surface (or one program's); 1 when ``name`` has no record, 2 on invalid settings."""
    try:
        rules = load_rules(workspace)
    except PolicyConfigError as exc:
        print(f"cairn policy: error: {exc}", file=sys.stderr)
        return 2
    found = programs(name)
    allow_rules = [str(rule) for rule in rules.parsed("allow") if rule.tool == "bash"]
    if name is not None and not found:
        print(f"cairn policy: {name} has no record: every command running it asks", file=sys.stderr)
        return 1
    if as_json:
        data = {"programs": [p.to_dict() for p in found], "allow_rules": allow_rules, "mode": mode}
        print(json.dumps(data, indent=None if name is None else 2))
        return 0
    if name is not None:
        print("\n".join(_detail(found[0])))
    else:
        print("\n".join(_table(found)))
    for line in _extras(allow_rules, mode):
        print(line)
    return 0


def _table(found: list[ProgramSurface]) -> list[str]:
    width = max((len(p.name) for p in found), default=7) + 2
    lines = [f"{'PROGRAM':{width}}{'CATEGORY':10}OPTIONS THAT RUN WITHOUT ASKING"]
    for p in found:
        lines.append(f"{p.name:{width}}{p.category:10}{_options_summary(p)}")
    lines.append(f"{len(found)} programs; `cairn policy programs NAME` shows one in full.")
    return lines


def _options_summary(p: ProgramSurface) -> str:
    if not p.options:
        if p.options_by_handler:
            return f"judged by its {p.judged_by}"
        return p.notes[0] if p.notes else "none"
    short = "".join(o[1] for o in p.options if len(o) == 2 and o[0] == "-")
    valued = [o for o in p.options if o.startswith("-") and not o.startswith("--") and " " in o]
    long = [o for o in p.options if o.startswith("--")]
    parts = [f"-{short}"] if short else []
    parts += valued[:3] + (["…"] if len(valued) > 3 else [])
    if long:
        parts.append(f"+{len(long)} long")
    return " ".join(parts)


def _detail(p: ProgramSurface) -> list[str]:
    lines = [f"{p.name} ({p.category})", f"  reads:    {p.reads}", f"  record:   {p.source}"]
    lines += [f"  note:     {note}" for note in p.notes]
    if not p.runs_unasked:
        lines.append("  nothing runs without asking: every use asks (or is refused)")
    if p.options:
        lines.append("  options that run without asking:")
    elif p.options_by_handler:
        judges = "its rules judge" if p.judged_by == "rules" else "its handler judges"
        lines.append(f"  options: {judges} them (the examples show what runs)")
    else:
        lines.append("  options: none runs without asking")
    lines += _wrap(p.options)
    if p.asks:
        if p.options_by_handler:  # git -c asks unless its handler finds the value harmless
            lines.append("  options that ask unless its handler finds their value harmless:")
        else:
            lines.append("  options that always ask (their value is judged too):")
        lines += _wrap(p.asks)
    if p.examples:
        lines.append("  examples:")
        lines += [f"    {e.decision:6} {e.command}" for e in p.examples]
    return lines


def _wrap(options: tuple[str, ...], width: int = 96) -> list[str]:
    lines: list[str] = []
    current = "   "
    for option in options:
        if len(current) + len(option) + 2 > width:
            lines.append(current.rstrip(","))
            current = "   "
        current += f" {option},"
    if current.strip():
        lines.append(current.rstrip(","))
    return lines


def _extras(allow_rules: list[str], mode: str) -> list[str]:
    lines = []
    if allow_rules:
        lines.append("also allowed by this workspace's rules: " + ", ".join(allow_rules))
    if MODE_NOTES.get(mode):
        lines.append(MODE_NOTES[mode])
    return lines
