"""The recording proxy (bench_small_model.py, the local-model e2e test) passes answers through
unchanged, streamed or not, and records per chat request what it cost."""

from __future__ import annotations

from cairn.graph.models import create_model
from tests.support.fixtures import openai_server
from tests.support.recording_proxy import RecordingProxy


def test_streamed_and_plain_answers_pass_through_and_are_recorded():
    script = [{"content": ["Hello ", "there."]}, {"content": "Second."}]
    with openai_server(script) as server, RecordingProxy(server.base_url) as proxy:
        proxy.label = "one"
        model = create_model("scripted", base_url=proxy.base_url)
        chunks = [c.content for c in model.stream("hi")]
        assert "".join(chunks) == "Hello there."
        proxy.label = "two"
        plain = create_model("scripted", base_url=proxy.base_url).invoke(
            [("user", "hi"), ("assistant", "Hello there."), ("user", "again")]
        )
        assert plain.content == "Second."
    (first,) = proxy.for_label("one")
    assert first["stream"] and first["messages"] == 1 and first["status"] == 200
    assert first["content"] == "Hello there." and 0 <= first["ttft_s"] <= first["total_s"]
    (second,) = proxy.for_label("two")
    assert second["messages"] == 3 and second["content"] == "Second." and second["usage"]["prompt_tokens"] > 0
    assert [r["label"] for r in proxy.records] == ["one", "two"]
