"""``HookEngine``: a session's hooks, ready to fire.

``fire(event, payload, names)`` runs every hook of ``event`` whose matcher matches one of
``names`` (a tool's name and aliases; none: all), one after another in configuration order
(user, project, Python), and combines what they said (:class:`~cairn.graph.core.hooks.outcome.Fired`).
A project's hooks run only when the person trusted them; they then run in the sandbox profile
chosen when trusting (``workspace-write`` by default), and not at all when that profile is
needed and no sandbox works here.  Each run is reported through ``on_run`` (events).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from cairn.graph.core.hooks.config import TOOL_EVENTS, HooksConfig, HookSpec
from cairn.graph.core.hooks.matching import select
from cairn.graph.core.hooks.outcome import Fired, HookRun, interpret
from cairn.graph.core.hooks.runner import RawRun, run_command, run_python

#: Builds the launch for a sandbox profile (``None``: run unconfined); raises OSError when impossible.
Launcher = Callable[[str], Any]


class HookEngine:
    def __init__(
        self,
        config: HooksConfig,
        root: Path,
        *,
        session_id: str,
        project_profile: str | None,
        env: Callable[[], dict[str, str]],
        launcher: Launcher | None = None,
        transcript_path: str = "",
    ) -> None:
        self.config = config
        self.root = root
        self.session_id = session_id
        #: The sandbox profile the project's hooks were trusted with; None: not trusted (held).
        self.project_profile = project_profile
        self._env = env
        self._launcher = launcher
        self.transcript_path = transcript_path
        self._events = frozenset(h.event for h in self.active())

    def active(self) -> tuple[HookSpec, ...]:
        """The hooks that run: the user's and Python ones, and the project's once trusted."""
        return tuple(
            h for h in self.config.hooks if h.source != "project" or self.project_profile is not None
        )

    @property
    def held(self) -> tuple[HookSpec, ...]:
        """The project's hooks waiting for a person's approval."""
        return self.config.project if self.project_profile is None else ()

    def trust(self, profile: str) -> None:
        """A person approved the project's hooks (in this process): they run from now on."""
        self.project_profile = profile
        self._events = frozenset(h.event for h in self.active())

    def has(self, event: str) -> bool:
        return event in self._events

    def base_payload(self, event: str, mode: str | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": str(self.root),
            "hook_event_name": event,
        }
        if mode is not None:
            payload["permission_mode"] = _claude_mode(mode)
        return payload

    def fire(
        self,
        event: str,
        payload: dict[str, Any],
        names: Iterable[str] = (),
        *,
        done: list[HookRun] | None = None,
        on_run: Callable[[HookRun, list[HookRun]], None] | None = None,
    ) -> Fired:
        """Run ``event``'s matching hooks in order.  ``done``: runs a journal already holds from
        an earlier, crashed attempt — adopted for the same hooks, not run again.  ``on_run(run,
        runs_so_far)`` is told of each new run as soon as it ends (to journal it)."""
        fired = Fired()
        if event not in self._events:
            return fired
        hooks = [h for h in self.active() if h.event == event]
        if not names and event not in TOOL_EVENTS:  # as Claude Code: matched against the event's kind
            subject = payload.get("source") or payload.get("trigger") or payload.get("notification_type")
            names = (str(subject),) if subject else ()
        earlier = list(done or ())
        for index, hook in enumerate(select(hooks, names)):
            if index < len(earlier) and earlier[index].hook == hook.label:
                fired.runs.append(earlier[index])
                continue
            run = self._run(hook, payload)
            fired.runs.append(run)
            if on_run is not None:
                on_run(run, fired.runs)
        return fired

    def _run(self, hook: HookSpec, payload: dict[str, Any]) -> HookRun:
        if hook.function is not None:
            return interpret(hook, run_python(hook, payload))
        launch = None
        if hook.source == "project" and self.project_profile not in (None, "off"):
            try:
                launch = self._launcher(self.project_profile) if self._launcher else None
            except OSError as exc:
                return interpret(hook, RawRun(126, "", f"not run: {exc}", 0.0))
            if launch is None:
                why = f"not run: project hooks run in the {self.project_profile} sandbox, which is not available here"
                return interpret(hook, RawRun(126, "", why, 0.0))
        return interpret(hook, run_command(hook, payload, cwd=str(self.root), env=self._env(), launch=launch))


def _claude_mode(mode: str) -> str:
    """cairn's mode under Claude Code's ``permission_mode`` names."""
    return {"accept-edits": "acceptEdits", "bypass": "bypassPermissions"}.get(mode, mode)
