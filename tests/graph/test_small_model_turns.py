"""Failures of small local models, replayed through the real ChatOpenAI client against the local
test server (issue 31): a reply that repeats the prompt (cut while it streams, the model told and
asked once more, then a pause), an empty answer (one nudge, then ``no_answer``), the output-token
cap on every call, and a call over its time budget (retried once, resampled, never unchanged)."""

from __future__ import annotations

from typing import Any

import pytest

from cairn import Session
from cairn.graph.apps.cli.exits import ERROR, code_for
from cairn.graph.core.prompts import build_system_prompt
from cairn.graph.models import create_model
from cairn.graph.models.runaway import EchoGuard
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

#: What Qwen2.5-Coder-1.5B streamed for minutes: the session context, then the schemas, again and again.
ECHO_PIECE = (
    "<session-context>\n# Environment\nWorkspace: /w\nOS: Linux\nDate: 2026-11-24\n</session-context>\n"
    '{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}\n'
)
RUNAWAY = {"content": [ECHO_PIECE[i : i + 8] for i in range(0, len(ECHO_PIECE), 8)] * 400}
READ = {"tool_calls": [{"name": "read_file", "args": {"file_path": "a.py"}, "id": "r1"}]}


def open_session(server, tmp_path, model: str = "any") -> Session:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "a.py").write_text("x = 1\n")
    return Session(ws, model=create_model(model, base_url=server.base_url), db=":memory:")


def send_small(make_server, tmp_path, script: list[dict], text: str, window: int = 8192):
    """``text`` sent to a session whose model has ``window`` tokens (8k: the lean profile), the
    server answering ``script`` in order; (result, server)."""
    server = make_server(script, sequential=True, model_info={"max_model_len": window})
    s = open_session(server, tmp_path)
    try:
        return s.send(text), server
    finally:
        s.close()


