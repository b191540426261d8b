"""The scripted-conversation format shared by ``ScriptedChatModel`` and the tests' OpenAI server.

A script is ``{"turns": [...]}`` or a bare list of turns.  Each turn is one assistant reply::

    {"content": "text" | ["explicit", " chunks"],
     "tool_calls": [{"name": "read_file", "args": {"path": "a.py"}, "id": "c1"}],
     "sleep": 0.0,                                  # seconds to wait before answering
     "error": {"status": 500, "message": "boom"},   # fail on every attempt at this turn
     "http_error": 429, "times": 1,                 # fail N times, then answer normally
     "finish_reason": "length",                     # the reason stated (default: stop/tool_calls)
     "cut": true,                                   # the stream ends without a finish reason
     "empty_choices": 2,                            # answer ``choices: []`` N times (true: always)
     "arg_delta": 16,                               # stream call arguments in deltas of N chars
     "usage": {"input_tokens": 1200, "output_tokens": 80, "cached_input_tokens": 1000}}
                                                    # the usage reported (default: word counts)

A tool call may give ``"raw_args": "<text>"`` instead of ``args`` to send arguments that are not
valid JSON (to exercise malformed-call handling).  Which turn answers a request is derived from the
request alone (the number of assistant messages already in it), so replay is correct after a
process restart.  Past the last turn the answer is ``END_OF_SCRIPT``.

This module imports only the standard library: the test server uses it without LangChain.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.errors import CairnError

END_OF_SCRIPT = "(end of script)"

# -- compaction on the wire --------------------------------------------------------------------
# cairn's compaction replaces older messages by a summary.  Two fixed texts let a scripted model
# (and the tests' server) stay stateless across that: the summary request's system prompt starts
# with SUMMARY_REQUEST_PREFIX (answered by a summary, not a script turn), and the summary message
# says how many assistant messages it replaced, so the turn index still counts them.
SUMMARY_REQUEST_PREFIX = "You are compacting the conversation of a coding session"
COMPACTED_MARK = "[{count} earlier assistant messages summarized]"
_COMPACTED_RE = re.compile(r"\[(\d+) earlier assistant messages summarized\]")
SCRIPTED_SUMMARY = (
    "## Goal\n(scripted summary)\n## Decisions\n-\n## Files touched\n-\n"
    "## Open problems\n-\n## Next steps\n- continue"
)


def is_summary_request(first_text: str) -> bool:
    """Whether a request whose first (system) message reads ``first_text`` asks for a summary."""
    return first_text.startswith(SUMMARY_REQUEST_PREFIX)


def summarized_assistant_count(texts: list[str]) -> int:
    """Assistant messages a compaction summary among ``texts`` stands for (0 if none)."""
    for text in texts:
        match = _COMPACTED_RE.search(text[:400])
        if match:
            return int(match.group(1))
    return 0


_TURN_KEYS = {
    "content",
    "tool_calls",
    "sleep",
    "error",
    "http_error",
    "times",
    "finish_reason",
    "cut",
    "empty_choices",
    "arg_delta",
    "usage",
    "reasoning",
}
_CALL_KEYS = {"name", "args", "arguments", "raw_args", "id"}


class ScriptedModelError(CairnError, RuntimeError):
    """A failure a script asked for; ``status_code`` mirrors the HTTP status a server would send."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.message = message


@dataclass(frozen=True)
class ScriptToolCall:
    name: str
    id: str
    args: dict[str, Any] = field(default_factory=dict)
    raw_args: str | None = None

    @property
    def arguments_text(self) -> str:
        """The arguments as the wire carries them (a JSON string, or the raw text)."""
        return self.raw_args if self.raw_args is not None else json.dumps(self.args)


@dataclass(frozen=True)
class ScriptTurn:
    chunks: tuple[str, ...] = ()
    tool_calls: tuple[ScriptToolCall, ...] = ()
    sleep: float = 0.0
    error: tuple[int, str] | None = None
    http_error: int | None = None
    times: int = 1
    #: The finish reason stated (None: ``tool_calls`` or ``stop``, as the turn has calls or not).
    finish: str | None = None
    #: The reply ends without any finish reason (a stream cut short).
    cut: bool = False
    #: Answer with no choices this many times (a very large number: always).
    empty_choices: int = 0
    #: Stream each call's arguments in deltas of this many characters (0: three deltas).
    arg_delta: int = 0
    #: The usage to report: (input, output, cached input) tokens; None: word counts.
    usage: tuple[int, int, int] | None = None
    #: Reasoning the model shows before its answer (``reasoning_content``, as llama.cpp, vLLM
    #: and DeepSeek send it); empty: none.
    reasoning: str = ""

    @property
    def finish_reason(self) -> str | None:
        """What the reply states as its finish reason (None when it is cut)."""
        if self.cut:
            return None
        return self.finish or ("tool_calls" if self.tool_calls else "stop")

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def stream_pieces(self) -> list[str]:
        """Content as streamed: the explicit chunks, or one token (word plus spacing) at a time."""
        if len(self.chunks) != 1:
            return list(self.chunks)
        return split_tokens(self.chunks[0])

    def output_tokens(self) -> int:
        """A deterministic stand-in for a token count: words of text plus words of each call."""
        calls = sum(1 + count_words(call.arguments_text) for call in self.tool_calls)
        return count_words(self.text) + calls


