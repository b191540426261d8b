"""The CLI fixtures for the export tests."""

from tests.cli.conftest import cli_env, run_cairn, script  # noqa: F401  (fixtures)
