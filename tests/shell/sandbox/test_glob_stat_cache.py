"""glob's stat cache sees what sandboxed commands change: the sandbox mounts the same files
(same inodes), so inotify reports their writes like any other."""

from __future__ import annotations

import os

from cairn.tools.file_ops.glob import GlobTool

T0 = 1_700_000_000


def test_a_sandboxed_write_is_seen_by_the_next_glob(sandboxed, area):
    for i, name in enumerate(("a.py", "b.py")):
        (area.ws / name).write_text("x")
        os.utime(area.ws / name, (T0 + i, T0 + i))
    glob = GlobTool(sandboxed.bash.workspace, sandboxed.services)

    def rows() -> list[str]:
        out = glob.execute({"pattern": "**/*.py"}).output.splitlines()[1:]
        assert sandboxed.services.stat_cache.settle(timeout=30)
        return out

    assert rows() == ["b.py  (1 B)", "a.py  (1 B)"]
    assert sandboxed.services.stat_cache.remembered == 2
    result = sandboxed.run(f"printf grown >> a.py && touch -d @{T0 + 9} a.py", "workspace-write")
    assert result.ok, result.error
    assert rows() == ["a.py  (6 B)", "b.py  (1 B)"]
