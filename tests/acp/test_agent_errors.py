"""The agent's answers to requests it cannot serve (in process: no editor needed)."""

from __future__ import annotations

import asyncio

import pytest
from acp import RequestError

from cairn.graph.apps.acp.agent import CairnAgent
from cairn.graph.apps.acp.session_config import AcpSettings


def test_loading_an_unknown_session_is_resource_not_found(db_location, workspace):
    agent = CairnAgent(AcpSettings(db=db_location))

    async def load() -> None:
        await agent.load_session(cwd=workspace, session_id="no-such-session")

    with pytest.raises(RequestError) as caught:
        asyncio.run(load())
    assert caught.value.code == RequestError.resource_not_found().code
    assert agent.bridges == {}


def test_a_prompt_for_a_session_not_opened_here_says_so():
    agent = CairnAgent(AcpSettings())

    async def ask() -> None:
        await agent.prompt(session_id="elsewhere", prompt=[])

    with pytest.raises(RequestError) as caught:
        asyncio.run(ask())
    assert caught.value.code == RequestError.invalid_params().code
    assert "load it" in caught.value.data["message"]