def last_user(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def test_a_runaway_reply_is_cut_while_streaming_and_asked_once_more(make_openai_server, tmp_path):  # noqa: F811
    streamed, server, history = _streamed_after_a_cut(make_openai_server, tmp_path, RUNAWAY)
    assert "session-context" not in "".join(m.content for m in history if isinstance(m.content, str))
    full = sum(len(piece) for piece in RUNAWAY["content"])
    assert len(streamed) < 1_000 < full  # cut at once, not streamed to the end
    retry = server.requests[1]
    assert "Your previous reply was cut off" in last_user(retry) and "session context" in last_user(retry)
    assert len([m for m in retry["messages"] if m["role"] == "assistant"]) == 0  # the echo is not kept


@pytest.mark.parametrize("answers", [1, 0])
def test_a_second_echo_is_resampled_once_then_the_run_pauses(make_openai_server, tmp_path, answers):  # noqa: F811
    """The measurement: two runs paused after two echoes in a row; the second is now asked once
    more with another seed and temperature (never unchanged), then the run pauses."""
    third = {"content": "x is 1"} if answers else RUNAWAY
    server = make_openai_server([RUNAWAY, RUNAWAY, third], sequential=True)
    s = open_session(server, tmp_path)
    try:
        result = s.send("what is x?", stream=True)
    finally:
        s.close()
    assert len(server.requests) == 3
    _, second, last = server.requests
    assert "seed" not in second and last["temperature"] == 0.7 and isinstance(last["seed"], int)
    assert "Your previous reply was cut off" in last_user(last)
    if answers:
        assert result.status == "done" and result.text == "x is 1"
    else:
        assert result.status == "incomplete"
        assert "cut 3 times" in result.error and "session-context" in result.error


def test_a_non_streamed_echo_of_the_instructions_is_caught_too(make_openai_server, tmp_path):  # noqa: F811
    echo = {"content": build_system_prompt("default", profile="lean")}
    server = make_openai_server(
        [echo, READ, {"content": "x is 1"}], sequential=True, model_info={"max_model_len": 8192}
    )
    s = open_session(server, tmp_path)
    try:
        assert s.send("what is x?").text == "x is 1"
    finally:
        s.close()
    assert "repeated the instructions" in last_user(server.requests[1])


def test_an_empty_answer_is_nudged_with_the_question_and_what_the_tools_found(make_openai_server, tmp_path):  # noqa: F811
    grep = {"tool_calls": [{"name": "grep", "args": {"pattern": "x ="}, "id": "g1"}]}
    server = make_openai_server([grep, {"content": ""}, {"content": "x is set in a.py"}], sequential=True)
    s = open_session(server, tmp_path)
    try:
        result = s.send("where is x set?")
        assert result.status == "done" and result.text == "x is set in a.py"
    finally:
        s.close()
    nudge = last_user(server.requests[2])
    assert nudge.startswith("Your last reply was empty")
    assert "The request: where is x set?" in nudge and "<session-context>" not in nudge
    assert "- grep:" in nudge and "a.py" in nudge


def test_still_empty_after_the_nudge_ends_no_answer_not_done(make_openai_server, tmp_path):  # noqa: F811
    server = make_openai_server(
        [{"content": ""}, {"content": "<|im_end|>"}, {"content": "x is 1"}], sequential=True
    )
    s = open_session(server, tmp_path)
    try:
        result = s.send("what is x?")
        assert result.status == "no_answer" and result.text == ""
        assert "empty" in result.error and code_for(result.status) == ERROR
        resumed = s.continue_()  # resumable: the model is asked again
        assert resumed.status == "done" and resumed.text == "x is 1"
    finally:
        s.close()


def test_every_call_to_a_self_hosted_server_has_an_output_cap(make_openai_server, tmp_path, monkeypatch):  # noqa: F811
    server = make_openai_server([READ, {"content": "x is 1"}], model_info={"max_model_len": 8192})
    s = open_session(server, tmp_path)
    try:
        assert s.send("what is x?").status == "done"
    finally:
        s.close()
    assert [r.get("max_tokens") for r in server.requests] == [2048, 2048]  # min(4096, 8192 // 4)
    assert all("max_completion_tokens" not in r for r in server.requests)
    monkeypatch.setenv("CAIRN_MAX_OUTPUT_TOKENS", "300")
    capped = make_openai_server([{"content": "ok"}])
    s = open_session(capped, tmp_path)
    try:
        s.send("hi")
    finally:
        s.close()
    assert capped.requests[0]["max_tokens"] == 300


@pytest.mark.parametrize("answers", [1, 0])
def test_a_call_over_its_time_budget_is_retried_once_resampled(
    make_openai_server,  # noqa: F811
    tmp_path,
    monkeypatch,
    answers,
):
    monkeypatch.setenv("CAIRN_MODEL_CALL_TIMEOUT", "0.4")
    slow = {"content": "late", "sleep": 1.5}
    script = [slow, {"content": "x is 1"}] if answers else [slow, slow]
    server = make_openai_server(script, sequential=True)
    s = open_session(server, tmp_path)
    try:
        result = s.send("what is x?", stream=True)
    finally:
        s.close()
    first, second = server.requests[:2]
    assert "seed" not in first and first.get("temperature") in (None, 0, 0.0)
    assert second["temperature"] == 0.7 and isinstance(second["seed"], int)  # not retried unchanged
    if answers:
        assert result.status == "done" and result.text == "x is 1"
    else:
        assert result.status == "error" and "did not finish a reply in time, twice" in result.error
        assert len(server.requests) == 2


def test_the_guard_leaves_tool_calls_written_as_text_and_plain_answers_alone():
    guard = EchoGuard(build_system_prompt("default", profile="lean"))
    assert guard.check('{"name": "read_file", "arguments": {"file_path": "a.py"}}') is None
    assert guard.check('{"name": "grep", "parameters": {"pattern": "def main"}}') is None
    assert guard.check("x is defined in config.py, line 3: x = 1.") is None


def test_the_call_limits_are_settings_and_the_environment_wins(tmp_path, monkeypatch):
    from cairn.graph.core.settings import load_settings
    from cairn.graph.models.call_limits import DEFAULT_CALL_TIMEOUT, CallLimits, call_limits, output_cap
    from cairn.settings_files import project_settings_file

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home" / "state"))

    def limits(**env: str) -> CallLimits:
        model = load_settings(tmp_path, environ={"CAIRN_HOME": str(tmp_path / "home" / "state"), **env}).model
        return call_limits(model.max_output_tokens, model.call_timeout)

    assert limits() == CallLimits(None, DEFAULT_CALL_TIMEOUT)
    settings = project_settings_file(tmp_path)
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("[model]\nmax_output_tokens = 1_000\ncall_timeout = 42\n")
    assert limits() == CallLimits(1000, 42.0)
    assert limits(CAIRN_MODEL_CALL_TIMEOUT="7.5").call_timeout == 7.5
    assert output_cap(CallLimits(), 8192, self_hosted=True) == 2048
    assert output_cap(CallLimits(), 131072, self_hosted=True) == 4096
    assert output_cap(CallLimits(), 131072, self_hosted=False) is None
    assert output_cap(CallLimits(500), 131072, self_hosted=False) == 500


def _streamed_after_a_cut(make_server, tmp_path, bad_reply: dict) -> tuple[str, Any, list[Any]]:
    """Send with ``bad_reply`` first, then a read and "x is 1"; the text streamed, the server and
    the stored history."""
    server = make_server([bad_reply, READ, {"content": "x is 1"}], sequential=True)
    s = open_session(server, tmp_path)
    tokens: list[str] = []
    try:
        result = s.send("what is x?", stream=True, on_event=lambda k, p: tokens.append(p.get("text", "")))
        assert result.status == "done" and result.text == "x is 1"
        return "".join(tokens), server, s.history()
    finally:
        s.close()


#: A reply that loops on its own text (not the prompt's): cut once the loop is certain.
LOOP_PIECE = "To fix the bug, change the minus to a plus in calc.py.\n"
LOOPING = {"content": [LOOP_PIECE[i : i + 7] for i in range(0, len(LOOP_PIECE), 7)] * 300}


def test_a_reply_that_loops_on_its_own_text_is_cut_and_asked_once_more(make_openai_server, tmp_path):  # noqa: F811
    streamed, server, _ = _streamed_after_a_cut(make_openai_server, tmp_path, LOOPING)
    assert len(streamed) < 2_000 < sum(len(p) for p in LOOPING["content"])
    assert "repeated the same text over and over" in last_user(server.requests[1])


def test_the_loop_check_leaves_long_varied_replies_alone():
    from cairn.graph.models.runaway import repeating_tail

    code = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(200))
    assert not repeating_tail(code) and not repeating_tail("=" * 900)
    assert repeating_tail(LOOP_PIECE * 30) and repeating_tail("ab" * 600)
    guard = EchoGuard()
    assert all(guard.feed(line) is None for line in code.splitlines(keepends=True))


