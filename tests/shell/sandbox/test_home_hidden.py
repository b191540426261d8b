"""Item 1 of issue 26 under bubblewrap: the home directory is hidden by construction (an empty
tmpfs) except the workspace and a read-only allowlist; the workspace's credential files are
hidden from commands no person approved.  Every denial has an unsandboxed control."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cairn.policy.sandbox import SandboxSettings
from tests.shell.sandbox.deny_default import bwrap_tools, text


@pytest.fixture
def bw(area):
    yield from bwrap_tools(area)


PROFILES = ("read-only", "workspace-write")


@pytest.fixture
def home_secrets(area):
    secrets = {
        area.home / ".bash_history": "history-secret-1",
        area.home / ".pgpass": "localhost:5432:*:me:pgpass-secret-2",
        area.home / ".config" / "github-copilot" / "hosts.json": '{"token": "copilot-secret-3"}',
        area.home / ".config" / "sometool" / "token": "sometool-secret-4",
        area.home / ".cache" / "huggingface" / "token": "hf-secret-5",
    }
    for path, value in secrets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value)
    return secrets


@pytest.mark.parametrize("profile", PROFILES)
def test_home_secrets_off_the_hidden_list_are_unreadable(bw, home_secrets, profile):
    command = "cat " + " ".join(f"'{p}'" for p in home_secrets)
    result = bw.run(command, profile)
    for value in home_secrets.values():
        assert value not in text(result)
    listing = bw.run("ls -a ~", profile).output.split()
    assert ".bash_history" not in listing and ".pgpass" not in listing and ".config" not in listing
    control = bw.run(command, None)
    assert all(value in text(control) for value in home_secrets.values())


@pytest.mark.parametrize("profile", PROFILES)
def test_the_allowlist_is_readable_and_read_only(bw, area, profile):
    wheel = area.home / ".cache" / "pip" / "wheels" / "ab" / "demo-1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_text("not really a wheel")
    (area.home / ".gitconfig").write_text("[user]\n\tname = Sandbox Probe\n")
    result = bw.run(f"cat '{wheel}' ~/.gitconfig; printf x > '{wheel}.new'", profile)
    assert "not really a wheel" in text(result) and "Sandbox Probe" in text(result)
    assert not wheel.with_name(wheel.name + ".new").exists()


def test_pip_reads_its_cache(bw, area):
    wheel = area.home / ".cache" / "pip" / "wheels" / "ab" / "cd" / "demo-1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    command = f"'{sys.executable}' -m pip cache list --format=abspath"
    control = bw.run(command, None)
    if "demo-1.0" not in text(control):
        pytest.skip(f"pip cannot list its cache here even without a sandbox: {text(control)[:200]}")
    result = bw.run(command, "read-only")
    assert "demo-1.0-py3-none-any.whl" in text(result), text(result)


def test_sandbox_readable_adds_a_path_and_a_failure_says_how(bw, area, home_secrets):
    token = area.home / ".config" / "sometool" / "token"
    result = bw.run(f"cat '{token}'", "read-only")
    assert "sometool-secret-4" not in text(result)
    assert "~/.config/sometool" in text(result) and "sandbox_readable" in text(result)
    settings = SandboxSettings(readable=("~/.config/sometool",))
    allowed = bw.run(f"cat '{token}'; printf x > '{token}'", "workspace-write", settings=settings)
    assert "sometool-secret-4" in text(allowed)
    assert token.read_text() == "sometool-secret-4"  # readable, not writable
    assert "copilot-secret-3" not in text(
        bw.run("cat ~/.config/github-copilot/hosts.json", "read-only", settings=settings)
    )


def test_hidden_list_still_covers_tokens_inside_the_allowlist(bw, home_secrets):
    result = bw.run("cat ~/.cache/huggingface/token; ls ~/.cache/huggingface", "read-only")
    assert "hf-secret-5" not in text(result)


@pytest.mark.parametrize("profile", PROFILES)
def test_workspace_credentials_hidden_unless_a_person_approved(bw, area, profile):
    (area.ws / ".env").write_text("API_KEY=env-secret-6\n")
    (area.ws / "deploy").mkdir()
    (area.ws / "deploy" / "server.pem").write_text("pem-secret-7")
    (area.ws / ".env.example").write_text("API_KEY=changeme\n")
    (area.ws / "id_map.py").write_text("ids = 1\n")
    command = "cat .env deploy/server.pem .env.example id_map.py"
    result = bw.run(command, profile)
    assert "env-secret-6" not in text(result) and "pem-secret-7" not in text(result)
    assert "changeme" in text(result) and "ids = 1" in text(result)  # templates and code stay
    assert "Note: .env" in text(result) and "approval" in text(result)  # the model is told why
    if profile == "workspace-write":
        approved = bw.run(command, profile, approved=True)
        assert "env-secret-6" in text(approved) and "pem-secret-7" in text(approved)
        bw.run("printf 'API_KEY=overwritten' > .env; rm -f .env", profile)
        assert (area.ws / ".env").read_text() == "API_KEY=env-secret-6\n"


def test_git_status_and_pytest_work(bw, area):
    subprocess.run(["git", "init", "-q"], cwd=area.ws, check=True)
    (area.ws / "test_tiny.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    for profile in PROFILES:
        status = bw.run("git status --porcelain", profile)
        assert status.metadata["exit_code"] == 0, text(status)
        listed = {line[3:] for line in status.output.splitlines() if line.startswith("?? ")}
        assert listed == {"test_tiny.py"}, text(status)  # placeholders are empty: git ignores them
        tests = bw.run(
            f"PYTHONDONTWRITEBYTECODE=1 '{sys.executable}' -m pytest -q -p no:cacheprovider test_tiny.py",
            profile,
        )
        assert "1 passed" in text(tests), text(tests)


def test_settings_keys_are_read_and_checked(area, tmp_path):
    from cairn.policy.errors import PolicyConfigError
    from cairn.policy.sandbox import load_sandbox_settings

    user = tmp_path / "settings.toml"
    user.write_text('sandbox_readable = ["~/.config/sometool"]\nsandbox_max_processes = 256\n')
    (area.ws / ".cairn").mkdir()
    (area.ws / ".cairn" / "settings.toml").write_text('sandbox_readable = ["~/.m2/wrapper"]\n')
    settings = load_sandbox_settings(area.ws, user_config=user)
    assert settings.readable == ("~/.config/sometool",)  # a project file cannot unhide home paths
    assert settings.max_processes == 256
    (area.ws / ".cairn" / "settings.toml").write_text("sandbox_max_processes = 64\n")
    assert load_sandbox_settings(area.ws, user_config=user).max_processes == 256  # the user's wins
    user.write_text("")
    assert load_sandbox_settings(area.ws, user_config=user).max_processes == 64  # lower: it counts
    (area.ws / ".cairn" / "settings.toml").write_text("sandbox_max_processes = 100000\n")
    assert load_sandbox_settings(area.ws, user_config=user).max_processes < 100000  # higher: not
    user.write_text("sandbox_max_processes = 3\n")
    with pytest.raises(PolicyConfigError, match="sandbox_max_processes"):
        load_sandbox_settings(area.ws, user_config=user)
    user.write_text('sandbox_readable = "~/.config"\n')
    with pytest.raises(PolicyConfigError, match="sandbox_readable"):
        load_sandbox_settings(area.ws, user_config=user)


def test_install_prefixes_on_path_and_the_venv_base_are_readable(area, monkeypatch):
    from cairn.policy.sandbox_paths import readable_in_home

    tools = area.home / "tools" / "bin"
    tools.mkdir(parents=True)
    pipx_venv = area.home / ".local" / "share" / "pipx" / "venvs" / "black"
    (pipx_venv / "bin").mkdir(parents=True)
    (pipx_venv / "bin" / "black").write_text("#!/bin/sh\n")
    (area.home / ".local" / "bin").mkdir(parents=True)
    (area.home / ".local" / "bin" / "black").symlink_to(pipx_venv / "bin" / "black")
    base = area.home / "pythons" / "cpython-3.12"
    venv = area.home / "envs" / "work"
    venv.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\n")
    monkeypatch.setenv("PATH", f"{tools}:{area.home / '.local' / 'bin'}:/usr/bin")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    readable = readable_in_home(environ=os.environ)
    assert str(area.home / "tools") in readable  # ~/tools/bin -> ~/tools
    assert str(pipx_venv) in readable  # a shim's real install
    assert str(area.home / ".local") not in readable and str(area.home) not in readable
    assert str(venv) in readable and str(base) in readable


@pytest.mark.parametrize("profile", PROFILES)
def test_a_workspace_inside_home_stays_usable_while_the_rest_is_hidden(bw, area, monkeypatch, profile):
    monkeypatch.setenv("HOME", str(area.base))  # the usual layout: ~/ws
    (area.base / ".pgpass").write_text("pg-under-home-secret\n")
    (area.outside / "notes.txt").write_text("outside-notes\n")  # ~/outside: not the workspace
    (area.ws / "data.txt").write_text("workspace-data\n")
    result = bw.run(f"cat data.txt ~/.pgpass '{area.outside / 'notes.txt'}'; printf ok > made.txt", profile)
    assert "workspace-data" in text(result)
    assert "pg-under-home-secret" not in text(result) and "outside-notes" not in text(result)
    assert (area.ws / "made.txt").exists() == (profile == "workspace-write")


def test_bare_names_in_sandbox_hidden_paths_hide_workspace_files(bw, area):
    (area.ws / "conf").mkdir()
    (area.ws / "conf" / "vault.json").write_text('{"token": "vault-secret-8"}')
    outside = area.outside / "other.txt"
    outside.write_text("other-secret-9")
    settings = SandboxSettings(hidden=("vault.json", str(outside)))
    result = bw.run(f"cat conf/vault.json '{outside}'", "read-only", settings=settings)
    assert "vault-secret-8" not in text(result) and "other-secret-9" not in text(result)
    assert "vault-secret-8" in text(bw.run("cat conf/vault.json", "read-only"))  # not hidden by default
