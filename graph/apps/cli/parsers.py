"""The parser of each command: ``cairn [PROMPT]`` (``main_parser``) and the subcommands.

``COMMANDS`` (``cairn.graph.apps.cli.commands``) says which parser belongs to which command.
Only ``argparse`` is imported here: ``cairn --help`` must stay instant.
"""

from __future__ import annotations

import argparse

from cairn.graph.apps.cli.args import (
    EXIT_CODES,
    common_flags,
    decision_flags,
    output_format,
    positive_int,
    wait_flags,
)

MAIN_EPILOG = f"""\
commands:
  cairn [PROMPT]              interactive session in this directory
  cairn -p PROMPT             headless run (no prompts), then exit
  cairn resume [ID | --last]  continue a session (decide paused calls with --approve/--reject/...)
  cairn decide ID --approve … record decisions for a run waiting elsewhere (cairn -p … --wait)
  cairn sessions [--all]      list sessions of this workspace
  cairn show [ID | --last]    transcript and every tool call of a session
  cairn export ID [--format md|json|html] [--out FILE]   a shareable transcript (secrets redacted)
  cairn rewind ID [CALL_ID | --turn N]   undo the agent's changes back to a call or turn
  cairn policy check ...      what the policy would do with a call, and which rule and record decide
  cairn policy programs [NAME]   what runs without asking, per program (--json)
  cairn models check          probe an OpenAI-compatible endpoint (tool calls, streaming, context)
  cairn sandbox check         probe what the shell sandbox enforces on this machine (--json)
  cairn mcp list|approve      MCP servers: status and tools; approve the project's .mcp.json
  cairn hooks list|approve    hooks: what runs at each step, from where; approve the project's
  cairn agents list|merge|remove   sub-agents: status; merge or remove a worktree sub-agent's work
  cairn acp                   Agent Client Protocol server for editors (Zed, JetBrains, Neovim)
  cairn demo                  offline tour with a scripted model (no key needed)

model: --model NAME (or $CAIRN_MODEL) against OpenAI ($OPENAI_API_KEY) or any OpenAI-compatible
server (--base-url URL or $OPENAI_BASE_URL); --model script:FILE replays a scripted conversation.

{EXIT_CODES}
"""


def session_choice(parser: argparse.ArgumentParser, *, default: str | None = None) -> None:
    """``[SESSION_ID] [--last]``: which stored session a command works on."""
    more = f" (default: {default})" if default else ""
    parser.add_argument("session_id", nargs="?", metavar="SESSION_ID", help=f"id or unique prefix{more}")
    parser.add_argument("--last", action="store_true", help="the most recent session of this workspace")


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn",
        description="cairn: a coding agent that asks before risky actions and never loses its place.",
        epilog=MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common_flags()],
    )
    parser.add_argument("prompt", nargs="*", metavar="PROMPT", help="what to do (interactive if omitted)")
    parser.add_argument(
        "-p",
        "--print",
        dest="print_prompt",
        nargs="?",
        const="",
        metavar="PROMPT",
        help="headless: run PROMPT (or read it from stdin) until done or paused, then exit",
    )
    output_format(parser)
    wait_flags(parser)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def resume_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn resume",
        description="Continue a session after a crash, Ctrl-C, a pause, or to send more. Interactive on a "
        "TTY; headless with -p or when stdin is not a TTY.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common_flags()],
    )
    session_choice(parser)
    parser.add_argument(
        "-p",
        "--print",
        dest="print_prompt",
        nargs="?",
        const="",
        metavar="MESSAGE",
        help="headless; MESSAGE (optional) is sent after the decisions",
    )
    fork = parser.add_argument_group("fork (issue 34)")
    fork.add_argument(
        "--fork",
        action="store_true",
        help="continue in a new session copied from this one (the original stays as it is; files are "
        "not rewound: cairn rewind does that)",
    )
    where = fork.add_mutually_exclusive_group()
    where.add_argument("--at", metavar="CHECKPOINT", help="with --fork: from this checkpoint")
    where.add_argument(
        "--turn", type=positive_int, metavar="N", help="with --fork: from just before your N-th message"
    )
    decision_flags(parser)
    wait_flags(parser)
    output_format(parser)
    return parser


def decide_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn decide",
        description="Record decisions for a session's paused calls without running anything here: "
        "the run waiting on it (cairn -p ... --wait, on any machine that reaches the same database) "
        "applies them and continues; otherwise the next `cairn resume ID` does.",
        parents=[common_flags()],
    )
    parser.add_argument("session_id", metavar="SESSION_ID", help="id or unique prefix")
    decision_flags(parser)
    parser.set_defaults(last=False)
    return parser


