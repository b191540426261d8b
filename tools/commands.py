"""Custom slash commands: Markdown files in ``.cairn/commands/`` and the user config dir's ``commands/``.

``review.md`` is ``/review``; ``git/pr.md`` is ``/git:pr``.  Front matter (optional):
``description``, ``argument-hint``, ``allowed-tools``.  ``/name args`` sends the file's text with
``$ARGUMENTS`` replaced by ``args`` (and ``$1`` … ``$9`` by single words).  The person types them in
the interactive CLI; the model can run one with the ``slash_command`` tool.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.frontmatter import split_front_matter
from cairn.tools.services import ToolServices
from cairn.tools.userdirs import user_config_dir
from cairn.tools.workspace import Workspace

__all__ = ["Command", "SlashCommandTool", "discover_commands", "expand_command", "find_command"]

_POSITIONAL = re.compile(r"\$([1-9])")


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    body: str
    path: Path
    source: str  # "project" or "user"
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = field(default=())


def discover_commands(workspace: Workspace) -> list[Command]:
    """Every command, the project's first; a name defined twice keeps the first."""
    found: dict[str, Command] = {}
    for base, source in (
        (workspace.root / ".cairn" / "commands", "project"),
        (user_config_dir() / "commands", "user"),
    ):
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.md")):
            name = ":".join(path.relative_to(base).with_suffix("").parts)
            try:
                meta, body = split_front_matter(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            first_line = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
            allowed = meta.get("allowed-tools") or ()
            if isinstance(allowed, str):
                allowed = [a.strip() for a in allowed.split(",") if a.strip()]
            found.setdefault(
                name,
                Command(
                    name=name,
                    description=" ".join(str(meta.get("description") or first_line).split())[:200],
                    body=body.strip(),
                    path=path,
                    source=source,
                    argument_hint=str(meta.get("argument-hint") or ""),
                    allowed_tools=tuple(str(a) for a in allowed),
                ),
            )
    return list(found.values())


def find_command(commands: list[Command], name: str) -> Command | None:
    name = name.lstrip("/")
    return next((c for c in commands if c.name == name), None)


def expand_command(command: Command, arguments: str) -> str:
    """The text to send: ``$ARGUMENTS`` and ``$1``..``$9`` replaced; arguments appended when the
    file uses neither."""
    arguments = arguments.strip()
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    body = command.body
    uses = "$ARGUMENTS" in body or bool(_POSITIONAL.search(body))
    text = body.replace("$ARGUMENTS", arguments)
    text = _POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text
    )
    if arguments and not uses:
        text = f"{text}\n\nARGUMENTS: {arguments}"
    return text


class SlashCommandArgs(ArgsModel):
    command: str = Field(description='The command with its arguments, e.g. "/review src/app.py".')


class SlashCommandTool(Tool):
    name = "slash_command"
    plan_mode = True
    counted = False  # registered only when commands exist
    description = (
        "Run one of the project's or user's custom slash commands: returns its instructions (with the "
        "arguments filled in), which you then follow. Available commands are listed in the system prompt."
    )
    args_schema = SlashCommandArgs
    risk_level = RiskLevel.LOW
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("SlashCommand",)
    search_hint = "custom command prompt template"

    @classmethod
    def available(cls, services: ToolServices) -> bool:
        """Offered only when at least one custom command exists."""
        return bool(discover_commands(services.workspace))

    def run(self, params: SlashCommandArgs, ctx: ToolContext) -> ToolResult:
        name, _, arguments = params.command.strip().partition(" ")
        commands = discover_commands(self.workspace)
        command = find_command(commands, name)
        if command is None:
            known = ", ".join(f"/{c.name}" for c in commands) or "none"
            return ToolResult.fail(f"There is no command {name!r}. Available commands: {known}.")
        text = expand_command(command, arguments)
        return ToolResult(
            output=f"Instructions of /{command.name} (follow them now):\n\n{text}",
            display=f"/{command.name} {arguments.strip()}"[:120],
        )
