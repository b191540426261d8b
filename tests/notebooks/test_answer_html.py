"""The answer's Markdown rendered as HTML in notebooks, safely; tables left-aligned; ``denied``."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from cairn.graph.core.state import ToolCallInfo
from cairn.graph.display import calls_table, run_result_html
from cairn.graph.display.answer import answer_html, safe_link
from cairn.graph.display.parts import STATUS_STYLE
from cairn.graph.session.result import RunResult

ANSWER = """## The fix

The bug is in **`median`**: it returned the *upper* middle value.

- sorted the list
- averaged the two middle values

```python
return (a + b) / 2
```

| test | before | after |
|---|---|---|
| test_median_even | fail | pass |
"""


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.tags: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.hrefs += [v for k, v in attrs if k in ("href", "src")]
        self.handlers += [k for k, _ in attrs if k.startswith("on")]


def parse(html: str) -> Links:
    links = Links()
    links.feed(html)
    return links


def test_the_answer_is_rendered_markdown_in_the_html():
    html = run_result_html(RunResult(session_id="s" * 16, status="done", text=ANSWER))
    answer = html[html.index('class="cairn-answer"') :]
    assert "<h2>The fix</h2>" in answer
    assert "<strong><code>median</code></strong>" in answer and "<em>upper</em>" in answer
    assert "<li>sorted the list</li>" in answer
    assert '<code class="language-python">return (a + b) / 2' in answer
    assert "<table>" in answer and "<td>test_median_even</td>" in answer
    assert "## " not in answer and "**" not in answer  # no Markdown markers left over


def test_raw_html_in_the_answer_is_shown_as_text():
    html = answer_html('Hi <script>alert(1)</script> <img src=x onerror="alert(2)">\n\n<iframe src="//evil">')
    parsed = parse(html)
    assert {"script", "img", "iframe"}.isdisjoint(parsed.tags) and not parsed.handlers
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;iframe" in html


def test_links_keep_only_safe_schemes_and_images_load_nothing():
    text = (
        "[ok](https://docs.python.org) [mail](mailto:a@b.c) [rel](notes/a.md) [top](#top) "
        "[js](javascript:alert(1)) [JS](  JaVaScRiPt:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) "
        "[file](file:///etc/passwd) [vb](vbscript:msgbox) ![pixel](https://tracker.example/p.gif)"
    )
    html = answer_html(text)
    parsed = parse(html)
    assert parsed.hrefs == [
        "https://docs.python.org",
        "mailto:a@b.c",
        "notes/a.md",
        "#top",
        "https://tracker.example/p.gif",  # the image, shown as a link: nothing loads
    ]
    assert "img" not in parsed.tags
    assert "[js](javascript:alert(1))" in html  # an unsafe link stays visible as text
    for bad in ("javascript:x", "JAVASCRIPT:x", " java\tscript:x", "data:x", "file:///x", "vbscript:x"):
        assert not safe_link(bad), bad


def call(**kw) -> ToolCallInfo:
    base = {"call_id": "c1", "tool_name": "bash", "arguments": {"command": "rm -rf /"}, "status": "cancelled"}
    return ToolCallInfo.model_validate(base | kw)


def test_calls_denied_by_the_policy_are_labelled_denied_and_every_cell_is_left_aligned():
    denied = call(error_msg="Denied by policy: rm -rf / is never allowed")
    rejected = call(call_id="c2", error_msg="A person rejected this call.", decision="rejected")
    html = calls_table([denied, rejected])._repr_html_()
    assert "× denied" in html and "× rejected" in html  # the CLI's words (docs/cli.md)
    cells = re.findall(r"<td[^>]*>", html)
    assert cells and all("text-align:left" in c for c in cells)
    assert "denied" in calls_table([denied])._repr_markdown_() and "denied" in repr(calls_table([denied]))


def test_status_icons_are_in_common_fonts():
    """No ⏸ (U+23F8) or ⊘ (U+2298): many fonts lack them. Everything is in WGL4/Latin-1 or
    the Dingbats/Geometric Shapes every desktop font has."""
    common = set("○?▶✓✗–×■") | set(".")
    for status, (_, _, icon) in STATUS_STYLE.items():
        assert icon in common, (status, icon)