def split_tokens(text: str) -> list[str]:
    """Split into word-plus-trailing-space pieces whose concatenation is ``text``."""
    return re.findall(r"\S+\s*|\s+", text)


def count_words(text: str) -> int:
    return len(text.split())


def _parse_call(raw: Any, turn_index: int, call_index: int) -> ScriptToolCall:
    where = f"turn {turn_index}, tool call {call_index}"
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise ValueError(f"script {where}: expected an object with a string 'name'")
    unknown = set(raw) - _CALL_KEYS
    if unknown:
        raise ValueError(f"script {where}: unknown keys {sorted(unknown)}")
    args = raw.get("args", raw.get("arguments", {}))
    if not isinstance(args, dict):
        raise ValueError(f"script {where}: 'args' must be an object (use 'raw_args' for raw text)")
    raw_args = raw.get("raw_args")
    if raw_args is not None and not isinstance(raw_args, str):
        raise ValueError(f"script {where}: 'raw_args' must be a string")
    call_id = raw.get("id") or f"call_t{turn_index}_{call_index}"
    return ScriptToolCall(name=raw["name"], id=str(call_id), args=args, raw_args=raw_args)


def parse_turn(raw: Any, index: int) -> ScriptTurn:
    """Validate one turn; a plain string is shorthand for ``{"content": string}``."""
    if isinstance(raw, str):
        raw = {"content": raw}
    if not isinstance(raw, dict):
        raise ValueError(f"script turn {index}: expected an object or a string, got {type(raw).__name__}")
    unknown = set(raw) - _TURN_KEYS
    if unknown:
        raise ValueError(f"script turn {index}: unknown keys {sorted(unknown)}")
    content = raw.get("content") or ""
    if isinstance(content, str):
        chunks: tuple[str, ...] = (content,) if content else ()
    elif isinstance(content, list) and all(isinstance(c, str) for c in content):
        chunks = tuple(content)
    else:
        raise ValueError(f"script turn {index}: 'content' must be a string or a list of strings")
    calls = tuple(_parse_call(c, index, i) for i, c in enumerate(raw.get("tool_calls") or []))
    error = raw.get("error")
    if error is not None:
        if not isinstance(error, dict):
            raise ValueError(f"script turn {index}: 'error' must be an object like {{'status': 500}}")
        error = (int(error.get("status", 500)), str(error.get("message", "scripted error")))
    http_error = raw.get("http_error")
    empty = raw.get("empty_choices") or 0
    usage = raw.get("usage")
    if usage is not None:
        if not isinstance(usage, dict) or not all(
            isinstance(usage.get(k, 0), int) for k in ("input_tokens", "output_tokens", "cached_input_tokens")
        ):
            raise ValueError(f"script turn {index}: 'usage' must map token kinds to integers")
        usage = (
            int(usage.get("input_tokens", 0)),
            int(usage.get("output_tokens", 0)),
            int(usage.get("cached_input_tokens", 0)),
        )
    reasoning = raw.get("reasoning") or ""
    if not isinstance(reasoning, str):
        raise ValueError(f"script turn {index}: 'reasoning' must be a string")
    return ScriptTurn(
        reasoning=reasoning,
        usage=usage,
        finish=str(raw["finish_reason"]) if raw.get("finish_reason") else None,
        cut=bool(raw.get("cut")),
        empty_choices=1_000_000 if empty is True else int(empty),
        arg_delta=int(raw.get("arg_delta") or 0),
        chunks=chunks,
        tool_calls=calls,
        sleep=float(raw.get("sleep") or 0.0),
        error=error,
        http_error=int(http_error) if http_error is not None else None,
        times=int(raw.get("times", 1)),
    )


def parse_script(data: Any) -> list[ScriptTurn]:
    """Turn ``{"turns": [...]}`` or a bare list into validated turns (``ValueError`` if malformed)."""
    if isinstance(data, dict):
        if "turns" not in data:
            raise ValueError("script: expected {'turns': [...]} or a list of turns")
        data = data["turns"]
    if not isinstance(data, list):
        raise ValueError("script: 'turns' must be a list")
    return [parse_turn(raw, i) for i, raw in enumerate(data)]


def load_script(path: str | Path) -> list[ScriptTurn]:
    """Read and validate a JSON script file; errors name the file."""
    path = Path(path).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read script {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"script {path} is not valid JSON: {exc}") from exc
    try:
        return parse_script(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc


def turn_at(turns: list[ScriptTurn], index: int) -> ScriptTurn:
    """The turn answering a request that already holds ``index`` assistant messages."""
    return turns[index] if 0 <= index < len(turns) else ScriptTurn(chunks=(END_OF_SCRIPT,))
