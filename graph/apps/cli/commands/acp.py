"""``cairn acp``: the command line of the editor's agent server (issue 33).

The flags are every command's common ones; the server itself lives in ``cairn.graph.apps.acp``
(which never imports the CLI).  Only argparse is imported at module level.
"""

from __future__ import annotations

import argparse
import sys

EPILOG = """\
Add cairn to Zed (settings.json):

  "agent_servers": {
    "cairn": {
      "type": "custom",
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
    from cairn.graph.apps.cli.args import common_flags

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
    from cairn.graph.apps.acp.command import run_server
    from cairn.graph.apps.acp.session_config import AcpSettings
    from cairn.graph.apps.cli.options import Options
    from cairn.graph.apps.cli.tui.warmup import warm_imports

    opts = Options.from_args(ns)
    opts.check_storage(create=True, writes=True)
    spec = opts.model_spec()
    return run_server(
        AcpSettings(
            model=spec,
            db=opts.db,
            mode=opts.approval or "default",
            max_steps=opts.max_steps,
            mcp_config=opts.mcp_config,
            trust_project_mcp=opts.trust_project_mcp,
            warm_up=lambda: warm_imports(spec),
        )
    )
