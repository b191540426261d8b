"""``cairn policy check TOOL 'JSON-ARGS' [--workspace DIR] [--mode MODE] [--json]`` and
``cairn policy programs [NAME] [--json]``.

``check`` prints the verdict a call would get with the workspace's rules, so people can see why
something asks and test their rules: the rule and the records that decided, and for shell
commands the sandbox profile they run in (which needs detecting the sandbox backend, as a session
does).  ``programs`` lists what runs without asking, per program.  Exit 0 after printing, 1 when
``programs NAME`` has no record, 2 on usage errors or bad JSON.
"""

from __future__ import annotations

import argparse
import json
import sys

from cairn.policy.errors import PolicyConfigError
from cairn.policy.evaluate import evaluate
from cairn.policy.explain import RecordUse, deciding_records
from cairn.policy.levels import MODES
from cairn.policy.sandbox import load_sandbox_settings, sandbox_state
from cairn.policy.settings import load_rules
from cairn.policy.urls import no_dns, system_resolver

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit 2 with a clear message, as argparse does
        self.print_usage(sys.stderr)
        print(f"cairn policy: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cairn policy", description="Inspect cairn's permission policy.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = sub.add_parser("check", help="show the verdict for one tool call")
    check.add_argument("tool", help="tool name or alias, e.g. bash, read_file, Edit, WebFetch")
    check.add_argument(
        "args", help='the call\'s arguments as a JSON object, e.g. \'{"command": "git status"}\''
    )
    check.add_argument("--workspace", default=".", help="workspace root (default: current directory)")
    check.add_argument("--mode", default="default", choices=MODES, help="session mode (default: default)")
    check.add_argument("--json", action="store_true", help="print the verdict as JSON")
    check.add_argument(
        "--dns", action="store_true", help="also judge the addresses host names resolve to (URL checks)"
    )
    check.add_argument(
        "--no-dns", action="store_true", help="judge host names by their text only (the default)"
    )
    programs = sub.add_parser("programs", help="list what runs without asking, per program")
    programs.add_argument("name", nargs="?", help="one program: every option, the paths, the examples")
    programs.add_argument("--json", action="store_true", help="print the list as JSON")
    programs.add_argument("--workspace", default=".", help="workspace whose allow rules to list too")
    programs.add_argument("--mode", default="default", choices=MODES, help="session mode (default: default)")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        opts = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if opts.command == "programs":
        from cairn.policy.programs_cmd import run_programs

        return run_programs(opts.name, as_json=opts.json, workspace=opts.workspace, mode=opts.mode)
    try:
        args = json.loads(opts.args)
    except json.JSONDecodeError as exc:
        print(f"cairn policy: error: ARGS is not valid JSON: {exc}", file=sys.stderr)
        return 2
    if not isinstance(args, dict):
        print('cairn policy: error: ARGS must be a JSON object, e.g. \'{"command": "ls"}\'', file=sys.stderr)
        return 2
    try:
        rules = load_rules(opts.workspace)
        sandbox = load_sandbox_settings(opts.workspace)
    except PolicyConfigError as exc:
        print(f"cairn policy: error: {exc}", file=sys.stderr)
        return 2
    state, gaps = "off", None
    if sandbox.enabled:
        from cairn.tools.shell.sandbox import detect_backend
        from cairn.tools.shell.sandbox.detect import missing_guarantees

        state = sandbox_state(sandbox, detect_backend().available)
        gaps = missing_guarantees() if state == "on" else None  # what the backend lacks here asks
    verdict = evaluate(
        opts.tool,
        args,
        workspace=opts.workspace,
        mode=opts.mode,
        rules=rules,
        resolver=system_resolver if opts.dns and not opts.no_dns else no_dns,
        sandbox=state,
        sandbox_gaps=gaps,
    )
    records = deciding_records(opts.tool, args, opts.workspace, verdict)
    if opts.json:
        print(json.dumps({**verdict.to_dict(), "records": [r.to_dict() for r in records]}))
    else:
        print(f"decision: {verdict.decision}")
        print(f"risk:     {verdict.risk}")
        print(f"reason:   {verdict.reason}")
        print(f"rule:     {verdict.rule or '-'}")
        for index, line in enumerate(_record_lines(records)):
            print(f"{'record:' if index == 0 else '':10}{line}")
        if verdict.sandbox is not None:
            print(f"sandbox:  {_sandbox_line(verdict.sandbox, str(verdict.decision), state)}")
        if verdict.network:
            print(f"network:  {', '.join(verdict.network)} (granted by the rule, through the egress proxy)")
        elif verdict.network_offer:
            print(f"network:  none; the approval prompt offers {', '.join(verdict.network_offer)} (w)")
    return 0


def _record_lines(records: list[RecordUse]) -> list[str]:
    if not records:
        return ["-"]
    return [
        f"{r.record} [{r.source}] ({r.category}, {r.risk}){f' for {r.part!r}' if r.part else ''}: {r.reason}"
        for r in records
    ]


def _sandbox_line(profile: str, decision: str, state: str) -> str:
    if state == "off":
        return 'off (settings: sandbox = "off")'
    if state == "unavailable":
        return "off (no sandbox backend works on this machine; a person must approve)"
    if decision == "ask":
        return f"{profile} once approved (or off, if the person picks 'run without sandbox')"
    return profile


if __name__ == "__main__":
    sys.exit(main())
