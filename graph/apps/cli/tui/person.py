"""What a person reads about a tool call, as opposed to what the model reads.

Tool results are written for the model: ``[stderr]`` line prefixes, an ``Exit code: 0`` line
(the call's line already says ``exit 0``), instructions such as ``Read its output with
bash_output(task_id=...)`` or ``Fix the arguments and call the tool again.``. The person's view
keeps the output and drops those; it also names outcomes plainly (``denied``, ``interrupted``,
``rejected``) and shows a decision without nested brackets.
"""

from __future__ import annotations

import re
from typing import Any

from cairn.graph.display.parts import failed_command

#: Whole lines written to steer the model; never shown to the person.
_FOR_MODEL = re.compile(
    r"^(?:Read its output with bash_output\(.*"
    r"|Fix the arguments and call the tool again\."
    r"|It runs until it exits, you stop it, or the session ends\."
    r"|It will be stopped after .*"
    r"|Exit code: -?\d+(?: \(killed by \w+\))?"
    r"|Duration: .*"
    r"|Note: the command left \d+ background process(?:es)? running; stopped\. Use run_in_background=true .*"
    r")$"
)
_STDERR = "[stderr] "
#: Every line ``_FOR_MODEL`` drops starts with one of these, so text without them is kept whole.
_MARKERS = (
    "Read its output with bash_output(",
    "Fix the arguments",
    "It runs until",
    "It will be stopped after ",
    "Exit code: ",
    "Duration: ",
    "Note: the command left ",
    _STDERR,
)
_DENIED = ("Denied by policy", "A person edited this call, but the edited call is denied")


def outcome(call: dict[str, Any]) -> str:
    """The status word a person reads: ``denied`` and ``rejected`` are told apart from
    ``cancelled`` (which remains for interrupted calls a person chose not to run again), and a
    command that ran but exited non-zero is ``failed``, not ``success``."""
    status = str(call.get("status") or "pending")
    if status == "success" and failed_command(call.get("metadata"), call.get("display")):
        return "failed"
    if status != "cancelled":
        return status
    error = str(call.get("error_msg") or "")
    decision = str(call.get("decision") or "")
    if error.startswith(_DENIED):
        return "denied"
    if decision.startswith("rejected"):
        return "rejected"
    return status


def output(text: str) -> str:
    """A tool's output for the person: no ``[stderr]`` prefixes, no lines meant for the model."""
    if any(marker in text for marker in _MARKERS):
        kept = []
        for line in text.splitlines():
            if _FOR_MODEL.match(line):
                continue
            kept.append(line[len(_STDERR) :] if line.startswith(_STDERR) else line)
    else:  # (a long session's show reads megabytes of output: no regex per line)
        kept = text.splitlines()
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept)


def summary(call: dict[str, Any]) -> str:
    """The call's one-line summary (``display``), said once and in the person's words."""
    status = call.get("status")
    display = str(call.get("display") or "")
    error = str(call.get("error_msg") or "")
    if status == "interrupted":
        display = re.sub(r" — (?:cancelled|stopped) after ", " — interrupted after ", display)
        return display or "interrupted"
    if outcome(call) == "rejected":
        message = str(call.get("decision") or "").partition(":")[2].strip()
        return f"rejected: {message}" if message else "rejected"
    if not display and error:
        return output(error).splitlines()[0] if output(error).strip() else ""
    return output(display)


def details(call: dict[str, Any]) -> str:
    """The text under the line: the output, or the error when it says more than the summary."""
    status = call.get("status")
    if status == "success":
        return output(_result_text(call))
    if outcome(call) in ("rejected", "denied"):
        return ""  # the summary said it; the message is shown once
    text = output(str(call.get("error_msg") or ""))
    first = text.splitlines()[0] if text else ""
    if first and first.strip() == summary(call).strip():
        text = "\n".join(text.splitlines()[1:])
    return text


def decision_label(call: dict[str, Any]) -> str:
    """``always: bash(pytest:*)``, ``edited``, ``retried``...; empty for a plain approval.
    Rejections are said by the summary, so they get no label here."""
    decision = str(call.get("decision") or "")
    if not decision or decision in ("approved", "auto-retried") or decision.startswith("rejected"):
        return ""
    match = re.fullmatch(r"approved always \((.*)\)", decision)
    if match:
        return f"always: {match.group(1)}"
    if decision.startswith("approved (once"):
        return "approved once: no safe 'always' rule fits"
    return decision


def _result_text(call: dict[str, Any]) -> str:
    result = call.get("result")
    if isinstance(result, str):
        return result
    if isinstance(result, list):
        parts = [b.get("text", "") if b.get("type") == "text" else f"[{b.get('type')}]" for b in result]
        return "\n".join(p for p in parts if p)
    return ""
