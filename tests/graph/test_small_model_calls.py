"""Tool calls a small model writes as text, replayed through the real ChatOpenAI client against
the local test server (issue 31, item 7's runs): Qwen2.5-Coder-1.5B on llama.cpp answered a
"where is it defined" question with an XML ``<function>`` block instead of a call, and cairn
reported that block as the final answer."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from cairn import Session
from cairn.graph.models import create_model, recover_text_tool_calls
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

#: What the model wrote, word for word but the workspace path (the definition task, round one).
RECORDED_XML = (
    "<function>\n    <name>grep</name>\n    <arguments>\n      <properties>\n"
    "        <pattern>parse_duration</pattern>\n        <path>app</path>\n"
    "      </properties>\n    </arguments>\n  </function>"
)
TOOLS = {"read_file", "grep", "glob", "edit_file", "write_file", "bash"}


def open_session(server, tmp_path) -> Session:
    ws = tmp_path / "ws"
    (ws / "app" / "util").mkdir(parents=True)
    (ws / "app" / "util" / "timeparse.py").write_text("def parse_duration(text):\n    return 1\n")
    (ws / "app" / "main.py").write_text("from app.util.timeparse import parse_duration\n")
    return Session(ws, model=create_model("any", base_url=server.base_url), db=":memory:")


def test_a_call_written_as_xml_tags_is_run_not_taken_as_the_answer(make_openai_server, tmp_path):  # noqa: F811
    server = make_openai_server([{"content": RECORDED_XML}, {"content": "app/util/timeparse.py"}])
    s = open_session(server, tmp_path)
    try:
        result = s.send("In which file is the function parse_duration defined?", stream=True)
        assert result.status == "done" and result.text == "app/util/timeparse.py"
        assert [(c.tool_name, c.status) for c in result.tool_calls] == [("grep", "success")]
    finally:
        s.close()
    found = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert found and "app/util/timeparse.py" in found[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (RECORDED_XML, [("grep", {"pattern": "parse_duration", "path": "app"})]),
        (
            "<function=read_file>\n<parameter=file_path>\na.py\n</parameter>\n"
            "<parameter=limit>\n20\n</parameter>\n</function>",
            [("read_file", {"file_path": "a.py", "limit": 20})],
        ),
        (
            '<invoke name="write_file"><parameter name="file_path">b.txt</parameter>'
            '<parameter name="content">one\ntwo\n</parameter></invoke>',
            [("write_file", {"file_path": "b.txt", "content": "one\ntwo"})],  # the tag's line break
        ),
        (
            '<tool_call><name>glob</name><arguments>{"pattern": "**/*.py"}</arguments></tool_call>',
            [("glob", {"pattern": "**/*.py"})],
        ),
        (  # a later run: the call in the schema's shape, description and required list included
            "<tools>\n  <function>\n    <name>grep</name>\n    <description>Search file contents."
            "</description>\n    <parameters>\n      <properties>\n        <pattern>max_retries</pattern>"
            "\n        <path>settings.toml</path>\n      </properties>\n      <required>\n"
            "        <pattern>max_retries</pattern>\n      </required>\n    </parameters>\n"
            "  </function>\n</tools>",
            [("grep", {"pattern": "max_retries", "path": "settings.toml"})],
        ),
    ],
)
def test_the_xml_shapes_small_models_write_become_calls(text, expected):
    message = recover_text_tool_calls(AIMessage(content=text, id="m1"), TOOLS)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == expected
    assert message.content == ""


@pytest.mark.parametrize(
    "text",
    [
        "<function>\n<name>deploy</name>\n<arguments><env>prod</env></arguments>\n</function>",  # unknown tool
        "Use <code>grep</code> to find it: <b>grep -rn parse_duration</b>",  # prose with tags
        "<function><name>grep</name><arguments>pattern is foo</arguments></function>",  # no key tags
    ],
)
def test_xml_that_is_not_a_call_to_a_known_tool_stays_text(text):
    message = recover_text_tool_calls(AIMessage(content=text, id="m1"), TOOLS)
    assert message.tool_calls == [] and message.content == text


def test_a_read_of_an_invented_directory_is_told_where_the_files_of_that_name_are(
    make_openai_server,  # noqa: F811
    tmp_path,
):
    """Round one: asked to fix parity.py, the model read ``<workspace>/src/test_parity.py`` twice
    (there is no src/), then told the person the file does not exist.  With one file of that name
    it is read (the next test); with two, the error names both."""
    ws = tmp_path / "ws"
    for where in ("", "old/"):
        (ws / where).mkdir(parents=True, exist_ok=True)
        (ws / where / "test_parity.py").write_text("print('ok')\n")
    (ws / ".git").mkdir()
    (ws / ".git" / "test_parity.py").write_text("not this one\n")
    invented = str(ws / "src" / "test_parity.py")
    read = {"tool_calls": [{"name": "read_file", "args": {"file_path": invented}, "id": "r1"}]}
    server = make_openai_server([read, {"content": "found it"}])
    s = Session(ws, model=create_model("any", base_url=server.base_url), db=":memory:")
    try:
        assert s.send("fix it").status == "done"
    finally:
        s.close()
    told = next(m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool")
    assert "does not exist either" in told
    assert told.endswith("A file of that name is in the workspace at: test_parity.py, old/test_parity.py.")


def test_a_call_between_fences_that_do_not_pair_up_is_a_call(make_openai_server, tmp_path):  # noqa: F811
    """The measurement: after a failed read, the model wrote ```\\n```\\n{call}\\n``` and cairn took
    that as the answer to "in which file is parse_duration defined?"."""
    unpaired = '```\n```\n{"name": "glob", "arguments": {"pattern": "**/*.py", "path": null}}\n```'
    server = make_openai_server([{"content": unpaired}, {"content": "app/util/timeparse.py"}])
    s = open_session(server, tmp_path)
    try:
        result = s.send("In which file is the function parse_duration defined?")
        assert result.status == "done" and result.text == "app/util/timeparse.py"
        assert [(c.tool_name, c.status) for c in result.tool_calls] == [("glob", "success")]
    finally:
        s.close()
    found = next(m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool")
    assert "app/util/timeparse.py" in found


#: Round five's fix_even run (paths shortened): a plan, then three calls in one fence, the edit
#: and the write made up before the read's result was seen.
RECORDED_SEQUENCE = (
    "To resolve the issue, you first need to read the content of `test_parity.py`.\n\n"
    '```json\n{\n  "name": "read_file",\n  "arguments": {"file_path": "test_parity.py", "offset": 0}\n}\n'
    '{\n  "name": "edit_file",\n  "arguments": {"file_path": "test_parity.py", "old_string": "a", '
    '"new_string": "b"}\n}\n{\n  "name": "write_file",\n  "arguments": {"file_path": "test_parity.py", '
    '"content": "# {fixed}\\n"}\n}\n```\n\nThis code reads the file, fixes it and writes it back.'
)


@pytest.mark.parametrize(
    "text, expected, before",
    [
        (
            RECORDED_SEQUENCE,
            ("read_file", {"file_path": "test_parity.py", "offset": 0}),
            "To resolve the issue, you first need to read the content of `test_parity.py`.",
        ),
        # round four's two_step: the second call holds an expression (`"## " + "0.0.1\n"`)
        (
            '```json\n{"name": "read_file", "arguments": {"file_path": "version.txt"}}\n'
            '{"name": "write_file", "arguments": {"file_path": "CHANGELOG.md", "content": "## " + "0.0.1"}}\n```',
            ("read_file", {"file_path": "version.txt"}),
            "",
        ),
        # round five's two_step: a whole call, then the session context copied as prose
        (
            '{"name": "write_file", "arguments": {"file_path": "CHANGELOG.md", "content": "## 2.4.1\\n"}}\n\n'
            "# Environment\nWorkspace: /w\n\n### Changelog\n- 2.4.1",
            ("write_file", {"file_path": "CHANGELOG.md", "content": "## 2.4.1\n"}),
            "",
        ),
        # a fence the reply never closed
        (
            'Reading it:\n```json\n{"name": "glob", "arguments": {"pattern": "*.py"}}\n{"name": "gre',
            ("glob", {"pattern": "*.py"}),
            "Reading it:",
        ),
    ],
)
def test_of_calls_written_one_after_another_only_the_first_whole_one_runs(text, expected, before):
    message = recover_text_tool_calls(AIMessage(content=text), TOOLS)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [expected]
    assert message.content == before and not message.invalid_tool_calls


@pytest.mark.parametrize(
    "text",
    [
        'Use a call like {"name": "grep", "arguments": {"pattern": "x"}} to search.',  # inside prose
        '{"name": "grep", "arguments": {"pattern": "x"}, "extra": 1}\nmore',  # not a call's keys
        '```json\n{"name": "unknown_tool", "arguments": {}}\n{"name": "grep"}\n```',  # first names no tool
    ],
)
def test_a_leading_object_that_is_not_a_whole_call_is_not_taken(text):
    message = recover_text_tool_calls(AIMessage(content=text), TOOLS)
    assert not message.tool_calls


def test_a_read_under_an_invented_directory_reads_the_only_file_of_that_name(make_openai_server, tmp_path):  # noqa: F811
    """Round six: ``workspace/settings.toml`` and ``src/calc.py`` for the workspace's only
    ``settings.toml`` and ``calc.py``; the model answered from the error ("120000")."""
    read = {"tool_calls": [{"name": "read_file", "args": {"file_path": "src/util/timeparse.py"}, "id": "r1"}]}
    edit = {
        "tool_calls": [
            {
                "name": "edit_file",
                "args": {"file_path": "src/main.py", "old_string": "from", "new_string": "from"},
                "id": "e1",
            }
        ]
    }
    server = make_openai_server([read, edit, {"content": "done"}])
    s = open_session(server, tmp_path)
    try:
        result = s.send("read timeparse.py")
    finally:
        s.close()
    assert [(c.tool_name, c.status) for c in result.tool_calls] == [
        ("read_file", "success"),
        ("edit_file", "error"),
    ]
    told = [m["content"] for m in server.requests[2]["messages"] if m["role"] == "tool"]
    assert told[0].startswith(
        "[src/util/timeparse.py does not exist; this is app/util/timeparse.py, the only file of that name"
    )
    assert "def parse_duration(text):" in told[0]
    # an edit there is not turned into a new file: it is told which file to edit (not write_file)
    assert "The file of that name is app/main.py: read it, then edit app/main.py." in told[1]
    assert not (tmp_path / "ws" / "src").exists()


#: Round eight's fix run, word for word: the right edit, wrapped in the tags Qwen's chat template
#: puts around a tool's *result*; cairn had dropped it as an imagined result, twice.
RECORDED_TOOL_RESPONSE = (
    '<tool_response>\n     {"name": "edit_file", "arguments": {"file_path": "calc.py", '
    '"old_string": "return a - b", "new_string": "return a + b"}}\n</tool_response>'
)


def test_a_call_in_tool_response_tags_runs(make_openai_server, tmp_path):  # noqa: F811
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    server = make_openai_server(
        [{"content": RECORDED_TOOL_RESPONSE}, {"content": "Fixed."}],
        sequential=True,
        model_info={"max_model_len": 8192},
    )
    s = Session(ws, model=create_model("any", base_url=server.base_url), db=":memory:", mode="accept-edits")
    try:
        result = s.send("Fix the one-character bug in calc.py.")  # cairn reads calc.py first
    finally:
        s.close()
    assert result.status == "done" and result.text == "Fixed."
    assert [(c.tool_name, c.status) for c in result.tool_calls] == [
        ("read_file", "success"),
        ("edit_file", "success"),
    ]
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
