"""``cairn policy ...``: the policy's own CLI, with cairn's common flags accepted anywhere.

``cairn.policy.cli`` knows ``check TOOL ARGS [--workspace DIR] [--mode MODE] ...``.  People type
``cairn -C DIR policy check ...`` or put ``-C DIR`` at the end, as with every other command, so
the common flags are taken out here wherever they are: ``--workspace``/``-C`` is checked and
passed on as ``--workspace``, ``--approval`` becomes ``--mode`` (unless ``--mode`` is given),
``-v`` and the flags that do not concern the policy (``--model``, ``--db``...) are dropped.
"""

from __future__ import annotations

import os
import sys

from cairn.graph.apps.cli.exits import USAGE, CliError

#: Common flags with a value that mean nothing to the policy.
_IGNORED_VALUE = ("--model", "--base-url", "--db", "--max-steps")
_WORKSPACE = ("--workspace", "-C")


def translate(argv: list[str]) -> list[str]:
    """``argv`` for ``cairn.policy.cli.main``: common flags removed, the workspace checked and passed."""
    rest: list[str] = []
    workspace: str | None = None
    approval: str | None = None
    index = 0
    while index < len(argv):
        token = argv[index]
        if token == "--":
            rest += argv[index:]
            break
        name, eq, inline = token.partition("=")
        if name in (*_WORKSPACE, "--approval", *_IGNORED_VALUE):
            if eq:
                value = inline
            elif index + 1 < len(argv):
                value = argv[index + 1]
                index += 1
            else:
                raise CliError(f"argument {name}: expected a value")
            if name in _WORKSPACE:
                workspace = value
            elif name == "--approval":
                approval = value
        elif token.startswith("-C") and len(token) > 2:  # -CDIR
            workspace = token[2:]
        elif token not in ("-v", "--verbose", "--plain"):
            rest.append(token)
        index += 1
    if workspace is not None:
        path = os.path.realpath(os.path.expanduser(workspace))
        if not os.path.isdir(path):
            raise CliError(f"workspace {workspace!r} is not a directory", USAGE)
        rest += ["--workspace", path]
    if approval is not None and not any(t == "--mode" or t.startswith("--mode=") for t in rest):
        rest += ["--mode", approval]
    return rest


def run_policy(argv: list[str]) -> int:
    try:
        from cairn.policy.cli import main as policy_main
    except ImportError as exc:
        print(f"cairn: error: `cairn policy` is not available: {exc}", file=sys.stderr)
        return USAGE
    from cairn.graph.apps.cli.commands.policy_keys import warning

    args = translate(argv)
    flagged = warning(args)
    if flagged:
        print(f"cairn policy: {flagged}", file=sys.stderr)
    code = policy_main(args)
    return code if isinstance(code, int) else 0
