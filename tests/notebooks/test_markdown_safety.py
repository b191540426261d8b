"""The Markdown we emit is rendered by a real Markdown parser (markdown-it-py, as frontends do):
untrusted model/tool text must never come out as raw HTML, an image, or a script link."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from cairn.graph.core.state import ToolCallInfo
from cairn.graph.display import PendingView, calls_table, run_result_markdown
from cairn.graph.display.markdown import fence, md_code, md_inline, md_text
from cairn.graph.session.result import RunResult

#: Markdown renderers as frontends configure them: CommonMark with raw HTML on (markdown-it's
#: default), GFM-like (tables, strikethrough, raw HTML), and markdown-it's JS default.
RENDERERS = {
    "commonmark": MarkdownIt(),
    "gfm": MarkdownIt("commonmark").enable(["table", "strikethrough"]),
    "js-default": MarkdownIt("js-default").disable("linkify"),
}
#: Everything a Markdown renderer produces from plain Markdown; anything else is raw HTML.
MARKDOWN_TAGS = {"p", "code", "pre", "em", "strong", "a", "ul", "ol", "li", "blockquote", "hr", "br"}
MARKDOWN_TAGS |= {"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "s"}

IMG = "<img src=x onerror=alert(1)>"
CORPUS = [
    # the review finding: an escaped backtick is not the start of a code span
    f"see \\`{IMG}` here",
    f"\\``{IMG}`",
    f"\\\\`{IMG}`",
    f"a \\\\\\`{IMG}`",
    f"``x`{IMG}`",
    f"`a``{IMG}`",
    f"`a`{IMG}`b`",
    # code spans and fences that block structure breaks up
    f"`start\n\n{IMG}`",
    f"`start\n# {IMG}`",
    f"`start\n- {IMG}`",
    f"```\ncode\n```{IMG}",
    f"```js`x\n{IMG}\n```",
    f"- ```\n  {IMG}\n  ```",
    f"> ```\n> {IMG}\n```",
    f"~~~\n{IMG}\n```\n~~~",
    f"````\n```\n{IMG}\n````",
    f"   ```\n{IMG}\n   ```",
    f"    ```\n{IMG}\n```",
    f"```\n{IMG}",
    # GFM tables split cells on pipes, even inside code spans
    f"| a | b |\n|---|---|\n| `x|{IMG}` | y |",
    f"| a |\n|---|\n| `a|b` `{IMG}` |",
    f"| a |\n|---|\n`x|{IMG}|`",
    f"| a |\n|---|\n| `x\\|{IMG}` |",
    f"| a |\n|---|\n| `x\\\\|{IMG}` |",
    # raw HTML, autolinks, entities, images and links
    "<script>alert(1)</script>",
    "<div>\n<script>alert(1)</script>\n</div>",
    '<a href="javascript:alert(1)">x</a>',
    "<svg/onload=alert(1)>",
    "<!-- x --><img src=x onerror=alert(1)>",
    "&lt;img src=x onerror=alert(1)&gt;",
    "&#60;img src=x onerror=alert(1)&#62;",
    "<javascript:alert(1)>",
    "[x](javascript:alert(1)) [y](<javascript:alert(1)>) [z](javascript&#58;alert(1))",
    "[x][r]\n\n[r]: javascript:alert(1)",
    '![a](x "onerror=alert(1)") ![b](http://tracker.example/p.png?q=secret)',
    "![a][r]\n\n[r]: http://tracker.example/p.png",
    f"[`{IMG}`](u)",
    f'[a](u "`{IMG}`")',
    f"[r]: `{IMG}`",
    f"[a](`{IMG}`)",
    f"*`{IMG}`* **`x`<b>**",
    f"`{IMG}`\n---",
    f"1. step\n   ```html\n   {IMG}\n   ```\n2. next `{IMG}`",
]
GOOD_CODE = [
    ("use `<b>` for bold", "<code>&lt;b&gt;</code>"),
    ("```html\n<b>kept</b>\n```", '<pre><code class="language-html">&lt;b&gt;kept&lt;/b&gt;\n</code></pre>'),
    ("`` a`b ``", "<code>a`b</code>"),
    ("1. run\n   ```bash\n   ls <dir>\n   ```", '<code class="language-bash">ls &lt;dir&gt;\n</code>'),
]


class Page(HTMLParser):
    """Collects what a rendered page would do in a browser: elements, event handlers, link targets."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.handlers: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            if name.startswith("on"):
                self.handlers.append(name)
            if name in ("href", "src", "action", "formaction"):
                self.urls.append((value or "").strip().lower())

    handle_startendtag = handle_starttag


