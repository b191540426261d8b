"""Driving one session for a person: run, render, ask about gated calls, decide, repeat."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.tui import fmt

GATED = ("awaiting_approval", "interrupted")


class Driver:
    """Runs Session calls under Ctrl-C control and loops through approvals until the run settles."""

    def __init__(self, session: Any, renderer: Any, ctrlc: Any, approver: Any) -> None:
        self.session = session
        self.renderer = renderer
        self.ctrlc = ctrlc
        self.approver = approver

    def send(self, text: str) -> Any:
        """Send a message; None when the session cannot take one yet (it says why)."""
        from cairn.graph.session.session import SessionError

        s, on_event = self.session, self.renderer.on_event
        try:
            return self.drive(lambda: s.send(text, stream=True, on_event=on_event))
        except SessionError as exc:
            self.renderer.note(f"  not sent: {exc}", "yellow")
            self.renderer.note("  /continue finishes the stopped run first")
            return None

    def continue_(self) -> Any:
        s, on_event = self.session, self.renderer.on_event
        return self.drive(lambda: s.continue_(stream=True, on_event=on_event))

    def decide(self, decisions: dict[str, Any]) -> Any:
        s, on_event = self.session, self.renderer.on_event
        return self.drive(lambda: s.decide(decisions, stream=True, on_event=on_event))

    def drive(self, action: Any) -> Any:
        """Run ``action`` then settle every pause with the person (EOFError leaves it paused)."""
        return self.until_settled(self._run(action))

    def run_once(self, action: Any) -> Any:
        """Run ``action`` and report it, without asking about a pause (the caller decides)."""
        return self._run(action)

    def settle_all(self) -> Any:
        """Ask about every paused call until the run settles (a refused decision is asked again)."""
        result = None
        while result is None:
            result = self.settle(self.session.pending())
        return self.until_settled(result)

    def until_settled(self, result: Any) -> Any:
        while result.status in GATED and result.pending:
            result = self.settle(result.pending) or result
        return result

    def settle(self, pending: list[Any]) -> Any:
        """Ask about ``pending`` and apply the answers; None when they were refused (asked again)."""
        from cairn.graph.session.decision_forms import DecisionError

        decisions = self._ask(pending)
        s, on_event = self.session, self.renderer.on_event
        try:
            return self._run(lambda: s.decide(decisions, stream=True, on_event=on_event))
        except DecisionError as exc:
            self.renderer.note(f"  {exc}", "red")
            return None

    def _ask(self, pending: list[Any]) -> dict[str, Any]:
        while True:
            try:
                decisions = self.approver.ask(pending)
            except KeyboardInterrupt:
                self.renderer.console.print()
                self.ctrlc.at_prompt()
                continue
            self.ctrlc.disarm()
            return decisions

    def _run(self, action: Any) -> Any:
        self.renderer.waiting()
        try:
            result = self.ctrlc.run(self.session, action)
        finally:
            self.renderer.finish()
        self.report(result)
        return result

    def report(self, result: Any) -> None:
        console = self.renderer.console
        if self.ctrlc.stopped and result.status in ("done", "interrupted") and not result.pending:
            self.renderer.note("  (answer stopped)", "yellow")
        if result.status == "error":
            console.print(Text(f"  error: {result.error}", style="bold red"), soft_wrap=True)
            self.renderer.note("  nothing is lost: /continue tries again, or send your next message")
        elif result.status == "max_steps":
            self.renderer.note(
                f"  stopped after {self.session.core.max_steps} model calls; /continue goes on", "yellow"
            )
        elif result.status == "loop":
            self.renderer.note(f"  paused: {result.error}; /continue goes on, or say what to do", "yellow")
        elif result.status == "no_answer":
            self.renderer.note(f"  no answer: {result.error}; /continue asks the model again", "yellow")
        elif result.status == "budget":  # issue 34 hook-in
            self.renderer.note(f"  budget: {result.error}; /continue goes on", "yellow")
        elif result.status == "incomplete":
            self.renderer.note(f"  incomplete: {result.error}; /continue asks the model to go on", "yellow")
        if result.usage.get("model_calls") or result.elapsed_s >= 0.5:
            self.renderer.note(f"  {fmt.usage_line(result.usage, result.elapsed_s)}")
