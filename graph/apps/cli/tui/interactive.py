"""The interactive session: a prompt with history, streamed answers, approvals, Ctrl-C.

Startup stays under ~0.1 s: the banner and the prompt need only rich and readline; the
agent is imported in the background (``warmup``) while the person types.
"""

from __future__ import annotations

import os
from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.exits import AWAITING_APPROVAL, DONE, INTERRUPTED
from cairn.graph.apps.cli.signals import CtrlC
from cairn.graph.apps.cli.tui import fmt, rewind_ui, slash
from cairn.graph.apps.cli.tui.approval import Approver
from cairn.graph.apps.cli.tui.driver import Driver
from cairn.graph.apps.cli.tui.prompter import Prompter, setup_history
from cairn.graph.apps.cli.tui.render import Renderer
from cairn.graph.apps.cli.tui.term import make_console
from cairn.graph.apps.cli.tui.warmup import Background, warm_imports


class Interactive:
    def __init__(self, opts: Any, *, session: Any = None, spec: str | None = None) -> None:
        self.opts = opts
        self.console = make_console(plain=opts.plain)
        self.renderer = Renderer(self.console, verbose=opts.verbose)
        self.prompter = Prompter(self.console)
        self.approver = Approver(self.console, self.prompter, verbose=opts.verbose)
        if session is not None:
            self.approver.workspace = str(session.workspace.root)
        self.ctrlc = CtrlC(self.renderer, on_exit=self.exit_hint)
        self.session = session
        self.spec = spec or (session and session.core.model_spec) or ""
        self.mode = session.mode if session is not None else (opts.approval or "default")
        self._warm: Background | None = None
        self._driver: Driver | None = None
        #: The call ``u`` at the prompt undoes (set after each run by ``rewind_ui.offer_undo``).
        self.undo_offer: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------
    def banner(self, root: str) -> None:
        line = Text("cairn", style="bold")
        line.append(f"  {self.spec or 'default model'} · {self.mode} · {_home(root)}", style="dim")
        self.renderer.line(line)
        self.renderer.line(Text("Type a message · /help · Ctrl-C stops · Ctrl-D leaves", style="dim"))

    def start_warmup(self) -> None:
        if self.session is None:
            self._warm = Background(lambda: warm_imports(self.spec))

    def loop(self, first: str | None = None) -> int:
        """Read messages until /exit or Ctrl-D; returns the exit code."""
        from cairn.checkpoints.location import state_dir

        setup_history(str(state_dir() / "history"))
        try:
            if first:
                self.echo(first)
                self.send(first)
            while True:
                text = self.read_message()
                if not text:
                    continue
                if text == "u" and self.undo_offer:
                    rewind_ui.undo(self)
                    continue
                if text.startswith("/"):
                    text = slash.handle(text, self)
                    if not text:
                        continue
                self.send(text)
        except (EOFError, slash.Leave):
            self.console.print()
        return self.goodbye()

    def echo(self, text: str) -> None:
        """A prompt given on the command line, shown as if it had been typed at the prompt."""
        lines = fmt.visible(text).splitlines() or [""]
        shown = Text("› ", style="bold cyan")
        shown.append(lines[0])
        for more in lines[1:]:
            shown.append("\n… ", style="dim")
            shown.append(more)
        self.console.print(shown, soft_wrap=True)

    def read_message(self) -> str | None:
        """One message; a trailing backslash continues it on the next line.

        Ctrl-C, on the first line or a continuation line, drops what was typed and shows the
        hint (a second Ctrl-C exits); None then.
        """
        try:
            text = self.prompter.line(self.prompter.styled("› ", "1;36"))
            while text.endswith("\\"):
                text = text[:-1] + "\n" + self.prompter.line(self.prompter.styled("… ", "2"))
        except KeyboardInterrupt:
            self.console.print()
            self.ctrlc.at_prompt()
            return None
        self.ctrlc.disarm()
        return text.strip()

    def goodbye(self) -> int:
        """Say where the session stands and close it; the exit code follows it (0, or 3/4 if paused)."""
        if self.session is None:
            return DONE
        pending = self.session.pending()
        code = DONE
        if any(c.status == "interrupted" for c in pending):
            code = INTERRUPTED
        elif pending:
            code = AWAITING_APPROVAL
        sid = self.session.id[:12]
        if self.opts.in_memory:
            self.renderer.note(f"session {sid} was in memory only (--db :memory:): it is gone now")
        else:
            what = f"paused with {len(pending)} undecided call(s)" if pending else "saved"
            self.renderer.note(f"session {sid} {what} · resume:")
            # A command to copy is never cut: it gets its own line, wrapped if it must be.
            self.console.print(Text(f"  {self.opts.resume_command(sid)}", style="dim"), soft_wrap=True)
        self.session.close(keep_background=self.keep_background_tasks())
        for log in self.session.core.kept_logs:  # a path to open: never cut to the width
            self.console.print(
                Text(f"kept running; output → {_home(log)}  (/tasks lists it next time)", style="dim"),
                soft_wrap=True,
            )
        return code

    def keep_background_tasks(self) -> bool:
        """Running background tasks are stopped on exit unless the person keeps them."""
        running = [t for t in self.session.core.background_tasks() if t["status"] == "running"]
        if not running:
            return False
        if not self.prompter.tty:
            self.renderer.note(f"stopping {len(running)} background task(s)")
            return False
        prompt = Text(f"  {len(running)} background task(s) still running: ", style="yellow")
        prompt.append("s stop them · k keep them running › ", style="bold")
        try:
            keep = self.prompter.key(prompt, "sk") == "k"
        except (EOFError, KeyboardInterrupt):
            keep = False
        return keep

    def exit_hint(self) -> None:
        """On a second Ctrl-C: no database reads (the run may still hold it), just the command."""
        if self.session is not None:
            from cairn.graph.apps.cli.headless import saved_note

            self.renderer.note(saved_note(self.opts, self.session.id[:12]))

    # -- pieces the slash commands use ------------------------------------------------------------
    def send(self, text: str) -> None:
        rewind_ui.offer_undo(self, self.driver().send(text))

    def driver(self) -> Driver:
        if self._driver is None:
            self._driver = Driver(self.get_session(), self.renderer, self.ctrlc, self.approver)
        return self._driver

    def get_session(self) -> Any:
        if self.session is None:
            if self._warm is not None and not self._warm.done():
                self.renderer.waiting("starting")
            try:
                if self._warm is not None:
                    self._warm.result()
                from cairn.graph.apps.cli.options import check_model
                from cairn.graph.session.session import Session

                check_model(self.spec)
                self.session = Session(
                    self.opts.workspace_root(),
                    model=self.spec,
                    db=self.opts.db,
                    mode=self.mode,
                    max_steps=self.opts.max_steps,
                    **self.opts.session_kwargs(),
                )
                self.approver.workspace = str(self.session.workspace.root)
            finally:
                self.renderer.finish()
            from cairn.graph.apps.cli.commands.mcp import ask_project_servers

            ask_project_servers(self)
            from cairn.graph.apps.cli.commands.hooks import (  # -- hooks (issue 32)
                ask_project_hooks,
                attach_notifier,
            )

            ask_project_hooks(self)
            attach_notifier(self.session, "interactive")
        return self.session

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        if self.session is not None:
            self.session.set_mode(mode)

    def continue_run(self) -> None:
        if self.session is None:
            self.renderer.note("  nothing to continue yet")
            return
        if self.session.status == "done" and not self.session.pending():
            self.renderer.note("  nothing to continue: the last run finished; send a message to go on")
            return
        rewind_ui.offer_undo(self, self.driver().continue_())


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and path.startswith(home + os.sep) else path
