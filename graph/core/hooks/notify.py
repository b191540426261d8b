"""Notifications (issue 32 item 5): tell the person when a run waits, fails, or ends after a while.

```toml
[notifications]
enabled = true          # default true
after_seconds = 30      # a run that finishes after more than this notifies (default 30)
bell = true             # terminal bell
desktop = true          # OSC 9 and OSC 777 desktop notifications (terminals that support them)
notify_send = true      # `notify-send` when it is installed
headless = false        # headless runs (`cairn -p`) notify too (default: they do not)
```

Channels per surface: the interactive CLI uses the terminal (bell, OSC 9/777) and
``notify-send``; every surface fires the ``Notification`` hook and emits a ``notification``
event (a notebook shows it as a badge); headless runs do none of it unless ``headless = true``.
The project's table is read after the user's (project values win).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TextIO

from cairn.graph.core.hooks.config import HooksConfigError


@dataclass(frozen=True)
class NotificationsConfig:
    enabled: bool = True
    after_seconds: float = 30.0
    bell: bool = True
    desktop: bool = True
    notify_send: bool = True
    headless: bool = False

    def active(self, surface: str) -> bool:
        return self.enabled and (surface != "headless" or self.headless)


def parse_notifications(
    user: Mapping[str, Any] | None, project: Mapping[str, Any] | None
) -> NotificationsConfig:
    values: dict[str, Any] = {}
    known = {f.name: f.type for f in fields(NotificationsConfig)}
    for source, document in (("user", user), ("project", project)):
        table = (document or {}).get("notifications")
        if table is None:
            continue
        if not isinstance(table, Mapping):
            raise HooksConfigError(f"{source} settings: [notifications] must be a table")
        for key, value in table.items():
            if key not in known:
                raise HooksConfigError(f"{source} settings: unknown key notifications.{key}")
            if key == "after_seconds":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                    raise HooksConfigError(f"{source} settings: notifications.after_seconds must be >= 0")
                value = float(value)
            elif not isinstance(value, bool):
                raise HooksConfigError(f"{source} settings: notifications.{key} must be true or false")
            values[key] = value
    return NotificationsConfig(**values)


def notice_for(
    status: str, elapsed_s: float, pending: int, error: str | None, after_seconds: float
) -> tuple[str, str] | None:
    """``(notification_type, message)`` for a run's outcome, or None when it is not worth one."""
    if status == "awaiting_approval":
        return "permission_prompt", f"cairn is waiting for your approval ({pending} call(s))"
    if status == "error":
        return "error", f"cairn run failed: {(error or 'error').splitlines()[0][:120]}"
    if status == "done" and elapsed_s > after_seconds:
        return "done", f"cairn finished after {elapsed_s:.0f}s"
    return None


class TerminalNotifier:
    """The interactive CLI's channels: bell and OSC 9/777 on a terminal, ``notify-send``."""

    def __init__(self, config: NotificationsConfig, stream: TextIO, *, which: Any = shutil.which) -> None:
        self.config = config
        self.stream = stream
        self._which = which

    def send(self, kind: str, message: str) -> list[str]:
        """Deliver ``message``; returns the channels used (for tests and logs)."""
        used: list[str] = []
        text = " ".join(message.replace("\x1b", "").replace("\x07", "").split())
        tty = bool(getattr(self.stream, "isatty", lambda: False)())
        if tty and (self.config.bell or self.config.desktop):
            out = ""
            if self.config.desktop:
                out += f"\x1b]9;{text}\x07\x1b]777;notify;cairn;{text}\x07"
                used.append("osc")
            if self.config.bell:
                out += "\a"
                used.append("bell")
            try:
                self.stream.write(out)
                self.stream.flush()
            except OSError:
                pass
        if self.config.notify_send:
            path = self._which("notify-send")
            if path:
                try:
                    subprocess.Popen(
                        [path, "--app-name=cairn", "cairn", text],
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        start_new_session=True,
                    )
                    used.append("notify-send")
                except OSError:
                    pass
        return used
