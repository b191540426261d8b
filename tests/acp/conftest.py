"""Fixtures for the ``cairn acp`` tests (the CLI's environment and the scripted model server).

The SDK (``acp``) is in the ``dev`` extra: a missing SDK fails these tests rather than skipping them.
"""

from __future__ import annotations

from tests.cli.conftest import cli_env  # noqa: F401  (fixture)
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)
