"""Per-send work done once: tool schemas per class, the bound model per session (issue 30)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage
from pydantic import Field

from cairn import Session
from cairn.tools.base import ArgsModel, parameters_schema


class CountingModel:
    """Answers at once and counts how often tools are bound to it."""

    def __init__(self) -> None:
        self.binds = 0
        self.bound_names: list[list[str]] = []

    def bind_tools(self, tools: Any, **kw: Any) -> CountingModel:
        self.binds += 1
        self.bound_names.append([t["function"]["name"] for t in tools])
        return self

    def invoke(self, messages: Any, *a: Any, **kw: Any) -> AIMessage:
        return AIMessage("ok")


class Args(ArgsModel):
    path: str = Field(description="A path.")


def test_parameters_schema_is_built_once_per_class(monkeypatch):
    built = []
    original = Args.model_json_schema.__func__

    def counting(cls, *a, **kw):
        built.append(cls)
        return original(cls, *a, **kw)

    monkeypatch.setattr(Args, "model_json_schema", classmethod(counting))
    first = parameters_schema(Args)
    second = parameters_schema(Args)
    assert first is second and built == [Args]
    assert "title" not in first and first["properties"]["path"]["description"] == "A path."


@pytest.mark.sqlite_only("the binding cache lives in the session, whatever the store")
def test_a_session_binds_its_tools_once_across_sends(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    model = CountingModel()
    s = Session(ws, model=model, db=str(tmp_path / "c.db"))
    try:
        for i in range(3):
            assert s.send(f"hi {i}").status == "done"
        assert model.binds == 1
        assert "read_file" in model.bound_names[0]
        s.set_mode("plan")
        assert s.send("plan something").status == "done"
        assert model.binds == 2  # plan mode binds the read-only set, once
        assert "write_file" not in model.bound_names[1] and "read_file" in model.bound_names[1]
    finally:
        s.close()
