"""``cairn resume``'s decision flags (--approve/--reject/--retry/--cancel) → ``Session.decide`` input.

``all`` expands to the calls a flag applies to: calls awaiting approval for --approve/--reject,
interrupted calls for --retry/--cancel.  A run that was cut off (the process died) has no
prompt yet, so it is recovered first; ``all`` then covers only calls the model had made before
the crash, never a new call the recovered run proposes.  Every problem is a ``CliError``
(exit 2): a flag on a session with nothing to decide, an ``all`` that matches nothing, two
decisions for one call, or calls left undecided.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from cairn.graph.apps.cli.exits import CliError

#: Index statuses that mean the last run did not finish on its own (the process died).
CUT_OFF = ("running",)
GATED = ("awaiting_approval", "interrupted")


def given(ns: argparse.Namespace) -> bool:
    return bool(ns.approve or ns.reject or ns.retry or ns.cancel)


def build_decisions(
    ns: argparse.Namespace,
    pending: list[Any],
    *,
    all_of: set[str] | None = None,
    status: str = "",
) -> dict[str, Any]:
    """The flags as ``{call_id: decision}``; ``all`` expands within ``all_of`` when given.

    Unknown explicit ids pass through, for the session to refuse with the list of valid ones.
    """
    if given(ns) and not pending:
        where = f" (it is {status})" if status else ""
        raise CliError(
            f"nothing to decide: no tool call is waiting for a decision{where}; "
            "resume without --approve/--reject/--retry/--cancel (add -p MESSAGE to send a message)"
        )
    covered = [c for c in pending if all_of is None or c.call_id in all_of]
    asking = [c.call_id for c in covered if c.status == "awaiting_approval"]
    stopped = [c.call_id for c in covered if c.status == "interrupted"]
    known = {c.call_id for c in pending}
    decisions: dict[str, Any] = {}
    flags: dict[str, str] = {}

    def put(cid: str, decision: Any, flag: str) -> None:
        if cid in decisions and decisions[cid] != decision:
            raise CliError(f"conflicting decisions for {cid}: {flags[cid]} and {flag}")
        decisions[cid] = decision
        flags[cid] = flag

    def expand(flag: str, value: str, ids: list[str], what: str) -> list[str]:
        if value != "all":
            return [value]
        if not ids:
            others = ", ".join(f"{c.call_id} ({c.status})" for c in pending)
            raise CliError(f"{flag} all matches nothing: no call is {what} (waiting: {others})")
        return ids

    for value in ns.approve:
        for cid in expand("--approve", value, asking, "awaiting approval"):
            put(cid, "approve", f"--approve {value}")
    for value in ns.reject:
        cid, message = value, ""
        if value not in known and ":" in value:
            cid, _, message = value.partition(":")
        for one in expand("--reject", cid, asking, "awaiting approval"):
            put(one, {"reject": message} if message else "reject", f"--reject {value}")
    for flag, action in ((ns.retry, "retry"), (ns.cancel, "cancel")):
        for value in flag:
            for cid in expand(f"--{action}", value, stopped, "interrupted"):
                put(cid, action, f"--{action} {value}")
    return decisions


def check_complete(decisions: dict[str, Any], pending: list[Any]) -> None:
    """Headless: every paused call needs a decision, or none is applied."""
    undecided = [c.call_id for c in pending if c.call_id not in decisions]
    if undecided:
        raise CliError(
            f"every paused call needs a decision; still undecided: {', '.join(undecided)} "
            "(use --approve/--reject for calls awaiting approval, --retry/--cancel for interrupted ones)"
        )


def prepare(
    session: Any, ns: argparse.Namespace, recover: Callable[[], Any], *, complete: bool = True
) -> tuple[dict[str, Any], Any]:
    """``(decisions, recovered RunResult or None)``: recovers a cut-off run first, then builds.

    A ``CliError`` raised after a recovery carries that run's result in ``.result``.
    """
    pending = session.pending()
    recovered = None
    before: set[str] | None = None
    if not pending and session.status in CUT_OFF:
        before = {c.call_id for c in session.tool_calls()}
        recovered = recover()
        pending = list(recovered.pending) if recovered.status in GATED else []
    try:
        status = recovered.status if recovered is not None else session.status
        decisions = build_decisions(ns, pending, all_of=before, status=status)
        if complete:
            check_complete(decisions, pending)
    except CliError as exc:
        exc.result = recovered
        raise
    return decisions, recovered
