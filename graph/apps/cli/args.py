"""The flags several commands share: the common options, output format, decisions, waiting.

The parsers of the commands are built from these (``parsers``).  Only ``argparse`` is imported
here: ``cairn --help`` must stay instant.
"""

from __future__ import annotations

import argparse

MODES = ("default", "accept-edits", "plan", "bypass")
OUTPUT_FORMATS = ("text", "json", "stream-json")
#: Options that take a value, so the scanner does not mistake the value for a subcommand.
VALUE_OPTIONS = frozenset(
    {
        "--model",
        "--base-url",
        "--db",
        "--approval",
        "--max-steps",
        "--workspace",
        "-C",
        "--output-format",
        "--tools",
        "--mcp-config",
        "--max-cost",  # issue 34
        "--at",
        "--turn",
    }
    | {"-p", "--print", "--wait-timeout"}
)

EXIT_CODES = """\
exit codes:
  0    done
  1    error (model failure...; the session stays resumable), or stopped at --max-steps / --max-cost
  2    usage or configuration error (bad flags, no model configured, unknown session)
  3    paused: tool calls await approval (cairn resume ID --approve/--reject ...)
  4    paused: tool calls were interrupted (cairn resume ID --retry/--cancel ...)
  130  interrupted by Ctrl-C (the session stays resumable)"""


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def amount(text: str) -> float:
    """A positive amount in dollars (``--max-cost``)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected an amount in dollars greater than 0, got {text!r}")
    return value


def common_flags() -> argparse.ArgumentParser:
    """Flags every command accepts (a parent parser)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("common options")
    group.add_argument(
        "--model",
        metavar="SPEC",
        help="model name, or script:FILE (default: $CAIRN_MODEL, then $OPENAI_MODEL, then gpt-4o-mini)",
    )
    group.add_argument(
        "--base-url", metavar="URL", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)"
    )
    group.add_argument(
        "--db",
        metavar="LOCATION",
        help="database file, :memory: for a throwaway session, or a postgresql:// URL for a shared "
        "database (default: $CAIRN_DB, else cairn.db in the state directory)",
    )
    group.add_argument("--approval", choices=MODES, metavar="MODE", help=f"approval mode: {'|'.join(MODES)}")
    group.add_argument(
        "--max-steps", type=positive_int, metavar="N", help="model calls per run (default 100)"
    )
    group.add_argument(  # issue 34
        "--max-cost",
        type=amount,
        metavar="AMOUNT",
        help="US dollars a run may spend; then it pauses with status budget (resumable). "
        "Default: [budget] max_cost_per_run",
    )
    group.add_argument(
        "--tools",
        choices=("lean", "full", "auto"),
        metavar="PROFILE",
        help="tool profile: lean (six core tools, short schemas; for small models), full, or auto "
        "(lean when the context window is 16k tokens or less; the default)",
    )
    group.add_argument(
        "--context-window",
        type=positive_int,
        metavar="N",
        help="the model's context window in tokens (default: $CAIRN_CONTEXT_WINDOW, the endpoint's "
        "/models metadata, or a known default for the model name)",
    )
    group.add_argument("--workspace", "-C", metavar="DIR", help="workspace directory (default: .)")
    group.add_argument("-v", "--verbose", action="store_true", help="show live tool output and details")
    group.add_argument(
        "--plain",
        action="store_true",
        help="text as written: no colors, no rendered Markdown (also NO_COLOR)",
    )
    group.add_argument(
        "--mcp-config",
        action="append",
        default=[],
        metavar="FILE",
        help='MCP servers from FILE ({"mcpServers": {...}}); repeatable; they start without asking',
    )
    group.add_argument(
        "--trust-project-mcp",
        action="store_true",
        help="start the project's .mcp.json servers without asking (for headless runs)",
    )
    group.add_argument(  # hooks (issue 32)
        "--trust-project-hooks",
        action="store_true",
        help="run the project's hooks (.cairn/settings.toml) without asking, sandboxed (workspace-write)",
    )
    return parent


def output_format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output-format", choices=OUTPUT_FORMATS, default="text", help="headless output (default: text)"
    )


def decision_flags(parser: argparse.ArgumentParser) -> None:
    decisions = parser.add_argument_group("decisions (repeatable)")
    decisions.add_argument("--approve", action="append", default=[], metavar="CALL_ID|all")
    decisions.add_argument(
        "--reject", action="append", default=[], metavar="CALL_ID[:message]", help="also all[:message]"
    )
    decisions.add_argument("--retry", action="append", default=[], metavar="CALL_ID|all")
    decisions.add_argument("--cancel", action="append", default=[], metavar="CALL_ID|all")


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def wait_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wait",
        action="store_true",
        help="headless: on a pause for approval, wait for decisions recorded from anywhere "
        "(cairn decide ID ..., cairn resume ID --approve ...) instead of exiting 3",
    )
    parser.add_argument(
        "--wait-timeout",
        type=seconds,
        metavar="S",
        help="with --wait: give up after S seconds and exit 3 (default: wait until Ctrl-C)",
    )
