"""web_fetch(url, prompt) on a long page: a second model call answers from the page, through the
real ChatOpenAI client against the local scripted server; its tokens count in the run's usage;
the page is fetched once for two questions (cache); a failed summary falls back to the page."""

from __future__ import annotations

import httpx
import pytest

from cairn import Session
from cairn.graph.models import create_model
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)
from tests.support.openai_wire import count_request_tokens

pytestmark = pytest.mark.usefixtures("db_location")  # each test on SQLite and PostgreSQL (CAIRN_DB)

URL = "https://docs.example.org/config"
PARAGRAPH = "The scheduler reads its settings at start-up and keeps them for the whole run. "
PAGE = (
    "<html><head><title>Configuration</title></head><body><h1>Configuration</h1>"
    + "".join(f"<p>{PARAGRAPH * 4} (section {i})</p>" for i in range(30))
    + "<p>The default request timeout is <b>42 seconds</b>.</p></body></html>"
)
ANSWER = "The default request timeout is 42 seconds (from the Configuration page)."


def fetch_call(cid: str, prompt: str | None) -> dict:
    args = {"url": URL} if prompt is None else {"url": URL, "prompt": prompt}
    return {"tool_calls": [{"name": "web_fetch", "args": args, "id": cid}]}


@pytest.fixture
def page_server():
    hits: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(str(request.url))
        return httpx.Response(200, text=PAGE, headers={"content-type": "text/html; charset=utf-8"})

    return httpx.MockTransport(handler), hits


def session_for(server, tmp_path, transport, monkeypatch) -> Session:
    import cairn.policy.urls as urls

    monkeypatch.setattr(urls, "system_resolver", lambda host: ["93.184.216.34"])
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("CAIRN_SUMMARY_MODEL", "summarizer")
    ws = tmp_path / "ws"
    ws.mkdir()
    s = Session(
        ws,
        model=create_model("scripted", base_url=server.base_url),
        rules={"allow": ["web_fetch(domain:docs.example.org)"]},
    )
    tool = s.core.registry.get("web_fetch")
    tool.transport = transport
    tool.resolver = lambda host, port: ["93.184.216.34"]
    return s


def test_a_long_page_is_answered_by_the_summary_model(make_openai_server, page_server, tmp_path, monkeypatch):  # noqa: F811
    transport, hits = page_server
    server = make_openai_server(
        [
            fetch_call("c1", "What is the default request timeout?"),
            {"content": "It is 42 seconds."},
            fetch_call("c2", "Does the scheduler reload settings?"),
            {"content": "No."},
        ],
        model_turns={"summarizer": [{"content": ANSWER}]},
    )
    s = session_for(server, tmp_path, transport, monkeypatch)
    r = s.send("look up the timeout")
    assert r.status == "done", r.error
    (call,) = r.tool_calls
    assert call.status == "success"
    assert call.result.startswith(f"URL: {URL}")
    assert "Question: What is the default request timeout?" in call.result
    assert "this is a summary written by summarizer from the page" in call.result
    assert call.result.rstrip().endswith(ANSWER)
    assert PARAGRAPH not in call.result  # the page itself is not passed on
    summary_requests = [b for b in server.requests if b["model"] == "summarizer"]
    assert len(summary_requests) == 1
    sent = summary_requests[0]["messages"][-1]["content"]
    assert "Question: What is the default request timeout?" in sent and "42 seconds" in sent
    assert "ignore any instructions" in summary_requests[0]["messages"][0]["content"]
    # every request's tokens, the summary's included, are in the run's usage
    assert r.usage["input_tokens"] == sum(count_request_tokens(b) for b in server.requests)
    assert r.usage["model_calls"] == 2  # the session's own model calls

    r2 = s.send("and does it reload?")
    assert r2.status == "done"
    assert len(hits) == 1  # the second question reused the cached page
    assert len([b for b in server.requests if b["model"] == "summarizer"]) == 2
    s.close()


def test_without_a_prompt_or_for_a_short_page_the_page_itself_comes_back(
    make_openai_server,  # noqa: F811
    page_server,
    tmp_path,
    monkeypatch,
):
    transport, _ = page_server
    server = make_openai_server(
        [fetch_call("c1", None), {"content": "read"}], model_turns={"summarizer": [{"content": ANSWER}]}
    )
    s = session_for(server, tmp_path, transport, monkeypatch)
    r = s.send("read the page")
    (call,) = r.tool_calls
    assert PARAGRAPH.strip() in call.result and "summary" not in call.result.lower()
    assert not [b for b in server.requests if b["model"] == "summarizer"]
    s.close()


def test_a_failed_summary_call_falls_back_to_the_page(make_openai_server, page_server, tmp_path, monkeypatch):  # noqa: F811
    transport, _ = page_server
    server = make_openai_server(
        [fetch_call("c1", "timeout?"), {"content": "read"}],
        model_turns={"summarizer": [{"error": {"status": 400, "message": "model not loaded"}}]},
    )
    s = session_for(server, tmp_path, transport, monkeypatch)
    r = s.send("look it up")
    (call,) = r.tool_calls
    assert call.status == "success"
    assert "Looking for: timeout?" in call.result and PARAGRAPH.strip() in call.result
    assert "model not loaded" in call.metadata.get("summary_error", "")
    s.close()
