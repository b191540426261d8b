"""Asking a person about gated calls: what it is, why it asks, and their decision.

Awaiting approval: ``y`` yes · ``n`` no (with feedback for the model) · ``a`` always for this
session · ``e`` edit the arguments ($EDITOR, or inline) · ``!`` yes, without the OS sandbox (shell
commands that would run sandboxed) · ``w`` yes, in the sandbox with network to the domains shown
(the package registries the command uses, or the domains the person types) · ``Y``/``N`` for
all remaining.  ``!`` is not ``u``: at the idle
prompt ``u`` undoes the newest change, and one key must never mean both.
Interrupted: ``r`` retry · ``c`` cancel · ``R``/``C`` for all remaining.
The answer is a ``{call_id: decision}`` map for ``Session.decide``.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.tui import fmt
from cairn.graph.apps.cli.tui.diffview import diff_text
from cairn.graph.apps.cli.tui.edit import edit_arguments

PREVIEW_LINES = 40
ASK = "yneaYN"
UNSANDBOXED = "!"
WITH_NETWORK = "w"
ASK_INTERRUPTED = "rcRC"


class Approver:
    def __init__(self, console: Any, prompter: Any, *, verbose: bool = False, auto: bool = False) -> None:
        self.console = console
        self.prompter = prompter
        self.verbose = verbose
        #: Decide without asking (the demo on a non-TTY): approve and retry everything, say so.
        self.auto = auto
        #: The session's workspace root, for the rule ``a`` (always) would add.
        self.workspace: str | None = None

    def ask(self, calls: list[Any]) -> dict[str, Any]:
        """One decision per call (ToolCallInfo); raises EOFError/KeyboardInterrupt from input.

        Several waiting calls are listed together first (so ``Y``/``N`` are pressed knowing
        what "all" covers), and each is marked with its outcome once all are decided.
        """
        decisions: dict[str, Any] = {}
        bulk: dict[str, Any] = {}  # kind ("ask"/"interrupted") -> decision for the remaining calls
        listed = len(calls) > 1 and not self.auto
        if listed:
            self.console.print(Text(f"  {len(calls)} tool calls need your decision:", style="bold yellow"))
            for call in calls:
                self._line(self._short(call, "    "))
            self.console.print()
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
        if listed:
            self.console.print(Text("  decided:", style="bold"))
            for call in calls:
                line = self._short(call, "    ")
                word, style = _outcome(decisions.get(call.call_id))
                line.append("  → ")
                line.append(word, style=style)
                self._line(line)
        return decisions

    def _short(self, call: Any, indent: str) -> Text:
        line = Text(indent)
        sym, style = fmt.symbol(call.status, _unicode(self.console))
        line.append(sym, style=style)
        _agent_label(line, call)
        line.append(f" {call.tool_name}", style="bold")
        about = fmt.describe_args(call.tool_name, call.arguments, 400)
        if about:
            line.append(f" {about}")
        if call.risk:
            line.append("  ")
            line.append(call.risk, style=fmt.RISK_STYLE.get(call.risk, ""))
        return line

    def _line(self, text: Text) -> None:
        """One line, cut to the terminal width on a TTY."""
        if self.console.is_terminal:
            text = text.copy()
            text.truncate(self.console.width, overflow="ellipsis")
        self.console.print(text, soft_wrap=True)

    def rule_for(self, call: Any) -> str | None:
        """The session rule ``a`` (always) would add for ``call``; None when none fits."""
        if self.workspace is None:
            return None
        from cairn import policy

        return policy.always_rule(call.tool_name, call.arguments, workspace=self.workspace)

    # -- showing -----------------------------------------------------------------------------
    def show(self, call: Any) -> None:
        line = Text("  ")
        sym, style = fmt.symbol(call.status, _unicode(self.console))
        line.append(sym, style=style)
        _agent_label(line, call)
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
            self._wrapped("    ", fmt.visible(call.error_msg or "interrupted"), "yellow")
        elif call.reason:
            self._wrapped("    why: ", fmt.visible(call.reason), "dim")
        self._details(call)

    def _wrapped(self, first: str, body: str, style: str, *, hang: str = "      ") -> None:
        """``first`` + ``body`` wrapped at spaces to the terminal's width, later lines indented
        by ``hang``: at 70 columns a reason or a command never breaks in the middle of a word
        (a word longer than a whole line still has to be cut)."""
        width = max(24, self.console.width)
        lines = textwrap.wrap(
            body,
            width=width,
            initial_indent=first,
            subsequent_indent=hang,
            break_on_hyphens=False,
            replace_whitespace=False,
        )
        self.console.print(Text("\n".join(lines) or first.rstrip(), style=style), soft_wrap=True)

    def _details(self, call: Any) -> None:
        args = call.arguments
        if call.tool_name == "bash" and isinstance(args.get("command"), str):
            for index, cmd_line in enumerate(fmt.visible(args["command"]).splitlines() or [""]):
                self._wrapped("    $ " if index == 0 else "      ", cmd_line, "bold", hang="        ")
            if args.get("run_in_background"):
                self.console.print(Text("    (in the background)", style="dim"))
            sandbox = getattr(call, "sandbox", None)
            if sandbox and call.status != "interrupted":
                self._wrapped("    sandbox: ", sandbox_note(sandbox, getattr(call, "network", None)), "dim")
            return
        if call.tool_name == "web_fetch" and args.get("url"):
            self.console.print(Text(f"    {fmt.visible(args['url'])}", style="underline"), soft_wrap=True)
            return
        if call.tool_name == "web_search" and args.get(
            "query"
        ):  # the query leaves the machine: show it whole
            self._wrapped("    search: ", fmt.visible(str(args["query"])), "bold")
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
            prompt = _menu(
                [("r", "retry"), ("c", "cancel")],
                many,
                "R/C: all remaining",
                "Run it again?",
                width=self.console.width,
            )
            key = self.prompter.key(prompt, choices)
            return ("retry" if key.lower() == "r" else "cancel"), key.isupper()
        choices = ASK if many else ASK[:4]
        rule = self.rule_for(call)
        always = f"always: {fmt.visible(rule)}" if rule else "once (no always rule fits)"
        items = [("y", "yes"), ("n", "no, tell it why"), ("a", always), ("e", "edit")]
        sandboxed = getattr(call, "sandbox", None) not in (None, "off")
        offer = list(getattr(call, "network_offer", None) or ())
        if sandboxed:
            choices += UNSANDBOXED + WITH_NETWORK
            items.insert(1, (UNSANDBOXED, "yes, without sandbox"))
            items.insert(
                1, (WITH_NETWORK, f"yes, network to {', '.join(offer)}" if offer else "yes, with network…")
            )
        prompt = _menu(items, many, "Y/N: all remaining", "Allow?", width=self.console.width)
        while True:
            key = self.prompter.key(prompt, choices)
            if key == UNSANDBOXED:
                return {"action": "approve", "sandbox": "off"}, False
            if key == WITH_NETWORK:
                domains = offer or self._ask_domains()
                if domains:
                    return {"action": "approve", "network": domains}, False
                continue
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

    def _ask_domains(self) -> list[str]:
        """Domains typed by the person for ``w`` (empty: back to the question)."""
        from cairn.tools.shell.netproxy.domains import normalize_domains

        while True:
            text = self.prompter.line(
                "    network to which domains? (comma-separated; Enter to go back) "
            ).strip()
            if not text:
                return []
            try:
                return list(normalize_domains(d for d in text.replace(" ", ",").split(",") if d))
            except ValueError as exc:
                self.console.print(Text(f"    {exc}", style="red"))


def _agent_label(line: Text, call: Any) -> None:
    """A sub-agent's call (bubbled up to its parent) says whose it is."""
    agent = getattr(call, "agent", None)
    if getattr(call, "agent_id", None):
        line.append(f" [sub-agent: {fmt.visible(agent or call.agent_id)}]", style="magenta")