#: What the model answered in round one without reading settings.toml (the file says 7).
UNLOOKED = {"content": "The value of max_retries in settings.toml is 10."}


@pytest.mark.parametrize("window", [8192, 131072])
def test_an_answer_given_without_any_call_is_asked_once_to_look_first(make_openai_server, tmp_path, window):  # noqa: F811
    server = make_openai_server(
        [UNLOOKED, READ, {"content": "x is 1"}], sequential=True, model_info={"max_model_len": window}
    )
    s = open_session(server, tmp_path)
    try:
        result = s.send("what is x?")
    finally:
        s.close()
    if window > 16384:  # the full profile (a large model) is taken at its word
        assert result.text == UNLOOKED["content"] and len(server.requests) == 1
        return
    assert result.status == "done" and result.text == "x is 1"
    assert [c.tool_name for c in result.tool_calls] == ["read_file"]
    nudge = server.requests[1]["messages"]
    assert nudge[-2]["role"] == "user" and nudge[-1]["content"].startswith("Do not answer from memory")
    assert "The request: what is x?" in nudge[-1]["content"]
    assert all(m["role"] != "assistant" for m in nudge)  # the unlooked answer is not shown again
    assert all("from memory" not in str(m.get("content")) for m in server.requests[2]["messages"])


def test_a_second_answer_without_a_call_is_taken(make_openai_server, tmp_path):  # noqa: F811
    script = [{"content": "Hello!"}, {"content": "Hello! How can I help?"}]
    result, server = send_small(make_openai_server, tmp_path, script, "hi")
    assert result.status == "done" and result.text == "Hello! How can I help?"
    assert len(server.requests) == 2


#: Round one's fix task: the same three calls written as text, offsets growing, for nine minutes
#: (the first 20 lines as streamed; the path shortened).
RECORDED_CALL_LOOP = (
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 0, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 11, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 32, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 52, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 72, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 92, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 112, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 132, "limit": 2000}}}}\n'
    '<{{"name": "grep", "arguments": {"pattern": "def test_calc", "path": "/w/src/test_calc.py", "glob": null}}}}\n'
    '<{{"name": "read_file", "arguments": {"file_path": "/w/src/test_calc.py", "offset": 152, "limit": 2000}}}}\n'
)


