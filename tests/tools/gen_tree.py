"""A generated source tree full of search edge cases, shared by the grep and glob tests.

Nested .gitignore files (anchored, negated, dir-only, ``**``, whitelist-style),
default-excluded directories, hidden files, binary files (NUL early and late),
CRLF, BOMs, UTF-16, latin-1, empty files, long lines, symlinks.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

ROOT_GITIGNORE = (
    """\
# generated
*.log
!keep.log
/top_only.txt
gen/
sub*/tmp_*
**/cache/
*.bak
data/**
!data/important.txt
docs/*.md
"""
    "trailing.txt   \n"  # trailing spaces are not part of a pattern
)
SRC_GITIGNORE = "*.json\n!/keep.json\n/pkg/b.txt\n"
VENDOR_GITIGNORE = "*\n!*/\n!*.py\n"

DIRS = [
    "", "src", "src/pkg", "src/pkg/gen", "src/cache", "docs", "docs/api", "data", "data/sub", "tests",
    "cache", "sub1", "sub1/tmp_dir", "sub2", ".github/workflows", "node_modules/lib", "build/out",
    "dist", "__pycache__", ".venv/lib", "vendor/keep", "deep/a/b/c",
]  # fmt: skip
NAMES = [
    "a.py", "b.txt", "c.md", "notes.log", "keep.log", "tmp_x.txt", "top_only.txt", "x.bak",
    "important.txt", "README", ".env", "data.json", "keep.json", "mod.pyc", "Upper.PY", "trailing.txt",
]  # fmt: skip
WORDS = [
    "alpha", "beta", "gamma", "def main():", "TODO", "import os", "class Foo:", "foo_bar(1)", "Needle",
    "needle", "x = 1", "return", "café", "tab\tsep", "  indented", "[brackets]", "a.b", "TODO: fix",
]  # fmt: skip


def build_tree(root: Path, seed: int) -> None:
    rng = random.Random(seed)
    for d in DIRS:
        directory = root / d
        directory.mkdir(parents=True, exist_ok=True)
        for name in rng.sample(NAMES, rng.randint(3, 7)):
            lines = [" ".join(rng.sample(WORDS, rng.randint(1, 4))) for _ in range(rng.randint(0, 25))]
            newline = rng.choice(["\n", "\n", "\r\n"])
            text = newline.join(lines) + (newline if lines and rng.random() < 0.8 else "")
            (directory / name).write_bytes(text.encode("utf-8"))
    (root / ".gitignore").write_text(ROOT_GITIGNORE)
    (root / "src/.gitignore").write_text(SRC_GITIGNORE)
    (root / "vendor/.gitignore").write_text(VENDOR_GITIGNORE)
    (root / "data/important.txt").write_text("needle in data\n")
    (root / "vendor/keep/lib.py").write_text("needle = 'vendored'\n")
    (root / "vendor/keep/lib.txt").write_text("needle ignored by whitelist\n")
    specials = {
        "bin/start.bin": b"\x00\x01needle\n",
        "bin/late.txt": b"needle before the nul\n" + b"x" * 70_000 + b"\n\x00 needle after\n",
        "enc/crlf.txt": b"first needle\r\nsecond line\r\nneedle$ end\r\n",
        "enc/bom8.txt": b"\xef\xbb\xbfneedle at start\nplain\n",
        "enc/u16.txt": "needle in utf16\nsecond\n".encode("utf-16"),
        "enc/latin1.txt": "caf\xe9 needle\n".encode("latin-1"),
        "enc/empty.txt": b"",
        "enc/no_newline.txt": b"last needle",
        "enc/long.txt": b"a" * 3000 + b" needle " + b"b" * 3000 + b"\n",
        "src/pkg/mod.py": b"def main():\n    return foo_bar(1)  # TODO\n",
    }
    for rel, data in specials.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    os.symlink("src/pkg/mod.py", root / "link_to_file.py")
    os.symlink("src", root / "link_to_dir")