def sandbox_note(profile: str, network: list[str] | None = None) -> str:
    """What a person's approval lets a shell command do."""
    if profile == "off":
        return "off (runs with your full user rights)"
    net = f"network to {', '.join(network)} only" if network else "no network"
    return f"{profile} (workspace writable except .git/hooks, .git/config, .cairn; {net}; secrets hidden)"


def _menu(items: list[tuple[str, str]], many: bool, bulk: str, question: str, *, width: int = 10_000) -> Text:
    """The choices on one line, or where that does not fit, broken between choices (a key
    never ends a line without its label), later lines indented."""
    text = Text("  ")
    text.append(f"{question} ", style="bold")
    column = len(text.plain)
    parts = [(key, f" {label}", "") for key, label in items]
    if many:
        parts.append(("", bulk, "dim"))
    for index, (key, label, style) in enumerate(parts):
        size = len(key) + len(label)
        if index and column + 3 + size + 3 > width:  # " · " before it, room for the closing " › "
            text.append(" ·\n    ", style="dim")
            column = 4 + size
        else:
            if index:
                text.append(" · ", style="dim")
            column += (3 if index else 0) + size
        text.append(key, style="bold cyan")
        text.append(label, style=style)
    text.append(" › ", style="bold")
    return text


def _unicode(console: Any) -> bool:
    return (console.encoding or "").lower().startswith("utf")


def _outcome(decision: Any) -> tuple[str, str]:
    """How a decision reads in the list of decided calls."""
    if isinstance(decision, dict):
        if "edit" in decision:
            return "edited, will run", "cyan"
        if decision.get("network"):
            return f"approved, network to {', '.join(decision['network'])}", "green"
        if decision.get("sandbox") == "off":
            return "approved without sandbox", "green"
        message = decision.get("reject") or ""
        return (f"rejected: {fmt.one_line(message, 80)}" if message else "rejected"), "red"
    return {
        "approve": ("approved", "green"),
        "always": ("approved always", "green"),
        "reject": ("rejected", "red"),
        "retry": ("retry", "green"),
        "cancel": ("cancelled", "yellow"),
    }.get(str(decision), (str(decision), "dim"))
