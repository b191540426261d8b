"""A cairn process for the kill tests: runs one Session action, optionally pausing at a hook.

    python -m tests.support.kill_driver --db DB --workspace WS --script S.json --marks DIR \
        (--send TEXT | --continue | --approve | --retry | --compact) [--session ID] [--hook NAME]

Test tools record every run in ``DIR/runs.log`` (one line per start) so the test can count
side effects across processes. Hooks write a marker file and then sleep, so the test kills
the process at an exact point:

- ``tool``: inside ``effect``/``parallel_slow`` while it runs (the tools do this by themselves)
- ``after_result``: right after a terminal result is journaled, before the graph moves on
- ``model``: at the start of a model call
- ``after_writes``: ``observation`` finished and its writes are saved, before the next checkpoint
- ``after_input``: the run's input checkpoint and its ``__start__`` writes are saved, not step 0's
- ``input_only``: only the run's input checkpoint is saved (the ``__start__`` writes never land)
- ``first_write``: ``Session.send`` stored the prompt, before any checkpoint of its run
- ``sending``: marks the start of ``Session.send`` and goes on (for kills at random delays)
- ``hold``: after the action returned (e.g. paused awaiting approval), like a CLI waiting for input
- ``summary``: at the start of a compaction summary call (logged in ``DIR/summaries.log``); it
  hangs while a ``slow-summary`` file exists

A ``fast`` file in DIR makes every effect instant (for retries of a call recorded as slow).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult

MARKS: Path = Path(".")


def _touch(name: str) -> None:
    (MARKS / name).write_text(str(time.time()))


def _log_run(label: str) -> None:
    with open(MARKS / "runs.log", "a") as fh:
        fh.write(label + "\n")
        fh.flush()


class EffectArgs(ArgsModel):
    label: str = Field(description="Name of this side effect.")
    seconds: float = Field(default=0.0, description="How long the effect takes.")


class _EffectBase(Tool):
    description = "A test side effect that is counted in runs.log."
    args_schema = EffectArgs
    risk_level = RiskLevel.LOW

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        _log_run(params.label)
        _touch(f"started-{params.label}")
        seconds = 0.0 if (MARKS / "fast").exists() else params.seconds
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if ctx.cancel.is_set():
                return ToolResult.fail("cancelled", cancelled=True)
            time.sleep(0.02)
        _touch(f"done-{params.label}")
        return ToolResult(output=f"ran {params.label}", display=f"effect {params.label}")


class EffectTool(_EffectBase):
    name = "effect"


class ParallelEffectTool(_EffectBase):
    name = "parallel_effect"
    concurrency_safe = True


class GatedEffectTool(_EffectBase):
    name = "gated_effect"
    risk_level = RiskLevel.MEDIUM


class LookupTool(_EffectBase):
    """Read-only and idempotent: may be retried automatically after an interruption."""

    name = "lookup"
    read_only = True
    idempotent = True
    concurrency_safe = True


TEST_TOOLS = (EffectTool, ParallelEffectTool, GatedEffectTool, LookupTool)


def _install_hooks(hook: str | None) -> None:
    if hook == "first_write":
        # The prompt is stored (with its staging row), no checkpoint of the run exists yet.
        from cairn.checkpoints.transcript import Transcript

        original_append = Transcript.append

        def append(self: Any, thread_id: str, parent: Any, messages: Any, **kw: Any) -> Any:
            head = original_append(self, thread_id, parent, messages, **kw)
            if kw.get("also") is not None:
                _touch("prompt-stored")
                time.sleep(120)
            return head

        Transcript.append = append  # type: ignore[method-assign]
    if hook == "sending":  # only marks the moment Session.send is called (a test kills at random)
        from cairn.graph.session.session import Session

        original_send = Session.send

        def send(self: Any, *args: Any, **kw: Any) -> Any:
            _touch("sending")
            return original_send(self, *args, **kw)

        Session.send = send  # type: ignore[method-assign]
    if hook == "after_result":
        from cairn.checkpoints.journal import ToolJournal

        original = ToolJournal.record

        def record(self: Any, thread_id: str, call: dict, *, result: Any = None, **kw: Any) -> None:
            original(self, thread_id, call, result=result, **kw)
            if result is not None and call.get("status") in ("success", "error"):
                name = "compaction" if call["call_id"].startswith("compaction-") else call["call_id"]
                _touch(f"journaled-{name}")
                time.sleep(120)

        ToolJournal.record = record  # type: ignore[method-assign]
    if hook in ("after_input", "input_only"):
        # The run's input checkpoint (LangGraph's step -1) is saved, the first step's is not; with
        # ``after_input`` the ``__start__`` task's writes are saved too, with ``input_only`` they
        # never land (LangGraph saves them from a background thread while its loop goes on).
        def start_writes(config: Any, writes: Any, task_id: str, task_path: str = "") -> bool:
            return "__start__" in str(task_path)

        def first_step(config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> bool:
            if metadata.get("source") == "loop" and metadata.get("step") == 0:
                if hook == "after_input":
                    time.sleep(1.0)  # let the background put_writes land
                _touch("input-saved")
                return True
            return False

        if hook == "input_only":
            _hold_saver("put_writes", start_writes)
        _hold_saver("put", first_step)
    if hook == "after_writes":
        # ``observation`` finished and its writes are saved (LangGraph saves a task's writes as
        # it ends, from a background thread), but the checkpoint after it is not written yet.
        def after_observation(config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> bool:
            values = checkpoint.get("channel_values", {})
            if "branch:to:reasoning" in values and (values.get("counters") or {}).get("tool_calls"):
                time.sleep(1.0)  # let the background put_writes land
                _touch("observed")
                return True
            return False

        _hold_saver("put", after_observation)
    if hook == "model":
        from cairn.graph.models.scripted import ScriptedChatModel

        original_next = ScriptedChatModel._next_turn

        def next_turn(self: Any, messages: Any) -> Any:  # both invoke and stream go through here
            count = sum(1 for m in messages if m.type == "ai")
            _touch(f"model-{count}")
            if (MARKS / "slow-model").exists():
                time.sleep(120)
            return original_next(self, messages)

        ScriptedChatModel._next_turn = next_turn  # type: ignore[method-assign]
    # Every summary call is logged, so tests can count them across processes.
    from cairn.graph.models.script import is_summary_request
    from cairn.graph.models.scripted import ScriptedChatModel

    plain_next = ScriptedChatModel._next_turn

    def counted(self: Any, messages: Any) -> Any:
        if messages and is_summary_request(messages[0].text):
            with open(MARKS / "summaries.log", "a") as fh:
                fh.write("summary\n")
            if hook == "summary":
                _touch("summary-started")
                if (MARKS / "slow-summary").exists():
                    time.sleep(120)
        return plain_next(self, messages)

    ScriptedChatModel._next_turn = counted  # type: ignore[method-assign]


def _hold_saver(method: str, hold: Callable[..., bool]) -> None:
    """Make both savers' ``method`` (``put`` or ``put_writes``) stop, for the test's SIGKILL,
    when ``hold`` (called with the method's arguments) says so; ``hold`` marks the moment."""
    from cairn.checkpoints.sqlite import CompactSqliteSaver

    savers: list[Any] = [CompactSqliteSaver]
    try:
        from langgraph.checkpoint.postgres import PostgresSaver

        savers.append(PostgresSaver)
    except ImportError:
        pass
    for cls in savers:
        original = getattr(cls, method)

        @functools.wraps(original)  # LangGraph reads put_writes' signature (task_path)
        def held(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            if hold(*args, **kwargs):
                time.sleep(120)
            return _original(self, *args, **kwargs)

        setattr(cls, method, held)


def main(argv: list[str] | None = None) -> int:
    global MARKS
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--marks", required=True)
    ap.add_argument("--session")
    ap.add_argument("--hook")
    ap.add_argument("--mcp-config", action="append", default=[], help="an MCP config file (mcpServers)")
    action = ap.add_mutually_exclusive_group(required=True)
    action.add_argument("--send")
    action.add_argument("--continue", dest="cont", action="store_true")
    action.add_argument("--approve", action="store_true")
    action.add_argument("--retry", action="store_true")
    action.add_argument("--compact", action="store_true")
    args = ap.parse_args(argv)
    MARKS = Path(args.marks)
    _install_hooks(args.hook)
    from cairn import Session
    from cairn.graph.models import create_model
    from cairn.tools.workspace import Workspace

    ws = Workspace(args.workspace)
    tools = [cls(ws) for cls in TEST_TOOLS]
    model = create_model(f"script:{args.script}")
    if args.session:
        session = Session.resume(
            args.session, db=args.db, model=model, tools=tools, mcp_config=args.mcp_config
        )
    else:
        session = Session(args.workspace, db=args.db, model=model, tools=tools, mcp_config=args.mcp_config)
    print(json.dumps({"session_id": session.id}), flush=True)
    if args.send:
        result = session.send(args.send)
    elif args.cont:
        result = session.continue_()
    elif args.approve:
        result = session.approve()
    elif args.compact:
        info = session.compact()
        print(
            json.dumps({"status": "compacted", **{k: v for k, v in info.items() if k != "summary"}}),
            flush=True,
        )
        session.close()
        return 0
    else:
        result = session.retry()
    print(json.dumps(result.to_json()), flush=True)
    if args.hook == "hold":  # sit at the pause like an interactive CLI waiting for a person
        _touch("held")
        time.sleep(120)
    session.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
