"""Text tool calls as small models write them: repaired when unambiguous, an invalid call (never a
final answer) when a known tool is named but the JSON is broken, template tags removed."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from cairn.graph.models import recover_text_tool_calls
from cairn.graph.models.near_json import NearJsonError, loads_near_json
from cairn.graph.models.template_tags import strip_template_tags
from cairn.graph.models.text_tool_calls import PARSE_ERROR

NAMES = {"read_file", "write_file", "Read"}


def recover(text: str) -> AIMessage:
    return recover_text_tool_calls(AIMessage(content=text, id="m1"), NAMES)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('{{"name": "x", "arguments": {{"p": "a.py"}}}}', {"name": "x", "arguments": {"p": "a.py"}}),
        ('{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
        (
            "{'name': 'read_file', 'arguments': {'file_path': 'it\\'s.py'}}",
            {"name": "read_file", "arguments": {"file_path": "it's.py"}},
        ),
        ('{"ok": True, "none": None, "no": false}', {"ok": True, "none": None, "no": False}),
        ('{"text": "a, }"}', {"text": "a, }"}),  # commas inside strings are not trailing commas
    ],
)
def test_near_json_forms_are_repaired(text, value):
    assert loads_near_json(text) == value


@pytest.mark.parametrize("text", ['{"n": 1 + 2}', '{"a": x}', '{"a": 1 /* c */}', "{'a': 'unterminated}"])
def test_expressions_and_garbage_are_not_guessed(text):
    with pytest.raises(NearJsonError):
        loads_near_json(text)


def test_doubled_braces_from_a_template_become_a_call():
    m = recover('{{"name": "read_file", "arguments": {{"file_path": "src/app.py"}}}}')
    assert [(c["name"], c["args"]) for c in m.tool_calls] == [("read_file", {"file_path": "src/app.py"})]
    assert m.content == ""


def test_single_quotes_and_trailing_commas_in_a_fenced_block():
    m = recover("I will read it.\n```json\n{'name': 'Read', 'arguments': {'file_path': 'a.py',},}\n```")
    assert [(c["name"], c["args"]) for c in m.tool_calls] == [("Read", {"file_path": "a.py"})]
    assert m.content == "I will read it."


def test_a_known_tool_with_broken_json_is_an_invalid_call_not_an_answer():
    m = recover(
        '<tool_call>\n{"name": "write_file", "arguments": {"file_path": "a.py", "content": "x" * 3}}\n</tool_call>'
    )
    assert m.tool_calls == []
    (bad,) = m.invalid_tool_calls
    assert bad["name"] == "write_file" and bad["error"] == PARSE_ERROR and '"x" * 3' in bad["args"]
    assert m.content == ""


#: What Qwen2.5-Coder-1.5B wrote through llama.cpp (bench_small_model.py, "definition"): the call in
#: <tools> tags copied from its chat template, with a null argument.  It became the final answer.
QWEN_TOOLS_TAGGED = (
    '<tools>\n{"name": "read_file", "arguments": {"file_path": "a.py", "offset": null}}\n</tools>'
)


def test_a_call_in_tools_tags_is_a_call():
    m = recover(QWEN_TOOLS_TAGGED)
    assert [(c["name"], c["args"]) for c in m.tool_calls] == [
        ("read_file", {"file_path": "a.py", "offset": None})
    ]
    assert m.content == ""
    m = recover(
        'Reading it.\n<tool_calls>[{"name": "Read", "arguments": {"file_path": "b.py"}}]</tool_calls>'
    )
    assert [c["name"] for c in m.tool_calls] == ["Read"] and m.content == "Reading it."
    assert strip_template_tags("Done.</tools>") == "Done."


def test_an_echoed_session_context_is_not_shown():
    """Qwen2.5-Coder-1.5B began a reply with the session-context block of the user message."""
    echoed = "<session-context>\n# Environment\nWorkspace: /tmp/ws\nDate: 2026-11-24\n</session-context>"
    m = recover(echoed + '\n```json\n{"name": "read_file", "arguments": {"file_path": "a.py"}}\n```')
    assert [c["name"] for c in m.tool_calls] == ["read_file"] and m.content == ""
    assert recover(echoed + "\nIt is 7.").content == "It is 7."


def test_unknown_tools_and_json_in_prose_are_left_alone():
    text = 'For example {"name": "deploy", "arguments": {}} would deploy.'
    m = recover(text)
    assert m.tool_calls == [] and m.invalid_tool_calls == [] and m.content == text
    broken_unknown = recover('{"name": "deploy", "arguments": {"a": 1 + 1}}')
    assert broken_unknown.invalid_tool_calls == []


def test_template_tags_are_stripped_from_answers():
    text = (
        'The answer is 4.<|im_end|>\n<tool_response>\n{"ok": true}\n</tool_response>\n\n\n\nDone.<|eot_id|>'
    )
    assert strip_template_tags(text) == "The answer is 4.\n\nDone."
    assert recover("All tests pass.</tool_call><|im_end|>").content == "All tests pass."
    assert strip_template_tags("a < b and c > d") == "a < b and c > d"


def test_through_the_graph_a_broken_call_is_answered_with_the_parse_error(tmp_path, db_location):
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    model = ScriptedChatModel.from_turns(
        [
            {"content": '```json\n{"name": "read_file", "arguments": {"file_path": "a" + ext}}\n```'},
            {"content": '{"name": "read_file", "arguments": {"file_path": "a.py",}}'},
            {"content": "It says hi.<|im_end|>"},
        ]
    )
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.py").write_text("print('hi')\n")
    s = Session(tmp_path / "ws", model=model, db=db_location)
    r = s.send("read a.py")
    assert r.status == "done" and r.text == "It says hi."
    calls = s.tool_calls()
    assert [c.status for c in calls] == ["error", "success"]
    assert "arguments must be literal JSON values" in calls[0].error_msg
    s.close()


def test_through_the_graph_a_call_in_tools_tags_runs_and_is_not_the_answer(tmp_path, db_location):
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    model = ScriptedChatModel.from_turns([{"content": QWEN_TOOLS_TAGGED}, {"content": "a.py prints hi."}])
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.py").write_text("print('hi')\n")
    s = Session(tmp_path / "ws", model=model, db=db_location)
    r = s.send("what does a.py print?")
    assert r.status == "done" and r.text == "a.py prints hi."
    assert [(c.tool_name, c.status) for c in s.tool_calls()] == [("read_file", "success")]
    s.close()


@pytest.mark.parametrize(
    "content",
    [
        '```json\n{"name": "read_file", "arguments": {"path": "a.py"}\n```',  # a brace missing
        '{"name": "read_file", "arguments": {"path": "a.py"}',  # truncated
    ],
)
def test_truncated_calls_to_known_tools_are_invalid_calls(content):
    m = recover_text_tool_calls(AIMessage(content=content, id="m"), {"read_file"})
    assert m.tool_calls == [] and [c["name"] for c in m.invalid_tool_calls] == ["read_file"]


def test_string_literals_joined_with_plus_are_one_string():
    """Rounds four and seven: ``"content": "## " + "0.0.1\\n"`` for a changelog's first line."""
    from cairn.graph.models.near_json import NearJsonError, loads_near_json

    assert loads_near_json('{"content": "## " + "2.4.1\\n", "n": 1}') == {"content": "## 2.4.1\n", "n": 1}
    assert loads_near_json("{'a': 'x' +'y'+ \"z\"}") == {"a": "xyz"}
    for expression in ('{"c": "## " + version}', '{"c": "## " + 3}', '{"c": "a" + read("v.txt")}'):
        with pytest.raises(NearJsonError):
            loads_near_json(expression)


def test_python_raw_strings_keep_their_backslashes():
    """Round nine's config_port: ``"pattern": r"\\bport\\b"`` in a grep call written as text."""
    from cairn.graph.models.near_json import loads_near_json

    assert loads_near_json('{"pattern": r"\\bport\\b", "path": "config/db.ini",}') == {
        "pattern": "\\bport\\b",
        "path": "config/db.ini",
    }
    assert loads_near_json("{'r': r'a\\'b'}") == {"r": "a\\'b"}
