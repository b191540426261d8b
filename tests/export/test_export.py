"""``Session.export`` and ``cairn export``: lifecycle, diffs, approvals, costs; secrets redacted."""

from __future__ import annotations

import json
import re

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from tests.cli.conftest import call

SECRET = "sk-test-0123456789abcdef"
TURNS = [
    {
        "content": f"I will write it (token {SECRET}).",
        "tool_calls": [call("write_file", "w1", file_path="notes.txt", content=f"key={SECRET}\nhello\n")],
        "usage": {"input_tokens": 100_000, "output_tokens": 5_000},
    },
    {"content": "Done: notes.txt has it.", "usage": {"input_tokens": 200_000, "output_tokens": 10_000}},
]


@pytest.fixture
def session(tmp_path, db_location, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", SECRET)
    ws = tmp_path / "ws"
    ws.mkdir()
    s = Session(ws, model=ScriptedChatModel(turns=TURNS, model_name="gpt-4o"), db=db_location)
    r = s.send("write notes")
    assert r.status == "awaiting_approval"
    assert s.approve().status == "done"
    yield s
    s.close()


def test_markdown_has_lifecycle_diff_approval_and_cost(session):
    text = session.export("md")
    assert SECRET not in text and "[redacted: $MY_SERVICE_API_KEY]" in text
    assert "## You" in text and "write notes" in text and "Done: notes.txt has it." in text
    assert re.search(r"\*\*write_file\*\* `w1` — ✓ success · risk \w+", text)
    assert "```diff" in text and "+hello" in text
    assert "decision: approved" in text
    assert "Cost: $0.9000 (USD)" in text  # ((100k + 200k) × 2.50 + 15k × 10) per million


def test_json_is_the_document(session):
    doc = json.loads(session.export("json"))
    assert SECRET not in json.dumps(doc)
    first, _ = [m for m in doc["messages"] if m["role"] == "assistant"]
    [write] = first["tool_calls"]
    assert write["status"] == "success" and write["risk"] and "diff" in write
    assert write["decision"] == "approved"
    assert round(doc["cost"]["cost"], 2) == 0.90 and doc["session_id"] == session.id


def test_html_is_self_contained_and_escaped(session):
    page = session.export("html")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"<(script|link|img|iframe)\b", page), "nothing loaded from elsewhere"
    assert "http://" not in page and "https://" not in page
    assert SECRET not in page and "[redacted: $MY_SERVICE_API_KEY]" in page
    assert '<span class="add">+hello</span>' in page


def test_password_urls_are_redacted():
    from cairn.graph.core.export.redact import Redactor

    redactor = Redactor.from_environment({"DB_PASSWORD": "hunter2hunter2", "HOME": "/home/someone"})
    out = redactor.apply({"a": ["postgresql://me:pw123@db/x", "pw hunter2hunter2 in /home/someone"]})
    assert out == {"a": ["postgresql://me:[redacted]@db/x", "pw [redacted: $DB_PASSWORD] in /home/someone"]}


@pytest.mark.slow
def test_cairn_export_cli(run_cairn, script, workspace, tmp_path, db_location):
    turns = [{"content": "Hello there.", "usage": {"input_tokens": 10, "output_tokens": 2}}]
    p = run_cairn("-p", "hi", "--model", script(turns), "--output-format", "json")
    sid = json.loads(p.stdout)["session_id"]
    md = run_cairn("export", sid)
    assert md.returncode == 0 and "Hello there." in md.stdout and md.stdout.startswith("# hi")
    out = tmp_path / "s.html"
    p = run_cairn("export", sid[:8], "--format", "html", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "Hello there." in out.read_text() and sid in p.stderr
    assert json.loads(run_cairn("export", "--last", "--format", "json").stdout)["session_id"] == sid
    assert run_cairn("export", "nope").returncode == 2
