"""Asking a person about gated calls: what it is, why it asks, and their decision.

Awaiting approval: ``y`` yes · ``n`` no (with feedback for the model) · ``a`` always for this
session · ``e`` edit the arguments ($EDITOR, or inline) · ``u`` yes, without the OS sandbox (shell
commands that would run sandboxed) · ``Y``/``N`` for all remaining.
Interrupted: ``r`` retry · ``c`` cancel · ``R``/``C`` for all remaining.
The answer is a ``{call_id: decision}`` map for ``Session.decide``.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from cairn.graph.cli import fmt
from cairn.graph.cli.diffview import diff_text
from cairn.graph.cli.edit import edit_arguments

PREVIEW_LINES = 40
ASK = "yneaYN"
UNSANDBOXED = "u"
ASK_INTERRUPTED = "rcRC"


class Approver:
    def __init__(self, console: Any, prompter: Any, *, verbose: bool = False, auto: bool = False) -> None:
        self.console = console
        self.prompter = prompter
        self.verbose = verbose
        #: Decide without asking (the demo on a non-TTY): approve and retry everything, say so.
        self.auto = auto

    def ask(self, calls: list[Any]) -> dict[str, Any]:
        """One decision per call (ToolCallInfo); raises EOFError/KeyboardInterrupt from input."""
        decisions: dict[str, Any] = {}
        bulk: dict[str, Any] = {}  # kind ("ask"/"interrupted") -> decision for the remaining calls
        if len(calls) > 1 and not self.auto:
            self.console.print(Text(f"{len(calls)} tool calls need your decision:", style="bold yellow"))
        for index, call in enumerate(calls):
            kind = "interrupted" if call.status == "interrupted" else "ask"
            self.show(call)
            if self.auto:
                decisions[call.call_id] = "retry" if kind == "interrupted" else "approve"
                verb = "retried" if kind == "interrupted" else "approved"
                self.console.print(Text(f"    auto-{verb} (not a TTY)", style="dim"))
            elif kind in bulk:
                decisions[call.call_id] = bulk[kind]
            else:
                many = len(calls) - index > 1
                decision, for_all = self._ask_one(call, kind, many)
                decisions[call.call_id] = decision
                if for_all:
                    bulk[kind] = decision
        return decisions

    # -- showing -----------------------------------------------------------------------------
    def show(self, call: Any) -> None:
        line = Text("  ")
        sym, style = fmt.symbol(call.status, _unicode(self.console))
        line.append(sym, style=style)
        line.append(f" {call.tool_name}", style="bold")
        about = fmt.describe_args(call.tool_name, call.arguments)
        if about and call.tool_name != "bash":
            line.append(f" {about}")
        if call.risk:
            line.append("  ")
            line.append(call.risk, style=fmt.RISK_STYLE.get(call.risk, ""))
        line.append(f"  [{call.call_id}]", style="dim")
        self.console.print(line, soft_wrap=True)
        if call.status == "interrupted":
            text = fmt.visible(call.error_msg or "interrupted")
            self.console.print(Text(f"    {text}", style="yellow"), soft_wrap=True)
        elif call.reason:
            self.console.print(Text(f"    why: {fmt.visible(call.reason)}", style="dim"), soft_wrap=True)
        self._details(call)

    def _details(self, call: Any) -> None:
        args = call.arguments
        if call.tool_name == "bash" and isinstance(args.get("command"), str):
            body = Text()
            for index, cmd_line in enumerate(fmt.visible(args["command"]).splitlines() or [""]):
                body.append(
                    ("\n" if index else "") + ("    $ " if index == 0 else "      ") + cmd_line, "bold"
                )
            if args.get("run_in_background"):
                body.append("\n    (in the background)", style="dim")
            self.console.print(body, soft_wrap=True)
            sandbox = getattr(call, "sandbox", None)
            if sandbox and call.status != "interrupted":
                self.console.print(Text(f"    sandbox: {sandbox_note(sandbox)}", style="dim"), soft_wrap=True)
            return
        if call.tool_name == "web_fetch" and args.get("url"):
            self.console.print(Text(f"    {fmt.visible(args['url'])}", style="underline"), soft_wrap=True)
            return
        if call.tool_name == "web_search" and args.get(
            "query"
        ):  # the query leaves the machine: show it whole
            self.console.print(
                Text(f"    search: {fmt.visible(str(args['query']))}", style="bold"), soft_wrap=True
            )
            return
        if call.preview:
            lines = call.preview.splitlines()
            shown = lines if self.verbose else lines[:PREVIEW_LINES]
            self.console.print(diff_text(shown, indent="    "), soft_wrap=True)
            if len(shown) < len(lines):
                self.console.print(Text(f"    … {len(lines) - len(shown)} more lines (-v shows all)", "dim"))
            return
        if args and call.tool_name not in ("edit_file", "write_file"):
            text = fmt.visible(json.dumps(args, indent=2, ensure_ascii=False, default=str)).splitlines()[:20]
            self.console.print(Text("\n".join("    " + x for x in text), style="dim"), soft_wrap=True)

    # -- asking ------------------------------------------------------------------------------
    def _ask_one(self, call: Any, kind: str, many: bool) -> tuple[Any, bool]:
        if kind == "interrupted":
            choices = ASK_INTERRUPTED if many else ASK_INTERRUPTED[:2]
            prompt = _menu([("r", "retry"), ("c", "cancel")], many, "R/C: all remaining", "Run it again?")
            key = self.prompter.key(prompt, choices)
            return ("retry" if key.lower() == "r" else "cancel"), key.isupper()
        choices = ASK if many else ASK[:4]
        items = [("y", "yes"), ("n", "no, tell it why"), ("a", "always (this session)"), ("e", "edit")]
        sandboxed = getattr(call, "sandbox", None) not in (None, "off")
        if sandboxed:
            choices += UNSANDBOXED
            items.insert(1, ("u", "yes, without sandbox"))
        prompt = _menu(items, many, "Y/N: all remaining", "Allow?")
        while True:
            key = self.prompter.key(prompt, choices)
            if key == "u":
                return {"action": "approve", "sandbox": "off"}, False
            if key in "yY":
                return "approve", key == "Y"
            if key == "a":
                return "always", False
            if key in "nN":
                message = self.prompter.line("    what should it do instead? (Enter to skip) ").strip()
                return ({"reject": message} if message else "reject"), key == "N"
            edited = edit_arguments(call, self.prompter, self.console)
            if edited is not None:
                return {"edit": edited}, False


def sandbox_note(profile: str) -> str:
    """What a person's approval lets a shell command do."""
    if profile == "off":
        return "off (runs with your full user rights)"
    return (
        f"{profile} (workspace writable except .git/hooks, .git/config, .cairn; no network; secrets hidden)"
    )


def _menu(items: list[tuple[str, str]], many: bool, bulk: str, question: str) -> Text:
    text = Text("  ")
    text.append(f"{question} ", style="bold")
    for index, (key, label) in enumerate(items):
        if index:
            text.append(" · ", style="dim")
        text.append(key, style="bold cyan")
        text.append(f" {label}")
    if many:
        text.append(f" · {bulk}", style="dim")
    text.append(" › ", style="bold")
    return text


def _unicode(console: Any) -> bool:
    return (console.encoding or "").lower().startswith("utf")
