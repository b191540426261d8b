"""The ACP agent: what cairn answers to ``initialize`` and the ``session/*`` methods.

An ACP session is a cairn session (same id), stored like any other: ``session/load`` takes any
cairn session id, one started from the CLI included.  Settings (model, database, approval mode,
MCP files) come from ``cairn acp``'s flags and the environment, as for every cairn command.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, helpers
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SetSessionModeResponse,
)

from cairn.graph.apps.acp.bridge import SessionBridge
from cairn.graph.apps.acp.prompt_blocks import prompt_text
from cairn.graph.apps.acp.session_config import (
    AcpSettings,
    agent_version,
    mcp_servers_config,
    mode_ids,
    mode_state,
)
from cairn.graph.apps.acp.turns import prompt_turn, settle_after_load

log = logging.getLogger("cairn.acp")


class CairnAgent:
    """One ``cairn acp`` process: any number of editor sessions."""

    def __init__(self, settings: AcpSettings) -> None:
        self.settings = settings
        self.conn: Any = None
        self.client = ClientCapabilities()
        self.bridges: dict[str, SessionBridge] = {}
        self._background: set[asyncio.Task[Any]] = set()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: ClientCapabilities | None = None, **_: Any
    ) -> InitializeResponse:
        self.client = client_capabilities or ClientCapabilities()
        self._warm_up()
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
            ),
            agent_info=Implementation(name="cairn", title="cairn", version=agent_version()),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        return None

    # -- sessions ---------------------------------------------------------------------------
    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> NewSessionResponse:
        s = self.settings

        def open_session() -> Any:
            from cairn.graph.session.session import Session

            return Session(
                cwd,
                model=s.model,
                db=s.db,
                mode=s.mode,
                max_steps=s.max_steps,
                mcp_servers=mcp_servers_config(mcp_servers) or None,
                mcp_config=s.mcp_config,
                trust_project_mcp=s.trust_project_mcp,
            )

        bridge = await self._open(cwd, open_session)
        return NewSessionResponse(session_id=bridge.id, modes=mode_state(bridge.session.mode))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> LoadSessionResponse:
        s = self.settings
        old = self.bridges.pop(session_id, None)
        if old is not None:
            await old.close()

        def open_session() -> Any:
            from cairn.graph.session.session import Session, SessionError

            try:
                return Session.resume(
                    session_id,
                    db=s.db,
                    max_steps=s.max_steps,
                    mcp_servers=mcp_servers_config(mcp_servers) or None,
                    mcp_config=s.mcp_config,
                    trust_project_mcp=s.trust_project_mcp,
                )
            except SessionError as exc:
                raise RequestError.resource_not_found(session_id) from exc

        bridge = await self._open(cwd, open_session, editor_id=session_id)
        from cairn.graph.apps.acp.replay import replay_updates  # langchain-core: not needed to initialize

        bridge.post(*await bridge.call(replay_updates, bridge.session, bridge.view))
        await bridge.flush()
        task = asyncio.get_running_loop().create_task(settle_after_load(bridge))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return LoadSessionResponse(modes=mode_state(bridge.session.mode))

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        bridge = self._bridge(session_id)
        if mode_id not in mode_ids():
            raise RequestError.invalid_params({"message": f"unknown mode {mode_id!r}"})
        await bridge.call(bridge.session.set_mode, mode_id)
        bridge.post(helpers.update_current_mode(mode_id))
        await bridge.flush()
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        bridge = self._bridge(session_id)
        async with bridge.turn:
            text = prompt_text(prompt, Path(bridge.session.core.spill_dir) / "images")
            if not text.strip():
                raise RequestError.invalid_params({"message": "the prompt is empty"})
            return PromptResponse(stop_reason=await prompt_turn(bridge, text))

    async def cancel(self, session_id: str, **_: Any) -> None:
        bridge = self.bridges.get(session_id)
        if bridge is not None:
            bridge.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # -- internals ----------------------------------------------------------------------------
    def _warm_up(self) -> None:
        """Start the settings' warm-up once, on a daemon thread (its errors surface later, where
        the session is opened)."""
        warm, self.settings.warm_up = self.settings.warm_up, None
        if warm is None:
            return

        def run() -> None:
            try:
                warm()
            except Exception:
                log.debug("warm-up failed", exc_info=True)

        threading.Thread(target=run, name="cairn-acp-warmup", daemon=True).start()

    async def _open(self, cwd: str, open_session: Any, *, editor_id: str | None = None) -> SessionBridge:
        """Open a Session on a new bridge.  ``editor_id``: the id the editor loads it by (a short
        prefix of a cairn id works, as in ``cairn resume``), which its notifications then carry."""
        bridge = SessionBridge(self.conn, "", cwd)
        try:
            session = await bridge.call(open_session)
        except (ValueError, OSError) as exc:  # not a directory, a database that cannot be opened
            await bridge.close()
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        except BaseException:
            await bridge.close()
            raise
        bridge.session = session
        bridge.id = editor_id or session.id
        bridge.view.workspace = str(session.workspace.root)
        fs = self.client.fs
        if fs is not None and (fs.read_text_file or fs.write_text_file):
            from cairn.graph.apps.acp.files import EditorFiles

            # ACP hook-in: the Session's tool services take the editor's files (FileAccess).
            session.core.services.files = EditorFiles(
                self.conn,
                bridge.id,
                bridge.loop,
                read=bool(fs.read_text_file),
                write=bool(fs.write_text_file),
            )
        self.bridges[bridge.id] = bridge
        return bridge

    def _bridge(self, session_id: str) -> SessionBridge:
        bridge = self.bridges.get(session_id)
        if bridge is None:
            raise RequestError.invalid_params(
                {"message": f"no session {session_id!r} in this process; load it"}
            )
        return bridge

    async def close(self) -> None:
        for bridge in list(self.bridges.values()):
            await bridge.close()
        self.bridges.clear()
