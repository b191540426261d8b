"""cairn.graph.display: escaping, badges, images, approvals, tables, plain-text fallbacks."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import pytest

from cairn.graph.core.state import STATUSES, ToolCallInfo
from cairn.graph.display import (
    CallsTable,
    PendingView,
    calls_table,
    run_result_html,
    run_result_markdown,
    run_result_text,
)
from cairn.graph.display.markdown import fence, md_text
from cairn.graph.display.parts import STATUS_STYLE, badge, images
from cairn.graph.session.result import RunResult

SAFE_TAGS = {"div", "span", "b", "i", "code", "small", "pre", "details", "summary"}
SAFE_TAGS |= {"table", "thead", "tbody", "tr", "th", "td"}
#: What the answer's rendered Markdown may add (cairn.graph.display.answer).
SAFE_TAGS |= {"p", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "ul", "ol", "li", "blockquote"}
SAFE_TAGS |= {"hr", "br", "a", "s"}


class Tags(HTMLParser):
    """Collects the element names and attribute names of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.attrs: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.names.add(tag)
        self.attrs.update(name for name, _ in attrs)


EVIL = '<script>alert("x")</script>'
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


def call(**kw) -> ToolCallInfo:
    base = {"call_id": "c1", "tool_name": "read_file", "arguments": {"path": "a.py"}, "status": "success"}
    return ToolCallInfo.model_validate(base | kw)


def result(**kw) -> RunResult:
    return RunResult.model_validate({"session_id": "0123456789abcdef", "status": "done"} | kw)


def test_tool_output_and_every_field_is_escaped_in_html():
    c = call(
        tool_name="x<b>",
        call_id='id"><img src=x onerror=alert(1)>',
        arguments={"path": EVIL},
        result=EVIL,
        display=EVIL,
        risk="<i>LOW</i>",
        reason=EVIL,
        decision=EVIL,
        metadata={"diff": f"+{EVIL}"},
    )
    pending = call(call_id="p1", status="awaiting_approval", reason=EVIL, preview=f"-{EVIL}\n+ok")
    out = run_result_html(result(text=EVIL, error=EVIL, tool_calls=[c], pending=[pending]))
    tags = Tags()
    tags.feed(out)
    assert tags.names <= SAFE_TAGS, tags.names - SAFE_TAGS
    assert not [a for a in tags.attrs if a.startswith("on")]
    assert {"details", "table", "pre"} <= tags.names  # the markup we do emit is there
    assert out.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") >= 8


def test_output_is_collapsed_with_its_size():
    text = "line\n" * 50
    html = calls_table([call(result=text)])._repr_html_()
    summary = re.search(r"<details><summary>output \(([^)]*)\)</summary>", html)
    assert summary and summary.group(1).startswith("51 lines")
    assert "<details open" not in html


@pytest.mark.parametrize("status", STATUSES)
def test_every_lifecycle_status_has_its_own_badge(status):
    html = badge(status)
    assert f"cairn-{status}" in html and status in html
    assert STATUS_STYLE[status][0] in html
    table = calls_table([call(status=status, error_msg="boom")])
    assert f"cairn-{status}" in table._repr_html_()
    assert status in repr(table) and status.replace("_", "\\_") in table._repr_markdown_()


def test_badges_are_distinct_for_the_seven_statuses():
    assert len({STATUS_STYLE[s][:2] for s in STATUSES}) == 7


def test_risk_is_shown_in_all_three_formats():
    table = calls_table([call(risk="HIGH")])
    assert "HIGH" in table._repr_html_() and "HIGH" in table._repr_markdown_() and "HIGH" in repr(table)


