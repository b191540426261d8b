"""Fixtures for the ``cairn acp`` tests (the CLI's environment and the scripted model server)."""

from __future__ import annotations

import pytest

from tests.cli.conftest import cli_env  # noqa: F401  (fixture)
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

pytest.importorskip("acp", reason="the acp extra (agent-client-protocol) is not installed")
