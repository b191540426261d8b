"""Noticing a model that repeats itself, and answering the repeat instead of running it again.

Within one run (from a person's message to the answer), every finished call of the current
*epoch* is remembered by a hash of its tool and exact arguments: the epoch moves on (and the
memory empties) whenever a call that can change things succeeds.  The memory is a few dozen
bytes per call and lives in the checkpointed state; the earlier result is read back from the
transcript only when a repeat is found.  A new call identical to one in the same epoch is a
repeat — nothing it depends on has changed, so running it would give the same answer:

- a read-only call that succeeded: the earlier result again, with a note;
- a call that changed things and succeeded: "already done", not run again;
- a call that failed: the same error, with a note to change the arguments;
- a call a person rejected (or the policy denied): the earlier answer, without asking again.

After ``repeat_limit`` repeats of one call the run pauses (status ``loop``) with the reason; the
person can continue.  So does a run whose last ``repeat_limit`` model turns held only calls that
could not run (``invalid_streak``).  A tool failing the same way twice in a row gets the help its result carries
(``metadata["help"]``: for edit_file the context of every match, or the closest lines).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cairn.graph.core.state import ToolCallInfo

#: Calls of the current epoch remembered (loops are local; the state stays small).
MAX_REMEMBERED = 16
#: Most characters of the earlier result repeated to the model.
MAX_SHOWN_RESULT = 2_000


@dataclass
class Repeat:
    status: str  # the status the repeated call gets: success | error | cancelled
    text: str  # what the model reads
    earlier: str  # the earlier call's id
    count: int  # how many times this call has now been repeated


def call_key(tool_name: str, arguments: dict[str, Any]) -> str:
    text = tool_name + "\0" + json.dumps(arguments, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fresh_memory() -> dict[str, Any]:
    return {"epoch": 0, "calls": {}, "last_failure": {}}


def repeat_of(
    call: ToolCallInfo, memory: dict[str, Any] | None, earlier_text: Callable[[str], str]
) -> Repeat | None:
    """The answer to ``call`` if it repeats an earlier call of this epoch, else ``None``.
    ``earlier_text(call_id)`` reads what the earlier call answered (its ToolMessage)."""
    if not memory:
        return None
    seen = memory.get("calls", {}).get(call_key(call.tool_name, call.arguments))
    if seen is None:
        return None
    earlier, status, changing, repeats = seen
    count = repeats + 1
    result = earlier_text(earlier)
    if len(result) > MAX_SHOWN_RESULT:
        result = result[:MAX_SHOWN_RESULT] + f"… (the rest is in {earlier}'s result)"
    if status == "success" and changing:
        text = (
            f"Already done: this exact call ({earlier}) succeeded earlier in this run and nothing has "
            "changed since, so it was not run again. Go on with the next step, or finish.\n"
            f"Its result was: {result}"
        )
        return Repeat("success", text, earlier, count)
    if status == "success":
        text = (
            f"Repeat: you already made this exact call ({earlier}) in this run and nothing has changed "
            "since, so here is the same result again. Do not repeat it: use this result, or try a "
            f"different approach.\n\n{result}"
        )
        return Repeat("success", text, earlier, count)
    if status == "cancelled":
        text = (
            f"Not asked again: this exact call ({earlier}) was refused earlier in this run: {result} "
            "Do something else, or ask the person in your answer."
        )
        return Repeat("cancelled", text, earlier, count)
    text = (
        f"This exact call ({earlier}) already failed in this run and nothing has changed since, so it "
        f"would fail again: {result}\nChange the arguments (or the approach) before calling again."
    )
    return Repeat("error", text, earlier, count)


def remember(call: ToolCallInfo, memory: dict[str, Any] | None, *, changing: bool) -> dict[str, Any]:
    """Record a finished call; a successful call that may change things starts a new epoch."""
    memory = dict(memory or fresh_memory())
    remembered = dict(memory.get("calls", {}))
    key = call_key(call.tool_name, call.arguments)
    if call.decision and call.decision.startswith("repeat"):
        if key in remembered:
            earlier, status, was_changing, repeats = remembered[key]
            remembered[key] = [earlier, status, was_changing, repeats + 1]
        memory["calls"] = remembered
        return memory
    if call.status == "success" and changing:  # a change: earlier calls may now answer differently
        memory["epoch"] = memory.get("epoch", 0) + 1
        remembered = {}
    remembered.pop(key, None)
    remembered[key] = [call.call_id, call.status, changing, 0]
    while len(remembered) > MAX_REMEMBERED:
        remembered.pop(next(iter(remembered)))
    memory["calls"] = remembered
    return memory


def failure_help(call: ToolCallInfo, memory: dict[str, Any] | None) -> tuple[str | None, dict[str, Any]]:
    """Extra help for a call that failed the same way as the tool's previous call, and the
    updated memory of each tool's last failure."""
    memory = dict(memory or fresh_memory())
    if call.decision and call.decision.startswith("repeat"):
        return None, memory  # answered from an earlier call: not a new failure
    last = dict(memory.get("last_failure", {}))
    help_text = None
    if call.status == "error":
        signature = hashlib.sha256(_signature(call.error_msg or "").encode()).hexdigest()[:16]
        if last.get(call.tool_name) == signature and call.metadata.get("help"):
            help_text = str(call.metadata["help"])
        last[call.tool_name] = signature
    elif call.status == "success":
        last.pop(call.tool_name, None)
    memory["last_failure"] = last
    return help_text, memory


def _signature(error: str) -> str:
    first = error.strip().splitlines()[0] if error.strip() else ""
    return re.sub(r"\d+", "#", first)[:200]


def invalid_streak(turn: list[ToolCallInfo], memory: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
    """How many model turns in a row held only calls that could not run (not valid JSON, arguments
    missing or wrong: ``metadata["invalid"]``), this one included, and the updated memory.

    Their arguments differ from turn to turn, so they are not repeats by ``call_key``; yet
    Qwen2.5-Coder-1.5B wrote one unparsable grep after another until the task's 600 s deadline
    (issue 31).  ``observation`` pauses the run (``loop``) when the streak reaches the repeat limit."""
    memory = dict(memory or fresh_memory())
    invalid = bool(turn) and all(call.metadata.get("invalid") for call in turn)
    streak = memory.get("invalid_streak", 0) + 1 if invalid else 0
    memory["invalid_streak"] = streak
    return streak, memory
