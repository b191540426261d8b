"""`w` at the approval prompt: a sandboxed command runs with network to the domains a person names.

The host is a server the test runs on 127.0.0.1, reached as ``index.test`` through the user's
``[sandbox] network_hosts`` pin; no other address is ever a target.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.tools.shell.sandbox import detect_backend
from tests.cli.conftest import call
from tests.support.hello_origin import FETCH, hello_server

pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only("the approval prompt is tested, not the store")]


@pytest.fixture
def origin() -> Iterator[int]:
    with hello_server() as port:
        yield port


def test_w_grants_typed_domains_and_show_records_them(pty_cairn, script, workspace, cli_env, origin):
    if not detect_backend("bwrap").available:
        pytest.skip("network grants need the bubblewrap backend")
    from tests.cli.test_interactive_pty import MENU_END, finish, show_json

    home = Path(cli_env["CAIRN_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text('[sandbox]\nnetwork_hosts = { "index.test" = "127.0.0.1" }\n')
    Path(workspace, "fetch.py").write_text(FETCH)
    turns = [
        {
            "content": "",
            "tool_calls": [call("bash", "b1", command=f"python3 fetch.py http://index.test:{origin}/")],
        },
        {"content": "Fetched."},
    ]
    child = pty_cairn("--model", script(turns), "-v", "fetch it")
    child.expect("w yes, with network")
    child.expect(MENU_END)
    child.send("w")
    child.expect("network to which domains")
    child.sendline("index.test")
    child.expect(r"network: GET index.test:\d+ allowed")
    child.expect("Fetched.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    [b1] = show_json(cli_env, workspace)["tool_calls"]
    assert b1["network"] == ["index.test"] and b1["decision"] == "approved with network (index.test)"
    assert b1["sandbox"] == "workspace-write" and "hello from the index" in b1["result"]
    assert os.path.exists(os.path.join(workspace, "fetch.py"))
