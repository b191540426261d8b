"""Fixtures for tests that talk to the scripted OpenAI-compatible server.

Use the context manager directly::

    with openai_server([{"content": "hi"}]) as server:
        model = create_model("scripted", base_url=server.base_url)

or the pytest fixture (import it into the test module: ``from tests.support.fixtures import
make_openai_server``), which stops every server it started at teardown::

    def test_x(make_openai_server):
        server = make_openai_server("script.json")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from cairn.graph.models.script import ScriptTurn, load_script, parse_script
from tests.support.openai_server import ScriptedOpenAIServer

Script = str | Path | list[Any] | dict[str, Any]


def script_turns(script: Script) -> list[ScriptTurn]:
    """A script given as a file path, a list of turns or ``{"turns": [...]}``."""
    if isinstance(script, str | Path):
        return load_script(script)
    return parse_script(script)


@contextmanager
def openai_server(script: Script, **options: Any) -> Iterator[ScriptedOpenAIServer]:
    """A running server (``.base_url``, ``.requests``) for the duration of the block."""
    if options.get("model_turns"):
        options["model_turns"] = {name: script_turns(turns) for name, turns in options["model_turns"].items()}
    server = ScriptedOpenAIServer(script_turns(script), **options).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def make_openai_server() -> Iterator[Callable[..., ScriptedOpenAIServer]]:
    """Factory fixture: ``make_openai_server(script, **options)`` → a started server."""
    with ExitStack() as stack:
        yield lambda script, **options: stack.enter_context(openai_server(script, **options))
