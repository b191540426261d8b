"""Shared fixtures. No test touches the network or the user's real state directory."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# On a shared 2-core machine input generation can be slow: a property test must not fail for it.
settings.register_profile("cairn", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("cairn")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Keep cairn's state (default DB, config) out of the real home directory."""
    state = tmp_path_factory.mktemp("cairn-state")
    monkeypatch.setenv("CAIRN_HOME", str(state))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("CAIRN_DB", raising=False)  # never a developer's own database
    # pytest-xdist's workers set COLUMNS=80 and LINES=24; a `cairn` under a pseudo-terminal of
    # another size would believe them instead of the terminal (as it should for a person's).
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    for name in (
        "CAIRN_SEARCH_PROVIDER",
        "CAIRN_SUMMARY_MODEL",
        "SEARXNG_URL",
        "TAVILY_API_KEY",
        "BRAVE_API_KEY",
        "BRAVE_SEARCH_API_KEY",
        "EXA_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture
def workspace(tmp_path):
    """A fresh workspace directory (real path)."""
    root = tmp_path / "ws"
    root.mkdir()
    return os.path.realpath(root)


from tests.support.pg_fixtures import (  # noqa: E402, F401
    SKIP_PREFIX,
    db_location,
    pg_server,
    pg_url,
    skipped_because,
)
from tests.support.store_guard import _store_backend_guard  # noqa: E402, F401


def pytest_runtest_logreport(report):
    """Note a Postgres skip where the summary is written: under pytest-xdist the skip happens
    in a worker, and only its report reaches this (the controller) process."""
    if report.skipped and not skipped_because:
        text = str(report.longrepr)
        if SKIP_PREFIX in text:
            skipped_because.append(text[text.index(SKIP_PREFIX) :].rstrip("')\""))


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if skipped_because:
        terminalreporter.write_line(f"PostgreSQL tests were skipped: {skipped_because[0]}", yellow=True)
        if _in_ci():
            terminalreporter.write_line("CI=true: skipping the PostgreSQL tests fails the run", red=True)


def pytest_sessionfinish(session, exitstatus):
    """In CI the Postgres tests must run: a skip (server could not start) fails the run."""
    if skipped_because and _in_ci() and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
