"""``OnePassConsole`` (``cairn show``) prints exactly what rich's console prints, written once."""

from __future__ import annotations

import io
import random

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from rich.console import Console
from rich.style import Style
from rich.text import Text

from cairn.checkpoints.sessions import SessionRecord
from cairn.graph.apps.cli.commands.show import Shown, _print_to
from cairn.graph.apps.cli.tui.mdstream import _prototype, markdown
from cairn.graph.apps.cli.tui.onepass import OnePassConsole
from cairn.graph.core.compaction.view import make_marker
from cairn.graph.core.state import ToolCallInfo


def consoles(width: int = 60) -> dict[str, Console]:
    """The consoles ``make_console`` builds: a colour TTY (three colour systems), ``--plain`` or
    ``NO_COLOR`` on a TTY, and a pipe."""

    def tty(system: str | None) -> Console:
        return Console(
            file=io.StringIO(),
            force_terminal=True,
            no_color=system is None,
            color_system=system,
            highlight=False,
            emoji=False,
            soft_wrap=False,
            width=width,
        )

    pipe = Console(
        file=io.StringIO(),
        force_terminal=False,
        no_color=True,
        color_system=None,
        highlight=False,
        emoji=False,
        soft_wrap=True,
        width=120,
    )
    return {
        "truecolor": tty("truecolor"),
        "256": tty("256"),
        "standard": tty("standard"),
        "plain-tty": tty(None),
        "pipe": pipe,
    }


STYLES = [
    None,
    "",
    "bold",
    "dim",
    "dim italic",
    "green",
    "bold cyan",
    "red on white",
    Style(bold=True),
    "none",
]
PIECES = ["abc", " ", "→ 2 KB", "\n", "\n\n", "日本語", "x" * 70, "trailing  ", "\t", "é", "  ", "~"]


