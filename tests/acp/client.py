"""The editor side for the ``cairn acp`` tests: the SDK's client connection over a subprocess.

``EditorClient`` records every ``session/update`` and answers ``session/request_permission``
with a scripted choice (``answers``: a list consumed in order, each an option id, ``"cancel"``
for the cancelled outcome, or a callable); it can advertise the ``fs`` capability and then
serves ``fs/read_text_file`` / ``fs/write_text_file`` from its own "buffers".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from tests.cli.conftest import cairn_cmd


class EditorClient:
    def __init__(self, answers: list[Any] | None = None, *, fs: bool = False) -> None:
        self.answers = list(answers or [])
        self.fs = fs
        self.updates: list[Any] = []
        self.asked: list[dict[str, Any]] = []
        self.buffers: dict[str, str] = {}
        self.fs_reads: list[str] = []
        self.fs_writes: list[tuple[str, str]] = []
        #: Set when a permission request arrives (tests that kill mid-approval wait on it).
        self.permission_asked = asyncio.Event()
        #: Set at the first ``tool_call_update`` with status in_progress (kill mid-tool).
        self.tool_running = asyncio.Event()
        self.hold: asyncio.Event | None = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    @property
    def capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs))

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)
        if (
            getattr(update, "session_update", "") in ("tool_call", "tool_call_update")
            and update.status == "in_progress"
        ):
            self.tool_running.set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.asked.append({"call": tool_call, "options": [(o.option_id, o.kind, o.name) for o in options]})
        self.permission_asked.set()
        if self.hold is not None:
            await self.hold.wait()
        answer = self.answers.pop(0) if self.answers else "allow_once"
        if callable(answer):
            answer = answer(tool_call, options)
        if isinstance(answer, RequestPermissionResponse):
            return answer
        if answer == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **_: Any
    ) -> Any:
        self.fs_reads.append(path)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text(encoding="utf-8")
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> Any:
        self.fs_writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # -- reading what arrived ---------------------------------------------------------------
    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.updates if u.session_update == kind)

    def calls(self, call_id: str) -> list[Any]:
        return [u for u in self.updates if getattr(u, "tool_call_id", None) == call_id]


@contextlib.asynccontextmanager
async def agent(
    client: EditorClient, env: dict[str, str], cwd: str, *args: str, stderr_path: Path
) -> AsyncIterator[tuple[Any, Any]]:
    """``cairn acp ARGS`` as a subprocess, initialized; yields (connection, process)."""
    cmd = cairn_cmd()
    with open(stderr_path, "ab") as err:
        async with spawn_agent_process(
            client, cmd[0], *cmd[1:], "acp", *args, env=env, cwd=cwd, transport_kwargs={"stderr": err}
        ) as (conn, proc):
            init = await asyncio.wait_for(
                conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=client.capabilities),
                60,
            )
            conn.init = init
            yield conn, proc


def prompt(text: str) -> list[Any]:
    return [text_block(text)]


def run(coro: Any, timeout: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout))


def python() -> str:
    return sys.executable


def env_for(cli_env: dict[str, str], server: Any) -> dict[str, str]:
    return {
        **cli_env,
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": server.base_url,
        "CAIRN_MODEL": "test-model",
        "PATH": os.environ["PATH"],
    }


Callback = Callable[..., Any]
