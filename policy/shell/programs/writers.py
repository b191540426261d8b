"""Writers: programs that create, change or delete the files they are given (they always ask).

Their records state which options take a value (so an option never swallows the file after it:
``rm --interactive /`` names ``/``) and what the generic judge or their handler writes; no
option of theirs runs without a person.
"""

from __future__ import annotations

from cairn.policy.shell.programs.record import Program, program

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "write"

#: split and csplit write pieces named PREFIX* (their second operand; csplit also -f; default x, xx).
_PIECES = ("always", "write", "medium", "writes pieces named {out}*", "writes-second")
_CP = "target-directory suffix no-preserve sparse"
#: rm and unlink delete what they name; -r makes every operand a critical target (``rm -r ~``).
_RM = dict(
    operands="write",
    says="deletes",
    destructive=True,
    critical_with="-r -R --recursive",
    rules=(
        (
            "--no-preserve-root",
            "write",
            "medium",
            "--no-preserve-root can delete the whole filesystem",
            "deny",
        ),
        ("no-operands", "write", "medium", "deletes nothing"),
    ),
)
#: The first operand is the mode or owner (unless --reference, or chmod's -x mode, names it).
_OWNER = dict(
    operands="write",
    asks_long_valued="from reference",
    pattern_with="--reference",
    critical_with="-R --recursive",
    rules=(("always", "write", "medium", "changes {ops}", "critical"),),
)
#: chmod -R 777 DIR, a+rwx, o+w: everyone may then change every file under DIR.
_EVERYONE = r"~(^|[ugoa]*[=+])[0-7]*7{2}|a\+rwx|o\+w"
_COPY = dict(operands="copy", target_with="-t --target-directory")
_LINK = (
    "always",
    "write",
    "medium",
    "makes a hard link to {op} (the same file, writable by the new name)",
    "writes-sources",
)


def _simple(name: str, says: str, valued: str = "", long_valued: str = "", **kw: bool) -> Program:
    """A program that writes its file operands, judged from this record alone."""
    return program(
        name,
        operands="write",
        says=says,
        asks_valued=valued,
        asks_long_valued=long_valued,
        reads_with="-r --reference",
        ask=(f"{name} src/x",),
        deny=(f"{name} /etc/x",),
        **kw,
    )


# fmt: off
RECORDS: tuple[Program, ...] = (
    program("chgrp", **_OWNER, ask=("chgrp staff src/x",)),
    program("chmod", **{**_OWNER, "pattern_with": "--reference -r -w -x -X -s -t", "rules": (
            (f"-R&{_EVERYONE}&!--reference --recursive&{_EVERYONE}&!--reference", "write", "high",
                "lets everyone change {ops}", "critical"),
            *_OWNER["rules"])},
        ask=("chmod +x src/x", "chmod -R 777 src"), deny=("chmod -R 777 /",)),
    program("chown", **_OWNER, ask=("chown me src/x",), deny=("chown -R me ~",)),
    program("cp", **_COPY, says="writes", edits=True, asks_valued="tS", asks_long_valued=_CP,
        rules=(("-l --link", *_LINK[1:]),), ask=("cp a b", "cp -l README.md x"), deny=("cp -l .git/config x",)),
    program("csplit", operands="read", asks_valued="bfn", asks_long_valued="prefix suffix-format digits",
        writes_with="-f --prefix", default_file="xx", rules=(_PIECES,),
        ask=("csplit README.md 2",), deny=("csplit -f /etc/x README.md 2",)),
    _simple("fallocate", "changes", "lo", "length offset"),
    program("install", **_COPY, says="copies files to", asks_valued="tSmog",
        asks_long_valued=_CP + " mode owner group strip-program", ask=("install a b",)),
    program("husky", "vcs", options_by_handler=True,
        rules=(("always", "general", "high", "changes git hooks (they run on every commit)"),),
        ask=("husky install",)),
    program("link", operands="write", says="makes a hard link", ask=("link a b",),
        deny=("link /etc/passwd x",)),
    program("ln", **_COPY, asks_valued="tS", asks_long_valued="target-directory suffix", rules=(
            ("-s --symbolic", "write", "medium", "creates the link {out}", "symlink"), _LINK),
        ask=("ln -s a b", "ln -s src/app.py"), deny=("ln README.md .git/hooks/x", "ln -s /x/.git")),
    _simple("mkdir", "changes", "m", "mode", edits=True),
    _simple("mkfifo", "changes", "m", "mode"),
    program("mv", **_COPY, asks_valued="tS", asks_long_valued="target-directory suffix",
        rules=(("always", "write", "medium", "moves {ops}", "writes-sources critical edits"),),
        ask=("mv a b",), deny=("mv ~ x",)),
    program("patch", operands="read", asks_valued="pdioBDFrVYz",
        asks_long_valued="directory input output reject-file strip prefix", reads_with="-i --input",
        writes_with="-o --output",
        rules=(("always", "write", "medium", "changes the files named in the patch", "writes-first here"),),
        ask=("patch -p1 -i x.diff", "patch src/app.py x.diff"), deny=("patch /etc/passwd x.diff",)),
    program("rm", **_RM, ask=("rm src/x", "rm"), deny=("rm -rf /", "rm /", "rm -f /etc/x", "rm -r --no-preserve-root x")),
    program("rmdir", operands="write", edits=True, rules=(_RM["rules"][0],
            ("always", "write", "medium", "removes empty directories {ops}", "critical edits"),),
        ask=("rmdir src",), deny=("rmdir ~",)),
    _simple("shred", "destroys", "ns", "iterations size random-source", destructive=True),
    program("split", operands="read", asks_valued="abCdlnt",
        asks_long_valued="additional-suffix bytes line-bytes lines number", default_file="x", rules=(_PIECES,),
        ask=("split README.md part", "split README.md"), deny=("split README.md /etc/x",)),
    _simple("tee", "writes", edits=True),
    _simple("touch", "changes", "dtr", "date reference", edits=True),
    _simple("truncate", "changes", "sro", "size reference", destructive=True),
    program("unlink", **_RM, ask=("unlink src/x",), deny=("unlink /",)),
)
# fmt: on