def test_the_same_few_calls_written_over_and_over_are_cut(make_openai_server, tmp_path):  # noqa: F811
    looping = {"content": [RECORDED_CALL_LOOP[i : i + 9] for i in range(0, len(RECORDED_CALL_LOOP), 9)] * 20}
    streamed, server, _ = _streamed_after_a_cut(make_openai_server, tmp_path, looping)
    assert len(streamed) < len(RECORDED_CALL_LOOP)  # cut before the 20 lines were through
    assert "repeated the same text over and over" in last_user(server.requests[1])


def test_a_text_call_is_not_an_answer_that_looked_at_nothing(make_openai_server, tmp_path):  # noqa: F811
    """The measurement's first attempt: the look-first check read the reply before its text calls
    were recovered, so a fenced JSON call as the first reply was thrown away and asked again."""
    fenced = '```json\n{"name": "read_file", "arguments": {"file_path": "a.py"}}\n```'
    script = [{"content": fenced}, {"content": "x is 1"}]
    result, server = send_small(make_openai_server, tmp_path, script, "what is x?")
    assert result.status == "done" and result.text == "x is 1"
    assert [c.tool_name for c in result.tool_calls] == ["read_file"] and len(server.requests) == 2
    assert all("from memory" not in str(m.get("content")) for r in server.requests for m in r["messages"])


def test_a_whole_call_before_an_echo_is_run_and_the_echo_dropped(make_openai_server, tmp_path):  # noqa: F811
    """The measurement: read version.txt, then the model wrote the right write_file call and went
    on to copy the session context; the cut discarded the call too."""
    call = '{"name": "write_file", "arguments": {"file_path": "b.txt", "content": "## 2.4.1\\n"}}\n\n'
    reply = {"content": [call[i : i + 8] for i in range(0, len(call), 8)] + RUNAWAY["content"]}
    server = make_openai_server([reply, {"content": "done"}], sequential=True)
    s = open_session(server, tmp_path)
    s.close()
    model = create_model("any", base_url=server.base_url)
    s = Session(tmp_path / "ws", model=model, db=":memory:", mode="accept-edits")
    try:
        result = s.send("write b.txt", stream=True)
        assert result.status == "done" and result.text == "done"
        assert [(c.tool_name, c.status) for c in result.tool_calls] == [("write_file", "success")]
    finally:
        s.close()
    assert (tmp_path / "ws" / "b.txt").read_text() == "## 2.4.1\n"
    assert len(server.requests) == 2 and "cut off" not in last_user(server.requests[1])
    assert "session-context" not in str(server.requests[1]["messages"][-2])  # the echo is not kept


#: Round five's runs: a failed call, then the error explained to the person instead of fixed.
BAD_READ = {"tool_calls": [{"name": "read_file", "args": {"file_path": "b.py"}, "id": "b1"}]}
EXPLAINED = {"content": "The file b.py does not exist in the workspace, so x cannot be read."}


@pytest.mark.parametrize("window", [8192, 131072])
def test_an_answer_right_after_a_failed_call_is_asked_once_to_fix_the_call(
    make_openai_server,  # noqa: F811
    tmp_path,
    window,
):
    script = [BAD_READ, EXPLAINED, READ, {"content": "x is 1"}]
    result, server = send_small(make_openai_server, tmp_path, script, "what is x?", window)
    if window > 16384:  # the full profile (a large model) is taken at its word
        assert result.text == EXPLAINED["content"] and len(server.requests) == 2
        return
    assert result.status == "done" and result.text == "x is 1", result.error
    assert [(c.tool_name, c.status) for c in result.tool_calls] == [
        ("read_file", "error"),
        ("read_file", "success"),
    ]
    nudge = last_user(server.requests[2])
    assert nudge.startswith("Your last tool call failed: Error: File not found: b.py")
    assert "Similar names in that directory: a.py" in nudge and "The request: what is x?" in nudge
    assert all(EXPLAINED["content"] not in str(m.get("content")) for m in server.requests[2]["messages"])
    assert all("tool call failed" not in str(m.get("content")) for m in server.requests[3]["messages"])