def sessions_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn sessions",
        description="This workspace's sessions, newest first: id, when, status, title.",
        parents=[common_flags()],
    )
    parser.add_argument("--all", action="store_true", help="sessions of every workspace")
    parser.add_argument("--json", action="store_true", help="a JSON array")
    return parser


def show_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn show",
        description="A session's transcript and every tool call: status, risk, decision, result.",
        parents=[common_flags()],
    )
    session_choice(parser, default="the latest here")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    return parser


def rewind_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn rewind",
        description="Return the workspace and/or the conversation to just before a tool call or a "
        "turn of yours. Files you changed since are conflicts, left alone unless --force. The "
        "transcript keeps the rewound messages (cairn show lists them); --redo undoes the last rewind.",
        epilog="exit codes: 0 done · 1 some files were not restored (listed) · 2 usage error",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common_flags()],
    )
    parser.add_argument("session_id", nargs="?", metavar="SESSION_ID", help="id or unique prefix")
    parser.add_argument("call_id", nargs="?", metavar="CALL_ID", help="rewind to just before this call")
    parser.add_argument(
        "--last",
        action="store_true",
        help="the most recent session of this workspace; with nothing else to go back to, its last turn "
        "(`cairn rewind --last` undoes your last message and what it did)",
    )
    parser.add_argument(
        "--turn", type=positive_int, metavar="N", help="rewind to just before your N-th message"
    )
    parser.add_argument("--redo", action="store_true", help="undo the last rewind")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--code", dest="scope", action="store_const", const="code", help="files only")
    what.add_argument(
        "--conversation", dest="scope", action="store_const", const="conversation", help="conversation only"
    )
    what.add_argument("--both", dest="scope", action="store_const", const="both", help="both (the default)")
    parser.add_argument("--dry-run", action="store_true", help="list what would change, with diffs")
    parser.add_argument("--force", action="store_true", help="also overwrite files changed since by you")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    return parser


def demo_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn demo",
        description="An offline tour: a scripted model reads, searches, edits and tests a small bundled "
        "project, is killed mid-command, and resumes. No key or network needed.",
        parents=[common_flags()],
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary workspace and database (to `cairn show` it)"
    )
    # Internal: the first phase runs in a child process that the demo kills.
    parser.add_argument("--phase", choices=("child",), help=argparse.SUPPRESS)
    parser.add_argument("--marker", help=argparse.SUPPRESS)
    parser.add_argument("--auto", action="store_true", help=argparse.SUPPRESS)
    return parser


def mcp_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn mcp",
        description="MCP servers of this workspace: list them with their status and tools, or approve the "
        "project's servers (.mcp.json, [mcp_servers] in .cairn/settings.toml) once.",
        parents=[common_flags()],
    )
    parser.add_argument("action", choices=("list", "approve"), help="list | approve")
    parser.add_argument("--json", action="store_true", help="list as JSON")
    return parser


def agents_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn agents",
        description="Sub-agents: list them (of one session, or of this workspace's sessions); merge a "
        "finished worktree sub-agent's branch into the parent's checkout; remove its worktree (the "
        "branch stays).",
        parents=[common_flags()],
    )
    parser.add_argument("action", choices=("list", "merge", "remove"), help="list | merge | remove")
    parser.add_argument("id", nargs="?", help="list: a session id (prefix); merge/remove: the sub-agent's id")
    parser.add_argument("--json", action="store_true", help="list as JSON")
    return parser


def export_parser() -> argparse.ArgumentParser:  # issue 34
    parser = argparse.ArgumentParser(
        prog="cairn export",
        description="A session as a shareable transcript: messages, tool calls with their lifecycle, "
        "diffs, approvals and costs. Secrets known to the environment filter are redacted.",
        parents=[common_flags()],
    )
    session_choice(parser, default="the latest here")
    parser.add_argument(
        "--format",
        choices=("md", "json", "html"),
        default="md",
        help="md (default), json, or html (one self-contained page)",
    )
    parser.add_argument("--out", metavar="FILE", help="write to FILE (default: standard output)")
    return parser


def hooks_parser() -> argparse.ArgumentParser:  # hooks (issue 32)
    parser = argparse.ArgumentParser(
        prog="cairn hooks",
        description="Hooks of this workspace: list them (event, matcher, command, where from, trusted or "
        "not), or approve the project's hooks (.cairn/settings.toml) once for their current content.",
        parents=[common_flags()],
    )
    parser.add_argument("action", choices=("list", "approve"), help="list | approve")
    parser.add_argument("--json", action="store_true", help="list as JSON")
    parser.add_argument(
        "--sandbox",
        choices=("workspace-write", "read-only", "off"),
        default="workspace-write",
        help="approve: the sandbox the project's hooks run in (default: workspace-write)",
    )
    return parser
