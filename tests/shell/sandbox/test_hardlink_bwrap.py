"""Item 4 of issue 26 under bubblewrap: a workspace file hard-linked to a file outside the
workspace cannot be written through in ``workspace-write``; ordinary files and files whose
links all lie inside the workspace stay writable; no new link to outside can be made."""

from __future__ import annotations

import os

import pytest

from tests.shell.sandbox.deny_default import bwrap_tools, text


@pytest.fixture
def bw(area):
    yield from bwrap_tools(area)


def test_writing_through_a_hard_link_to_outside_is_refused(bw, area):
    target = area.outside / "bashrc"
    target.write_text("original\n")
    (area.ws / "src").mkdir()
    os.link(target, area.ws / "src" / "linked.sh")
    result = bw.run(
        "printf 'owned\\n' >> src/linked.sh; printf 'owned\\n' > src/linked.sh", "workspace-write"
    )
    assert target.read_text() == "original\n", text(result)
    control = bw.run("printf 'owned\\n' >> src/linked.sh", None)
    assert control.ok and target.read_text() == "original\nowned\n"


def test_links_inside_the_workspace_and_plain_files_stay_writable(bw, area):
    (area.ws / "a.txt").write_text("a\n")
    os.link(area.ws / "a.txt", area.ws / "b.txt")
    (area.ws / "plain.txt").write_text("p\n")
    result = bw.run("printf 'x\\n' >> b.txt && printf 'y\\n' >> plain.txt", "workspace-write")
    assert (area.ws / "a.txt").read_text() == "a\nx\n", text(result)
    assert (area.ws / "plain.txt").read_text() == "p\ny\n"


def test_no_new_hard_link_to_outside(bw, area):
    target = area.outside / "secret.txt"
    target.write_text("outside\n")
    result = bw.run(f"ln '{target}' grabbed.txt && printf 'owned' >> grabbed.txt", "workspace-write")
    assert target.read_text() == "outside\n", text(result)
    assert not (area.ws / "grabbed.txt").exists()