def assert_safe(markdown: str) -> None:
    for name, renderer in RENDERERS.items():
        rendered = renderer.render(markdown)
        page = Page()
        page.feed(rendered)
        context = f"{name}:\n{markdown}\n---\n{rendered}"
        assert page.tags <= MARKDOWN_TAGS, (page.tags - MARKDOWN_TAGS, context)
        assert not page.handlers, context
        assert not [u for u in page.urls if u.startswith(("javascript:", "vbscript:", "data:"))], context


def nasty_call(text: str, **kw) -> ToolCallInfo:
    fields = {"call_id": text, "tool_name": text, "arguments": {"command": text}, "status": "success"}
    fields |= {"display": text, "risk": text, "reason": text, "result": text, "preview": text}
    return ToolCallInfo.model_validate(fields | kw)


@pytest.mark.parametrize("text", CORPUS)
def test_model_markdown_never_renders_raw_html(text):
    assert_safe(md_text(text))


@pytest.mark.parametrize("text", CORPUS)
def test_every_markdown_view_is_safe_for_untrusted_fields(text):
    pending = nasty_call(text, status="awaiting_approval")
    result = RunResult.model_validate(
        {"session_id": "0123456789abcdef", "status": "awaiting_approval", "text": text, "error": text}
        | {"tool_calls": [nasty_call(text)], "pending": [pending]}
    )
    assert_safe(run_result_markdown(result))
    assert_safe(calls_table([nasty_call(text), nasty_call(text)])._repr_markdown_())
    assert_safe(PendingView([pending], note=text)._repr_markdown_())
    for piece in (md_inline(text), md_code(text), fence(text, lang=text)):
        assert_safe(piece)


def test_escaped_backtick_shows_the_tag_as_text():
    rendered = RENDERERS["commonmark"].render(md_text(f"see \\`{IMG}` here"))
    assert "&lt;img src=x onerror=alert(1)&gt;" in rendered and "<img" not in rendered


@pytest.mark.parametrize(("text", "expected"), GOOD_CODE)
def test_genuine_code_is_still_code(text, expected):
    assert expected in RENDERERS["commonmark"].render(md_text(text))


def test_prose_formatting_survives():
    text = "# Plan\n\n1. **read** the file\n2. run *tests* & fix `a < b`\n\n| x | y |\n|---|---|\n| 1 | 2 |"
    rendered = RENDERERS["gfm"].render(md_text(text))
    assert (
        "<h1>Plan</h1>" in rendered and "<strong>read</strong>" in rendered and "<em>tests</em>" in rendered
    )
    assert "&amp; fix <code>a &lt; b</code>" in rendered and "<td>1</td>" in rendered


PIECES = ["`", "``", "```", "~~~", "\\", "|", "\n", "\n\n", " ", "    ", "x", "!", "[", "]", "(", ")"]
PIECES += ["<", ">", "&", "*", "_", "-", "# ", "> ", "1. ", '"', ":", "javascript:alert(1)", IMG, "<script>"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join))
def test_fuzzed_model_markdown_never_renders_raw_html(text):
    assert_safe(md_text(text))
    assert_safe(md_inline(text) + "\n\n" + md_code(text))
