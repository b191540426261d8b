"""``cairn acp``: serve the Agent Client Protocol on stdin/stdout for an editor.

Only argparse is imported at module level (``cairn --help`` stays instant); the SDK and the
Session load when the command runs.  stdout carries the protocol alone: the process's own
stdout (fd 1, and ``sys.stdout``) is pointed at stderr before anything else runs, and the
protocol gets a private duplicate of the original descriptor, so a stray print or a child
process that inherits fd 1 cannot corrupt the stream.
"""

from __future__ import annotations

import argparse
import os
import sys

EPILOG = """\
Add cairn to Zed (settings.json):

  "agent_servers": {
    "cairn": {
      "command": "cairn",
      "args": ["acp"],
      "env": { "OPENAI_API_KEY": "sk-...", "CAIRN_MODEL": "gpt-4o" }
    }
  }

then open the agent panel, "+", "cairn".  JetBrains (acp.json) and Neovim (CodeCompanion):
see docs/editors.md.  Sessions are cairn sessions: `cairn sessions` lists them, the editor's
"load" resumes any of them, one started from the CLI included.
"""


def acp_parser() -> argparse.ArgumentParser:
    from cairn.graph.cli.args import common_flags

    return argparse.ArgumentParser(
        prog="cairn acp",
        description="Run cairn as an Agent Client Protocol (ACP) agent on stdin/stdout, for editors "
        "(Zed, JetBrains IDEs, Neovim). The editor starts it; you do not run it by hand.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common_flags()],
    )


def run_acp(argv: list[str]) -> int:
    """Parse ``argv`` and serve until the editor closes stdin."""
    ns = acp_parser().parse_args(argv)
    try:
        import acp  # noqa: F401
    except ImportError:
        print(
            "cairn: error: `cairn acp` needs the Agent Client Protocol SDK: pip install 'cairn-agent[acp]'",
            file=sys.stderr,
        )
        return 2
    from cairn.graph.acp.agent import AcpSettings
    from cairn.graph.cli.options import Options

    opts = Options.from_args(ns)
    opts.check_storage(create=True, writes=True)
    settings = AcpSettings(
        model=opts.model_spec(),
        db=opts.db,
        mode=opts.approval or "default",
        max_steps=opts.max_steps,
        mcp_config=opts.mcp_config,
        trust_project_mcp=opts.trust_project_mcp,
    )
    protocol_out = _claim_stdout()
    import asyncio

    asyncio.run(serve(settings, protocol_out))
    return 0


def _claim_stdout() -> int:
    """A private descriptor for the protocol; fd 1 and ``sys.stdout`` now go to stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


async def serve(settings: object, protocol_fd: int) -> None:
    import asyncio
    import logging

    from acp import run_agent

    from cairn.graph.acp.agent import CairnAgent

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="cairn acp: %(message)s")
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(protocol_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    agent = CairnAgent(settings)  # type: ignore[arg-type]
    try:
        await run_agent(agent, writer, reader)
    finally:
        await agent.close()