class Collapsed(HTMLParser):
    """For each <img>: how many <details> it sits in, and whether each of those is open."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []
        self.images: list[list[bool]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self.stack.append(any(name == "open" for name, _ in attrs))
        elif tag == "img":
            self.images.append(list(self.stack))

    def handle_endtag(self, tag):
        if tag == "details":
            self.stack.pop()


def image_nesting(html: str) -> list[list[bool]]:
    page = Collapsed()
    page.feed(html)
    assert page.stack == []
    return page.images


IMAGE_CALL = {"metadata": {"image": {"mime_type": "image/png", "base64": PNG, "width": 1, "height": 1}}}


def test_image_from_metadata_is_shown_inline():
    html = calls_table([call(**IMAGE_CALL)])._repr_html_()
    assert f'<img src="data:image/png;base64,{PNG}"' in html
    assert image_nesting(html) == [[]]  # visible without opening anything


def test_run_result_shows_images_outside_the_collapsed_calls():
    r = result(text="Here is the chart.", tool_calls=[call(**IMAGE_CALL), call(call_id="c2")])
    html = run_result_html(r)
    assert "<details><summary>tool calls (2)</summary>" in html  # the table stays collapsed
    assert image_nesting(html) == [[]]  # the image once, outside it
    assert html.index("Here is the chart.") < html.index("<img") < html.index("tool calls (2)")


def test_markdown_shows_tool_images_as_images():
    from markdown_it import MarkdownIt

    r = result(text="Here.", tool_calls=[call(**IMAGE_CALL)])
    for md in (run_result_markdown(r), calls_table(r.tool_calls)._repr_markdown_()):
        rendered = MarkdownIt().render(md)
        assert rendered.count(f'<img src="data:image/png;base64,{PNG}"') == 1, md
    bmp = call(metadata={"image": {"mime_type": "image/bmp", "base64": PNG}})
    assert "data:image/bmp" not in calls_table([bmp])._repr_markdown_()  # renderers refuse it as a link


def test_image_from_result_blocks_when_no_metadata():
    blocks = [
        {"type": "text", "text": "Image: a.png"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    ]
    assert images(call(result=blocks)) == [("image/png", PNG)]
    html = calls_table([call(result=blocks)])._repr_html_()
    assert "data:image/png;base64," in html and "Image: a.png" in html


@pytest.mark.parametrize(
    "meta",
    [
        {"mime_type": "text/html", "base64": PNG},
        {"mime_type": "image/svg+xml", "base64": PNG},
        {"mime_type": "image/png", "base64": 'AAAA" onerror="alert(1)'},
        {"mime_type": "image/png", "base64": ""},
    ],
)
def test_unsafe_or_unknown_images_are_dropped(meta):
    c = call(metadata={"image": meta})
    assert images(c) == []
    assert "<img" not in calls_table([c])._repr_html_()


def test_approval_view_shows_call_reason_and_diff_preview():
    diff = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-old\n+new"
    p = call(
        status="awaiting_approval", tool_name="edit_file", risk="MEDIUM", reason="edits a.py", preview=diff
    )
    view = PendingView([p])
    html = view._repr_html_()
    assert "edits a.py" in html and "edit_file" in html and "MEDIUM" in html
    assert (
        '<span style="color:#166534">+new</span>' in html
        and '<span style="color:#991b1b">-old</span>' in html
    )
    assert "session.approve(&quot;c1&quot;)" in html
    assert "```diff\n" + diff in view._repr_markdown_()
    assert "+new" in repr(view) and "edits a.py" in repr(view)


def test_interrupted_call_offers_retry_or_cancel():
    p = call(status="interrupted", tool_name="bash", error_msg="stopped mid-run")
    html = PendingView([p])._repr_html_()
    assert "session.retry(" in html and "session.cancel(" in html and "stopped mid-run" in html
    assert "session.approve(" not in html


def test_run_result_shows_answer_pending_and_usage():
    r = result(
        status="awaiting_approval",
        text="",
        pending=[call(status="awaiting_approval", call_id="p9")],
        tool_calls=[call()],
        usage={"model_calls": 2, "input_tokens": 30, "output_tokens": 7},
        elapsed_s=1.25,
    )
    html = r._repr_html_()
    assert "Waiting for you (1)" in html and "p9" in html and "2 model calls" in html
    assert "30 in / 7 out tokens" in html and "1.2 s" in html
    assert "Waiting for you (1)" in r._repr_markdown_()
    text = run_result_text(r)
    assert text.startswith("? awaiting_approval") and "p9" in text and "read_file" in text


def test_markdown_fence_cannot_be_closed_by_tool_output():
    out = "before\n```\n<b>injected</b>\n````\nafter"
    block = fence(out)
    assert block.startswith("`````\n") and block.endswith("\n`````")


def test_markdown_table_cells_cannot_break_the_table():
    md = calls_table([call(display="a | b\nc <b>x</b>", call_id="id|1")])._repr_markdown_()
    rows = md.splitlines()
    assert len(rows) == 3
    assert "a \\| b c &lt;b&gt;x&lt;/b&gt;" in rows[2] and "| id\\|1 |" in rows[2]  # a pipe: no code span


def test_model_markdown_keeps_code_but_not_raw_html():
    text = "Use <b>this</b>:\n\n```html\n<b>kept</b>\n```\nand `<i>` inline"
    md = md_text(text)
    assert "&lt;b&gt;this&lt;/b&gt;" in md and "```html\n<b>kept</b>\n```" in md and "` <i> `" in md
    assert run_result_markdown(result(text=text)).count("&lt;b&gt;this") == 1


def test_edited_call_shows_both_argument_sets():
    c = call(arguments={"path": "b.py"}, original_arguments={"path": "a.py"}, decision="edited")
    html = calls_table([c])._repr_html_()
    assert "arguments the model sent (edited)" in html and "decision: edited" in html


def test_calls_table_behaves_like_the_list():
    calls = [call(call_id="a"), call(call_id="b")]
    table = CallsTable(calls)
    assert len(table) == 2 and table[1].call_id == "b" and [c.call_id for c in table] == ["a", "b"]
    assert calls_table([])._repr_html_() == "<div><i>no tool calls</i></div>"
    assert repr(calls_table([])) == "(no tool calls)"


def test_large_output_is_bounded_in_the_page():
    html = calls_table([call(result="x" * 200_000)])._repr_html_()
    assert len(html) < 30_000 and "characters omitted" in html
