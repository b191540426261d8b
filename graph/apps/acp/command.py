"""Serving ACP on stdin/stdout (``cairn acp``; the flags are parsed by ``cairn.graph.apps.cli.commands.acp``).

stdout carries the protocol alone: the process's own stdout (fd 1, and ``sys.stdout``) is
pointed at stderr before anything else runs, and the protocol gets a private duplicate of the
original descriptor, so a stray print or a child process that inherits fd 1 cannot corrupt the
stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from cairn.graph.apps.acp.agent import CairnAgent
from cairn.graph.apps.acp.session_config import AcpSettings

#: The SDK's own default for stdio messages (images in prompts are large).
STREAM_LIMIT = 50 * 1024 * 1024


def run_server(settings: AcpSettings) -> int:
    """Serve until the editor closes stdin; the exit code."""
    protocol_out = _claim_stdout()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="cairn acp: %(message)s")
    asyncio.run(serve(settings, protocol_out))
    return 0


def _claim_stdout() -> int:
    """A private descriptor for the protocol; fd 1 and ``sys.stdout`` now go to stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


async def serve(settings: AcpSettings, protocol_fd: int) -> None:
    from acp import run_agent

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=STREAM_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(protocol_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    agent = CairnAgent(settings)
    try:
        await run_agent(agent, writer, reader)
    finally:
        await agent.close()
