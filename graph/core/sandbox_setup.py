"""A session's sandbox: the settings, the detected backend, and the spec each shell call gets.

The policy chooses a profile per call (``Verdict.sandbox``, stored on the call); this module
turns it into the :class:`~cairn.tools.shell.sandbox.SandboxSpec` the ``bash`` tool runs
under, with the workspace's protected paths and the secret locations to hide.  Detection runs
one probe per process (cached by the tools layer).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from cairn.policy.paths import home_dir
from cairn.policy.sandbox import (
    OFF,
    SCAN_SKIP,
    WORKSPACE_WRITE,
    SandboxSettings,
    hidden_paths,
    load_sandbox_settings,
    protected_in_workspace,
    readable_in_home,
    sandbox_state,
    workspace_secret_patterns,
)
from cairn.tools.shell.sandbox import SandboxSpec, detect_backend, placeholders


def clear_placeholder_leftovers(root: Path) -> list[str]:
    """Remove the empty placeholder directories a killed cairn left at the workspace's protected
    names (``.mcp.json``, ``AGENTS.md`` ...), before the session reads any of them."""
    read_only, _ = protected_in_workspace(root)
    return placeholders.clear_leftovers(read_only)


class SandboxWarning(UserWarning):
    """Shell commands run without an OS sandbox in this session (turned off, or none works)."""


@dataclass(frozen=True)
class SandboxSetup:
    """What a session knows about sandboxing: ``state`` is ``on``, ``off`` or ``unavailable``."""

    state: str
    backend: str
    root: Path
    settings: SandboxSettings
    problem: str | None = None

    @classmethod
    def detect(cls, root: Path, settings: SandboxSettings | None = None) -> SandboxSetup:
        settings = settings if settings is not None else load_sandbox_settings(root)
        if not settings.enabled:
            return cls("off", "none", root, settings)
        status = detect_backend()
        return cls(sandbox_state(settings, status.available), status.name, root, settings, status.problem)

    def spec(
        self, profile: str | None, *, approved: bool = False, domains: tuple[str, ...] = ()
    ) -> SandboxSpec | None:
        """The spec for a shell call whose verdict chose ``profile`` (``None``: unsandboxed).

        ``approved``: a person approved this very call (the workspace's credential files are
        then readable); otherwise they are hidden.  ``domains``: the network the call was granted
        (its rule's, or a person's); a workspace-write call also gets the user's
        ``[sandbox] allowed_domains``, a read-only one (nobody approved it) no network at all.
        """
        if self.state != "on":
            return None
        profile = profile or WORKSPACE_WRITE  # a call routed before sandboxes existed
        if profile == OFF:
            # A person chose "run without sandbox": placeholders lingering from earlier sandboxed
            # commands (empty directories at protected names) must not stand in its way.
            placeholders.sweep()
            return None
        if profile == WORKSPACE_WRITE:
            domains = (*domains, *self.settings.allowed_domains)
        return build_spec(profile, self.root, self.settings, approved=approved, domains=domains)

    def notice(self) -> str | None:
        """The one line to show at startup when commands are not sandboxed, else ``None``."""
        if self.state == "off":
            return (
                f'WARNING: the shell sandbox is OFF (sandbox = "off" in {self.settings.off_by}): '
                "commands the policy allows run with your full user rights, as in cairn < 0.2."
            )
        if self.state == "unavailable":
            return (
                f"WARNING: no shell sandbox works on this machine ({self.problem}); commands that "
                "would have run sandboxed without asking now ask you first."
            )
        # (S2, issue 26 item 6) a working backend may still lack some guarantees here.
        from cairn.tools.shell.sandbox.detect import missing_guarantees

        lacking = sorted({g for gaps in missing_guarantees(self.backend).values() for g in gaps})
        if lacking:
            return (
                f"WARNING: the {self.backend} sandbox cannot guarantee here: {', '.join(lacking)}; "
                "commands that would have run in it without asking now ask you first "
                "(`cairn sandbox check` shows what holds)."
            )
        return None


def build_spec(
    profile: str,
    root: Path | str,
    settings: SandboxSettings,
    *,
    approved: bool = False,
    domains: tuple[str, ...] = (),
    home: Path | None = None,
) -> SandboxSpec:
    """The spec the policy's lists and the settings give for ``root`` (also for tests, benches);
    ``home``: the home directory to hide (default: the person's; ``cairn sandbox check`` uses a
    temporary one)."""
    home = home or home_dir()
    read_only, permanent = protected_in_workspace(root)
    # sandbox_hidden_paths: a bare name ("vault.json", "*.secret") is a credential-file pattern
    # inside the workspace; anything with a slash (or ~) is a location.
    names = tuple(p for p in settings.hidden if "/" not in p and not p.startswith("~"))
    locations = tuple(p for p in settings.hidden if p not in names)
    return SandboxSpec.for_workspace(
        profile,
        root,
        read_only_paths=read_only,
        placeholder_dirs=permanent,
        hidden_paths=hidden_paths(locations, home=home),
        home=str(home),
        home_readable=readable_in_home(settings.readable, environ=os.environ, home=home),
        runtime_dir=os.environ.get("XDG_RUNTIME_DIR") or None,
        person_approved=approved,
        workspace_secrets=workspace_secret_patterns(names),
        scan_skip=SCAN_SKIP,
        max_processes=settings.max_processes,
        allowed_domains=tuple(dict.fromkeys(domains)),
    )


_warned: set[tuple[str, str]] = set()


def warn_once(setup: SandboxSetup) -> None:
    """Say once per process (per workspace) that commands are not sandboxed."""
    message = setup.notice()
    key = (str(setup.root), setup.state)
    if message and key not in _warned:
        _warned.add(key)
        warnings.warn(message, SandboxWarning, stacklevel=3)
