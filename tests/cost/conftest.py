"""The CLI fixtures (a cairn subprocess, scripts) for the cost, telemetry and export tests."""

from tests.cli.conftest import cli_env, run_cairn, script  # noqa: F401  (fixtures)