def test_a_second_answer_after_the_same_failure_is_taken(make_openai_server, tmp_path):  # noqa: F811
    script = [BAD_READ, EXPLAINED, {"content": "There is no such file."}]
    result, server = send_small(make_openai_server, tmp_path, script, "what is x?")
    assert result.status == "done" and result.text == "There is no such file."
    assert len(server.requests) == 3


#: Round seven's fix_even run: both files read, then the fix explained instead of made.
DESCRIBED = {"content": "To fix it, change `x = 1` to `x = 2` in a.py."}
EDIT = {
    "tool_calls": [{"name": "edit_file", "args": {"file_path": "a.py", "old_string": "1", "new_string": "2"}}]
}


@pytest.mark.parametrize("request_text", ["fix x: it must be 2", "what is x?"])
def test_an_answer_to_a_request_for_a_change_that_made_none_is_asked_once_to_make_it(
    make_openai_server,  # noqa: F811
    tmp_path,
    request_text,
):
    server = make_openai_server(
        [READ, DESCRIBED, EDIT, {"content": "x is 2 now"}],
        sequential=True,
        model_info={"max_model_len": 8192},
    )
    ws_session = open_session(server, tmp_path)
    ws_session.close()
    s = Session(
        tmp_path / "ws",
        model=create_model("any", base_url=server.base_url),
        db=":memory:",
        mode="accept-edits",
    )
    try:
        result = s.send(request_text)
    finally:
        s.close()
    if not request_text.startswith("fix"):  # a question: the description is the answer
        assert result.text == DESCRIBED["content"] and len(server.requests) == 2
        return
    assert result.status == "done" and result.text == "x is 2 now", result.error
    assert (tmp_path / "ws" / "a.py").read_text() == "x = 2\n"
    edited = [m["content"] for m in server.requests[3]["messages"] if m["role"] == "tool"][-1]
    assert edited == "Edited a.py (line 1; +1 -1).\nx = 2"  # lean: the lines alone, no numbers
    nudge = last_user(server.requests[2])
    assert nudge.startswith("Nothing has been changed yet, and the request asks for a change")
    assert f"The request: {request_text}" in nudge
    assert all(DESCRIBED["content"] not in str(m.get("content")) for m in server.requests[2]["messages"])


#: Round nine's config_port run: one grep call that does not parse after another, for 600 s.
UNPARSABLE = {"content": '```json\n{"name": "grep", "arguments": {"pattern": "port" + x}}\n```'}


def test_replies_of_only_calls_that_cannot_run_pause_the_run_at_the_repeat_limit(
    make_openai_server,  # noqa: F811
    tmp_path,
):
    server = make_openai_server([UNPARSABLE] * 3 + [{"content": "port 5433"}], sequential=True)
    s = open_session(server, tmp_path)
    try:
        result = s.send("which port?")
        assert result.status == "loop" and "could not run" in (result.error or "")
        assert [c.status for c in result.tool_calls] == ["error"] * 3 and len(server.requests) == 3
        resumed = s.continue_()  # the person lets it go on: the streak starts again
        assert resumed.status == "done" and resumed.text == "port 5433"
    finally:
        s.close()


def test_a_valid_call_between_them_resets_the_streak(make_openai_server, tmp_path):  # noqa: F811
    script = [UNPARSABLE, UNPARSABLE, READ, UNPARSABLE, {"content": "x is 1"}]
    result, _ = send_small(make_openai_server, tmp_path, script, "what is x?", window=131072)
    assert result.status == "done" and result.text == "x is 1"


@pytest.mark.parametrize(
    "window, setting, sent", [(8192, None, 0.2), (131072, None, None), (8192, "0.6", 0.6)]
)
def test_a_small_self_hosted_model_samples_at_a_low_temperature(
    make_openai_server,  # noqa: F811
    tmp_path,
    monkeypatch,
    window,
    setting,
    sent,
):
    if setting is not None:
        monkeypatch.setenv("CAIRN_TEMPERATURE", setting)
    server = make_openai_server(
        [READ, {"content": "x is 1"}], sequential=True, model_info={"max_model_len": window}
    )
    s = open_session(server, tmp_path)
    try:
        assert s.send("what is x?").status == "done"
    finally:
        s.close()
    assert all(body.get("temperature") == sent for body in server.requests)
    tool_result = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")["content"]
    # the lean profile's reads carry no line numbers: the 1.5B model read "1<tab>2.4.1" as 1.4.1
    assert tool_result == ("x = 1" if window <= 16384 else "     1\tx = 1")
