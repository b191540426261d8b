import os

from cairn.tools.workspace import Workspace


def test_relative_and_dotdot(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    ws = Workspace(root)
    assert ws.resolve("src/a.py").inside
    assert ws.resolve("src/../a.py").inside
    assert not ws.resolve("../outside.txt").inside
    assert not ws.resolve("src/../../x").inside
    assert ws.resolve(".").path == ws.root


def test_sibling_prefix_is_not_inside(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo-evil").mkdir()
    ws = Workspace(tmp_path / "repo")
    assert not ws.resolve(str(tmp_path / "repo-evil" / "x")).inside
    assert not ws.contains(tmp_path / "repo-evil")


def test_symlinked_file_and_parent_escape(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key").write_text("k")
    os.symlink(secret / "key", root / "link-file")
    os.symlink(secret, root / "link-dir")
    ws = Workspace(root)
    assert not ws.resolve("link-file").inside
    assert not ws.resolve("link-dir/key").inside
    assert not ws.resolve("link-dir/new-file").inside
    assert ws.resolve("link-dir/key").path == secret / "key"


def test_home_and_absolute(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    root = tmp_path / "repo"
    root.mkdir()
    ws = Workspace(root)
    assert ws.resolve("~/repo/x").inside
    assert not ws.resolve("~/.ssh/id_rsa").inside
    assert not ws.resolve("/etc/passwd").inside
    assert ws.resolve(str(root / "y")).inside


def test_workspace_root_given_through_symlink(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "alias")
    ws = Workspace(tmp_path / "alias")
    assert ws.root == real
    assert ws.resolve(str(tmp_path / "alias" / "f")).inside
