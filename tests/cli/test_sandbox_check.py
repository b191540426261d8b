"""``cairn sandbox check`` through the real command (a subprocess), for both backends, and
``Session.sandbox_report()``.

The probes are harmless (marker files, planted fake secrets, listeners the check opens on
127.0.0.1 and in its temporary HOME, a bounded number of sleepers); the check runs the same
probes without a sandbox as a control, so a probe that cannot get through anyway cannot count
as "enforced".
"""

from __future__ import annotations

import json
import subprocess

import pytest

from cairn.graph.apps.cli.commands.sandbox_report import ASKS, ENFORCED, INCONCLUSIVE, NOT_ENFORCED, render
from cairn.tools.shell.sandbox import detect_backend
from cairn.tools.shell.sandbox.guarantees import GUARANTEES
from tests.cli.conftest import cairn_cmd


def _check(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*cairn_cmd(), "sandbox", "check", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(params=["bwrap", "landlock"])
def backend(request) -> str:
    status = detect_backend(request.param)
    if not status.available:
        pytest.skip(f"{request.param} does not work on this machine: {status.problem}")
    return request.param


@pytest.fixture(scope="module")
def json_run(tmp_path_factory):
    """One ``--json`` run probing every backend (the probes take seconds)."""
    import os

    env = dict(os.environ, CAIRN_DB=str(tmp_path_factory.mktemp("db") / "cairn.db"))
    return _check("--json", env=env)


def test_every_row_is_enforced_or_asks(backend, json_run):
    done = json_run
    report = json.loads(done.stdout)
    assert set(report["control"]) == set(GUARANTEES)
    assert all(report["control"].values()), report["control"]  # each probe gets through unsandboxed
    data = report["backends"][backend]
    assert data["available"]
    for profile in ("read-only", "workspace-write"):
        cells = data["results"][profile]
        assert set(cells) == set(GUARANTEES)
        expected = ENFORCED if backend == "bwrap" else (ENFORCED, ASKS)
        for guarantee, cell in cells.items():
            assert cell in expected, (profile, guarantee, cell, data["details"][profile])
            if cell == ASKS:
                assert guarantee in data["missing"][profile]
    assert report["ok"] is True and done.returncode == 0


def test_the_table_for_people(cli_env):
    backends = [name for name in ("bwrap", "landlock") if detect_backend(name).available]
    if not backends:
        pytest.skip("no sandbox backend works on this machine")
    done = _check("--backend", backends[-1], env=cli_env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:1] == ["guarantee"] and f"{backends[-1]} workspace-write" in lines[0]
    for text in GUARANTEES.values():
        row = next(line for line in lines if line.startswith(text))
        assert "gets through" in row and "NOT ENFORCED" not in row and "inconclusive" not in row
    assert any(line.startswith(f"{backends[-1]}: ") for line in lines)


def test_render_names_what_asks_and_what_is_broken():
    cells = dict.fromkeys(GUARANTEES, ENFORCED)
    report = {
        "guarantees": GUARANTEES,
        "control": dict.fromkeys(GUARANTEES, True),
        "backends": {
            "landlock": {
                "available": True,
                "problem": None,
                "missing": {"read-only": ["survivor"]},
                "results": {
                    "read-only": {**cells, "survivor": ASKS},
                    "workspace-write": {**cells, "hard-link": NOT_ENFORCED, "udp-localhost": INCONCLUSIVE},
                },
                "details": {"workspace-write": {"hard-link": "wrote through a hard link"}},
            },
            "bwrap": {
                "available": False,
                "problem": "no bwrap binary",
                "missing": {},
                "results": {},
                "details": {},
            },
        },
        "ok": False,
    }
    text = "\n".join(render(report))
    survivor = next(line for line in text.splitlines() if line.startswith(GUARANTEES["survivor"]))
    assert ASKS in survivor
    assert "landlock: not guaranteed here, so the policy asks instead: survivor" in text
    assert "workspace-write hard-link: wrote through a hard link" in text
    assert "bwrap: not available here (no bwrap binary)" in text


def test_session_sandbox_report(workspace, cli_env, monkeypatch):
    if not detect_backend("landlock").available:
        pytest.skip("Landlock does not work on this machine")
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    for key in ("CAIRN_HOME", "CAIRN_DB"):
        monkeypatch.setenv(key, cli_env[key])
    s = Session(workspace, model=ScriptedChatModel.from_turns([{"content": "hi"}]), db=":memory:")
    try:
        report = s.sandbox_report(backend="landlock")
    finally:
        s.close()
    assert set(report["backends"]) == {"landlock"}
    cells = report["backends"]["landlock"]["results"]["workspace-write"]
    assert set(cells) == set(GUARANTEES) and set(cells.values()) <= {ENFORCED, ASKS}


def test_python_probes_that_cannot_run_are_inconclusive(monkeypatch, tmp_path):
    """If the interpreter cannot run inside the sandbox, the socket and process probes prove
    nothing: they must not be reported as enforced."""
    from cairn.graph.apps.cli.commands import sandbox_probes

    if not detect_backend("landlock").available:
        pytest.skip("Landlock does not work on this machine")
    monkeypatch.setattr(sandbox_probes, "_PY", str(tmp_path / "no-such-python"))
    with sandbox_probes.probe_place(None) as place:
        seen = sandbox_probes.probe_all(place, detect_backend("landlock"), "read-only")
    assert all(seen[g][0] is None for g in sandbox_probes._NEEDS_PYTHON)
    assert seen["write-outside"][0] is True