def random_text(rng: random.Random) -> Text:
    text = Text("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3))), style=rng.choice(STYLES) or "")
    for _ in range(rng.randint(0, 5)):
        text.append(rng.choice(PIECES), style=rng.choice(STYLES))
    if rng.random() < 0.3 and len(text):  # overlapping spans, as Text.stylize makes them
        a = rng.randrange(len(text))
        text.stylize(rng.choice(STYLES[1:]), a, rng.randint(a, len(text) + 2))
    return text


def rich_output(console: Console, calls: list[tuple[tuple, dict]]) -> str:
    for args, kwargs in calls:
        console.print(*args, **kwargs)
    return console.file.getvalue()


def onepass_output(console: Console, calls: list[tuple[tuple, dict]]) -> str:
    one = OnePassConsole(console)
    for args, kwargs in calls:
        one.print(*args, **kwargs)
    one.flush()
    return console.file.getvalue()


@pytest.mark.parametrize("name", list(consoles()))
def test_random_texts_print_exactly_as_rich_prints_them(name):
    rng = random.Random(17)
    calls = []
    for _ in range(600):
        kwargs = {}
        if rng.random() < 0.5:
            kwargs["soft_wrap"] = rng.choice([True, False])
        if rng.random() < 0.2:
            kwargs["end"] = rng.choice(["", " ", "\n"])
        calls.append(((random_text(rng),), kwargs))
        if rng.random() < 0.1:
            calls.append(((), {}))
    expected = rich_output(consoles()[name], calls)
    assert onepass_output(consoles()[name], calls) == expected
    assert "\x1b[" in expected or name in ("plain-tty", "pipe")


@pytest.mark.parametrize("name", list(consoles()))
def test_other_renderables_are_rendered_by_rich_in_their_place(name):
    calls = [
        ((Text("before", style="bold"),), {}),
        ((markdown("# Title\n\nSome *text* and `code`.\n\n- one\n- two"),), {}),
        (("[bold]markup[/bold] string",), {}),
        ((Text("styled print"),), {"style": "red"}),
        ((Text("a"), Text("b")), {}),
        ((Text("after\tthe tab"),), {}),
    ]
    expected = rich_output(consoles()[name], calls)
    assert onepass_output(consoles()[name], calls) == expected
    assert expected.index("before") < expected.index("Title") < expected.index("after")


def test_everything_is_written_at_once():
    writes: list[str] = []

    class Recording(io.StringIO):
        def write(self, s: str) -> int:
            if s:  # (rich writes "" when a capture ends)
                writes.append(s)
            return super().write(s)

    console = consoles()["truecolor"]
    console.file = Recording()
    one = OnePassConsole(console)
    for i in range(50):
        one.print(Text(f"line {i}", style="dim"))
    one.print(markdown("**done**"))
    assert writes == []
    one.flush()
    assert len(writes) == 1 and writes[0].count("line ") == 50


def test_markdown_renders_as_a_fresh_rich_markdown():
    text = (
        "# Head\n\n*em* **strong** `code` ~~gone~~\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```py\nx = 1\n```\n"
    )
    fresh = type(_prototype())(text, code_theme="monokai", hyperlinks=False)
    outs = []
    for renderable in (markdown(text), fresh, markdown(text)):
        console = consoles(80)["truecolor"]
        console.print(renderable)
        outs.append(console.file.getvalue())
    assert outs[0] == outs[1] == outs[2]
    assert "Head" in outs[0] and "\x1b[" in outs[0]


def varied_session() -> Shown:
    """Every kind of line ``cairn show`` prints."""
    big = "\n".join(f"line {i}\twith a tab" if i % 7 == 0 else f"line {i}" for i in range(40))
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n"
    calls = [
        ToolCallInfo(
            call_id="c1",
            tool_name="bash",
            arguments={"command": "pytest -q"},
            status="success",
            result=big + "\nExit code: 0",
            risk="MEDIUM",
            reason="bash runs pytest",
            display="exit 0",
            sandbox="workspace-write",
        ),
        ToolCallInfo(
            call_id="c2",
            tool_name="edit_file",
            arguments={"file_path": "x.py"},
            status="success",
            result="ok",
            display="Edited x.py",
            metadata={"diff": diff},
            decision="approved always (edit_file(x.py))",
        ),
        ToolCallInfo(
            call_id="c3",
            tool_name="read_file",
            arguments={"file_path": "日本語.md"},
            status="error",
            error_msg="no such file: 日本語.md\nFix the arguments and call the tool again.",
        ),
        ToolCallInfo(
            call_id="c4", tool_name="grep", arguments={"pattern": "x" * 150}, status="success", result=big
        ),
        ToolCallInfo(
            call_id="c5",
            tool_name="bash",
            arguments={"command": "rm -rf build"},
            status="cancelled",
            error_msg="Denied by policy: deletes",
        ),
    ]
    history = [
        HumanMessage(content="fix the tests\nplease"),
        AIMessage(
            content="Let me look at `x.py` and **run** the tests.\n\n- one\n- two",
            tool_calls=[{"id": c.call_id, "name": c.tool_name, "args": c.arguments} for c in calls[:3]],
        ),
        *[ToolMessage(content="out", tool_call_id=c.call_id) for c in calls[:3]],
        HumanMessage(
            content=[{"type": "text", "text": "Images"}, {"type": "image_url", "image_url": {"url": "x"}}]
        ),
        make_marker(
            "Summary of earlier work.", {"summarized": 12, "tokens_before": 9000, "tokens_after": 800}
        ),
        AIMessage(
            content="",
            tool_calls=[{"id": c.call_id, "name": c.tool_name, "args": c.arguments} for c in calls[3:]],
        ),
        *[ToolMessage(content="out", tool_call_id=c.call_id) for c in calls[3:]],
        AIMessage(content="Done: " + "word " * 40),
    ]
    child = SessionRecord(
        "s1-sub-1", "/ws", 0.0, 0.0, "done", "look around", "default", "m", "s1", "c9", "explore"
    )
    rewinds = [
        {
            "rewind_id": "r1",
            "kind": "conversation",
            "status": "done",
            "target": "m2",
            "restored": ["a.py"],
            "deleted": [],
            "not_restored": {"b.py": "changed"},
            "rewound_messages": [{"role": "assistant", "content": "old answer", "tool_calls": []}],
        }
    ]
    tasks = [
        {"id": "1", "content": "fix it", "status": "done"},
        {"id": "2", "content": "test", "status": "pending"},
    ]
    return Shown("s1", "/no/such/workspace", "done", "default", history, calls, rewinds, tasks, [child])


@pytest.mark.parametrize("verbose", [False, True])
@pytest.mark.parametrize("name", list(consoles()))
def test_show_prints_the_same_page_as_through_rich(name, verbose):
    shown = varied_session()
    reference = consoles()[name]
    _print_to(reference, shown, verbose=verbose)
    console = consoles()[name]
    one = OnePassConsole(console)
    _print_to(one, shown, verbose=verbose)
    one.flush()
    page = console.file.getvalue()
    assert page == reference.file.getvalue()
    for seen in (
        "fix the tests",
        "compacted: 12",
        "sub-agent s1-sub-1",
        "rewinds",
        "Denied by policy",
        "1 image(s)",
    ):
        assert seen in page


def test_show_json_is_written_as_the_standard_library_writes_it():
    import datetime
    import json
    import uuid

    from cairn.graph.apps.cli.commands.show import dump_json

    doc = {
        "text": 'é \x00\n\u2028 "quoted" \\ 😀',
        "numbers": [1, -2, 2.5, 1795487918.487151, 0.1, 1e-3],
        "empty": [{}, [], ""],
        "none": None,
        "flags": [True, False],
        3: "an int key",
        "when": datetime.datetime(2020, 1, 1, 12, 30),
        "id": uuid.UUID(int=5),
    }
    expected = json.dumps(doc, ensure_ascii=False, indent=2, default=str)
    assert dump_json(doc) == expected
    doc["huge"] = 2**70  # orjson refuses it: the standard library writes it
    assert dump_json(doc) == json.dumps(doc, ensure_ascii=False, indent=2, default=str)
