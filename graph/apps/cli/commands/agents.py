"""``cairn agents list [SESSION]`` / ``merge AGENT_ID`` / ``remove AGENT_ID``: sub-agents from the shell.

``merge`` brings a finished worktree sub-agent's branch into the parent's checkout and removes
its worktree (what the ``agent_merge`` tool does); ``remove`` deletes a finished sub-agent's
worktree and keeps its branch (``git merge BRANCH`` still works).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options

#: Statuses of a sub-agent that is still at work (its worktree must stay).
AT_WORK = ("new", "running", "awaiting_approval")


def run_agents(ns: argparse.Namespace, opts: Options) -> int:
    if ns.action == "list":  # reading only: a read-only store is listed all the same
        from cairn.graph.apps.cli.commands.show import open_for_reading

        store = open_for_reading(opts.db)
    else:
        from cairn.checkpoints import open_store

        store = open_store(opts.db)
    try:
        if ns.action == "list":
            return _list(store, ns, opts)
        record = _agent(store, ns.id)
        if ns.action == "merge":
            return _merge(store, record)
        return _remove(store, record)
    finally:
        store.close()


def _list(store: Any, ns: argparse.Namespace, opts: Options) -> int:
    from cairn.graph.core.agent_reports import standing

    if ns.id:
        parent = _session(store, ns.id)
        parents = [parent]
    else:
        parents = store.sessions.list(opts.workspace_root())
    rows = [standing(store, child) for p in parents for child in store.sessions.children(p.session_id)]
    if ns.json:
        print(json.dumps(rows, indent=2, default=str))
        return 0
    if not rows:
        print("no sub-agents")
        return 0
    for row in rows:
        print(f"{row['agent_id']}  {row['status']:<17} {row['kind']:<10} {row['description']}")
        if row.get("branch"):
            print(f"    branch {row['branch']}  worktree {row.get('worktree')}")
    return 0


def _session(store: Any, prefix: str) -> Any:
    record = store.sessions.get(prefix)
    if record is not None:
        return record
    matches = [r for r in store.sessions.list(None) if r.session_id.startswith(prefix)]
    if len(matches) != 1:
        raise CliError(f"no single session matches {prefix!r} (cairn sessions lists them)")
    return matches[0]


def _agent(store: Any, agent_id: str | None) -> Any:
    if not agent_id:
        raise CliError("which sub-agent? give its id (cairn agents list shows them)")
    record = store.sessions.get(agent_id)
    if record is None or not record.parent_id:
        raise CliError(f"no sub-agent {agent_id!r} (cairn agents list shows them)")
    return record


def _worktree(record: Any) -> tuple[dict[str, Any], Path]:
    from cairn.graph.core.agent_reports import agent_info

    info = agent_info(record)
    if not info.get("branch"):
        raise CliError(f"{record.session_id} is not a worktree sub-agent")
    if record.status in AT_WORK:
        raise CliError(f"{record.session_id} is still {record.status}; wait for it to finish")
    return info, Path(info["worktree"])


def _merge(store: Any, record: Any) -> int:
    from cairn.graph.session import worktree

    info, path = _worktree(record)
    parent = store.sessions.get(record.parent_id)
    try:
        out = worktree.merge(Path(parent.workspace), path, info["branch"])
    except worktree.WorktreeError as exc:
        raise CliError(str(exc)) from None
    print(out or f"merged {info['branch']}")
    return 0


def _remove(store: Any, record: Any) -> int:
    from cairn.graph.session import worktree

    info, path = _worktree(record)
    parent = store.sessions.get(record.parent_id)
    if not path.exists():
        print(f"worktree {path} is already gone; branch {info['branch']} is kept")
        return 0
    try:
        worktree.remove(Path(parent.workspace), path)
    except worktree.WorktreeError as exc:
        raise CliError(str(exc)) from None
    print(f"removed worktree {path}; branch {info['branch']} is kept (git merge {info['branch']})")
    return 0
