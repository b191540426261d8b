"""Secrets never reach commands; interactive prompts are disabled."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from cairn.tools.shell.env import SecretFilter, build_env
from cairn.tools.shell.state import ShellState

SECRETS = {
    "OPENAI_API_KEY": "sk-openai",
    "ANTHROPIC_API_KEY": "sk-ant",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "AWS_SESSION_TOKEN": "aws-session",
    "GITHUB_TOKEN": "ghp-1",
    "GH_TOKEN": "ghp-2",
    "HF_TOKEN": "hf-1",
    "STRIPE_API_KEY": "sk-stripe",
    "MY_APP_SECRET_VALUE": "s3",
    "NPM_TOKEN": "npm-1",
    "DB_PASSWORD": "hunter2",
    "PGPASSWORD": "hunter3",
    "lower_api_key": "lower",
    # Bare and framework names (Django/Flask SECRET_KEY, generic API_KEY/TOKEN).
    "SECRET_KEY": "django-insecure",
    "API_KEY": "generic-key",
    "TOKEN": "generic-token",
    "SECRET": "bare-secret",
    "CLIENT_SECRET": "oauth-secret",
    "DJANGO_SECRET_KEY": "dj-2",
    "STRIPE_KEY": "sk-live",
    "SIGNING_KEY": "signing",
    "MYSQL_PWD": "mysql-pw",
    "AWS_ACCESS_KEY_ID": "AKIA-ID",  # alone it makes the AWS CLI fail with "partial credentials"
}
PUBLIC = {
    "MY_SETTING": "visible-value",
    "AWS_REGION": "eu-west-1",
    "TOKENIZERS_PARALLELISM": "false",
    "KEYTIMEOUT": "1",
    "GPG_TTY": "/dev/pts/1",
    "OLDPWD": "/tmp",
}


BROADER_FAMILIES = [
    "DATABASE_URL",
    "REDIS_URL",
    "MONGODB_URI",
    "SENTRY_DSN",
    "SLACK_WEBHOOK_URL",
    "APIKEY",
    "GITHUB_PAT",
    "JWT",
    "SESSION_COOKIE",
    "NPM_AUTH_TOKEN",
    "CREDENTIALS",
    "GOOGLE_APPLICATION_CREDENTIALS_JSON",
]


@pytest.mark.parametrize("name", BROADER_FAMILIES)
def test_connection_strings_webhooks_and_auth_families_are_secret(name):
    assert SecretFilter().is_secret(name)


@pytest.mark.parametrize("name", ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "SSH_AUTH_SOCK", "XAUTHORITY"])
def test_author_and_agent_socket_are_kept(name):
    assert not SecretFilter().is_secret(name)


def test_a_url_with_a_password_is_secret_whatever_its_name():
    env, withheld = build_env(
        {"HTTPS_PROXY": "http://user:hunter2@proxy:3128", "HTTP_PROXY": "http://proxy:3128", "PATH": "/bin"}
    )
    assert withheld == ["HTTPS_PROXY"]
    assert env["HTTP_PROXY"] == "http://proxy:3128"


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_secret_names_are_recognised(name):
    assert SecretFilter().is_secret(name)


@pytest.mark.parametrize("name", [*sorted(PUBLIC), "PATH", "HOME", "SSH_AUTH_SOCK"])
def test_ordinary_names_pass(name):
    assert not SecretFilter().is_secret(name)


def test_extra_patterns():
    flt = SecretFilter(["CORP_*", "EXACT_NAME"])
    assert flt.is_secret("CORP_LOGIN") and flt.is_secret("exact_name")
    assert not flt.is_secret("OTHER")


def test_build_env_sets_non_interactive_defaults_and_reports_withheld_names():
    env, withheld = build_env({"PATH": "/bin", "GH_TOKEN": "x", "PAGER": "less", "GIT_SSH_COMMAND": "mine"})
    assert withheld == ["GH_TOKEN"]
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["PAGER"] == env["GIT_PAGER"] == "cat"
    assert env["TERM"] == "dumb"
    assert env["GIT_EDITOR"] == "true"
    assert env["GIT_SSH_COMMAND"] == "mine"  # the person's own setting wins for these
    assert env["LANG"] == "C.UTF-8"
    assert "CI" not in env


def test_a_command_printing_its_environment_sees_no_secret(shell_tools, monkeypatch):
    for name, value in {**SECRETS, **PUBLIC}.items():
        monkeypatch.setenv(name, value)
    result = shell_tools.run("env; echo; printenv")
    assert result.ok, result.error
    for value in SECRETS.values():
        assert value not in result.output
    for name, value in PUBLIC.items():
        assert f"{name}={value}" in result.output
    assert "GIT_TERMINAL_PROMPT=0" in result.output
    assert "BASH_ENV" not in result.output and "__CAIRN" not in result.output


def test_extra_secret_patterns_from_the_session(workspace, monkeypatch):
    monkeypatch.setenv("CORP_LOGIN", "corp-secret")
    state = ShellState(workspace, extra_secret_patterns=("CORP_*",))
    try:
        run, _ = state.start('echo "[$CORP_LOGIN]"', timeout_s=10)
        run.done.wait(10)
        assert run.stdout.snapshot().head == b"[]\n"
    finally:
        state.close()


def test_a_bash_env_the_person_had_still_runs(shell_tools, monkeypatch, tmp_path):
    rc = tmp_path / "rc.sh"
    rc.write_text("export FROM_PERSON_RC=yes\n")
    monkeypatch.setenv("BASH_ENV", str(rc))
    result = shell_tools.run('echo "rc=$FROM_PERSON_RC"; pwd')
    assert "rc=yes" in result.output


AGENT = textwrap.dedent(
    """
    import ctypes, sys
    from cairn.tools.shell.state import ShellState

    state = ShellState(sys.argv[1])
    try:
        print("dumpable", ctypes.CDLL(None).prctl(3, 0, 0, 0, 0), flush=True)  # PR_GET_DUMPABLE
        command = "cat /proc/$PPID/environ >/dev/null && echo readable || echo blocked"
        run, _ = state.start(command, timeout_s=10)
        run.done.wait(10)
        print(run.stdout.snapshot().head.decode().strip(), flush=True)
    finally:
        state.close()
    """
)


def _agent_output(workspace) -> list[str]:
    env = dict(os.environ, OPENAI_API_KEY="sk-FAKE")
    proc = subprocess.run(
        [sys.executable, "-c", AGENT, str(workspace)], capture_output=True, text=True, env=env, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_DUMPABLE is Linux-only")
def test_the_agent_process_is_made_non_dumpable(workspace):
    """Commands run as the agent's user; /proc/$PPID/environ would show the agent's own keys."""
    assert _agent_output(workspace)[0] == "dumpable 0"


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() == 0,
    reason="root (CAP_SYS_PTRACE) reads any process's environ regardless of PR_SET_DUMPABLE",
)
def test_a_command_cannot_read_the_agents_environ(workspace):
    assert _agent_output(workspace)[1] == "blocked"


def test_a_name_decided_once_still_looks_at_each_value():
    flt = SecretFilter()
    assert flt.is_secret("HTTPS_PROXY", "http://user:pw@proxy:3128")
    assert not flt.is_secret("HTTPS_PROXY", "http://proxy:3128")
    assert flt.is_secret("GITHUB_TOKEN", "x") and flt.is_secret("GITHUB_TOKEN")
    assert not flt.is_secret("HOME", "/root") and not flt.is_secret("HOME")
