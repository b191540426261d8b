"""``cairn sessions [--all] [--json]``: the session index, read with the stdlib only (fast)."""

from __future__ import annotations

import json
import sys
from typing import Any

from cairn.checkpoints.text_escape import escape_data  # light: `cairn sessions` loads no tools
from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options
from cairn.graph.apps.cli.tui import fmt
from cairn.graph.apps.cli.tui.term import colors_enabled

_STATUS_COLOR = {
    "done": "32",
    "error": "31",
    "awaiting_approval": "33",
    "interrupted": "33",
    "running": "36",
    "max_steps": "33",
    "loop": "33",
    "incomplete": "33",
    "no_answer": "33",
    "budget": "33",  # issue 34
}


def load(opts: Options, *, all_workspaces: bool) -> list[Any]:
    return list_records(opts.db, None if all_workspaces else opts.workspace_root())


def list_records(db: str | None, workspace: str | None, limit: int = 200) -> list[Any]:
    """Sessions (newest first, sub-agents after their parent): read-only and stdlib-only on a
    SQLite file, through the full store on Postgres."""
    from cairn.checkpoints.readonly import list_sessions

    try:
        return list_sessions(db, workspace, limit)
    except ValueError as exc:  # a postgresql:// location: needs the full store
        from cairn.checkpoints import open_store

        store = open_store(db)
        try:
            from cairn.checkpoints.readonly import with_children

            parents = store.sessions.list(workspace, limit=limit)
            return with_children(parents, [k for p in parents for k in store.sessions.children(p.session_id)])
        except Exception:
            raise CliError(str(exc)) from exc
        finally:
            store.close()


def session_rows(opts: Options, *, all_workspaces: bool, color: bool = False) -> list[str]:
    records = load(opts, all_workspaces=all_workspaces)
    if not records:
        where = "any workspace" if all_workspaces else opts.workspace_root()
        return [f"no sessions in {where}"]
    rows = []
    for r in records:
        status = f"{r.status:<17}"
        if color:
            status = f"\033[{_STATUS_COLOR.get(r.status, '2')}m{status}\033[0m"
        sid = f"  └ {r.session_id}" if r.parent_id else r.session_id[:12]
        cells = [sid, f"{fmt.ago(r.updated_at):>9}", status]
        if all_workspaces:
            cells.append(r.workspace)
        cells.append(r.title or "(no message yet)")
        rows.append("  ".join(cells))
    return rows


def run_sessions(ns: Any, opts: Options) -> int:
    if ns.json:
        records = load(opts, all_workspaces=ns.all)
        json.dump(escape_data([r.to_dict() for r in records]), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    for row in session_rows(opts, all_workspaces=ns.all, color=colors_enabled(sys.stdout)):
        print(row)
    return 0
