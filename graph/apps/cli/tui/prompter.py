"""Reading from the person: a line (readline editing and history) or one key for a choice."""

from __future__ import annotations

import os
import sys
from typing import Any

from cairn.graph.apps.cli.tui.term import colors_enabled, is_tty


class Prompter:
    """Line and key input; on a TTY a choice is a single key press (no Enter needed)."""

    def __init__(self, console: Any, stdin: Any = None) -> None:
        self.console = console
        self.stdin = stdin or sys.stdin
        self.tty = is_tty(self.stdin)
        self.color = colors_enabled(sys.stdout) and not getattr(console, "no_color", False)

    def styled(self, text: str, code: str = "1") -> str:
        """A prompt string; escapes are wrapped in \\001/\\002 so readline measures it right."""
        return f"\001\033[{code}m\002{text}\001\033[0m\002" if self.color else text

    def line(self, prompt: str, prefill: str = "") -> str:
        """One line; raises EOFError on Ctrl-D and KeyboardInterrupt on Ctrl-C."""
        hook = _prefill(prefill) if prefill and self.tty else None
        try:
            text = input(prompt)
        finally:
            if hook is not None:
                hook.set_startup_hook(None)
        if not self.tty:  # piped input is not echoed: show what was read, so the log reads right
            self.console.file.write(text + "\n")
        return text

    def key(self, prompt: Any, choices: str) -> str:
        """One of ``choices`` (case-sensitive letters; ``prompt`` a rich Text). Enter picks the first."""
        while True:
            if not self.tty:
                self.console.print(prompt, end="")
                self.console.file.flush()
                answer = input().strip()
                char = answer[:1] or choices[0]
                self.console.file.write(answer + "\n")
            else:
                self.console.print(prompt, end="")
                self.console.file.flush()
                char = _read_key(self.stdin)
                if char in ("\x04",):
                    self.console.file.write("\n")
                    raise EOFError
                if char in ("\r", "\n"):
                    char = choices[0]
                self.console.file.write(char + "\n")
                self.console.file.flush()
            if char in choices:
                return char
            self.console.print(f"  choose one of: {', '.join(choices)}", style="dim")


def _read_key(stdin: Any) -> str:
    import termios
    import tty

    fd = stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)  # ISIG stays on: Ctrl-C still raises KeyboardInterrupt
        data = os.read(fd, 1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    return data.decode("utf-8", "replace")


def _prefill(text: str) -> Any:
    try:
        import readline
    except ImportError:  # pragma: no cover - platforms without readline
        return None
    readline.set_startup_hook(lambda: readline.insert_text(text))
    return readline


def setup_history(path: str) -> None:
    """Persistent line history (``$CAIRN_HOME/history``) for the interactive prompt."""
    try:
        import atexit
        import readline
    except ImportError:  # pragma: no cover
        return
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    readline.set_history_length(1000)

    def save() -> None:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            readline.write_history_file(path)
        except OSError:
            pass

    atexit.register(save)
