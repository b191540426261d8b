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
_RM = dict(handler="writecmds.rm")
_OWNER = dict(asks_long_valued="from reference", handler="writecmds.chmod_chown")


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
    program("chmod", **_OWNER, ask=("chmod +x src/x",), deny=("chmod -R 777 /",)),
    program("chown", **_OWNER, ask=("chown me src/x",)),
    program("cp", asks_valued="tS", asks_long_valued=_CP, handler="writecmds.copy_move", ask=("cp a b",)),
    program("csplit", operands="read", asks_valued="bfn", asks_long_valued="prefix suffix-format digits",
        writes_with="-f --prefix", default_file="xx", rules=(_PIECES,),
        ask=("csplit README.md 2",), deny=("csplit -f /etc/x README.md 2",)),
    _simple("fallocate", "changes", "lo", "length offset"),
    program("install", asks_valued="tSmog", asks_long_valued=_CP + " mode owner group strip-program",
        handler="writecmds.copy_move", ask=("install a b",)),
    program("husky", "vcs", options_by_handler=True,
        rules=(("always", "general", "high", "changes git hooks (they run on every commit)"),),
        ask=("husky install",)),
    program("link", operands="write", says="makes a hard link", ask=("link a b",),
        deny=("link /etc/passwd x",)),
    program("ln", asks_valued="tS", asks_long_valued="target-directory suffix", handler="writecmds.copy_move",
        ask=("ln -s a b",)),
    _simple("mkdir", "changes", "m", "mode", edits=True),
    _simple("mkfifo", "changes", "m", "mode"),
    program("mv", asks_valued="tS", asks_long_valued="target-directory suffix", handler="writecmds.copy_move",
        ask=("mv a b",)),
    program("patch", operands="read", asks_valued="pdioBDFrVYz",
        asks_long_valued="directory input output reject-file strip prefix", reads_with="-i --input",
        writes_with="-o --output",
        rules=(("always", "write", "medium", "changes the files named in the patch", "writes-first here"),),
        ask=("patch -p1 -i x.diff", "patch src/app.py x.diff"), deny=("patch /etc/passwd x.diff",)),
    program("rm", **_RM, ask=("rm src/x",), deny=("rm -rf /",)),
    program("rmdir", **_RM, ask=("rmdir src",)),
    _simple("shred", "destroys", "ns", "iterations size random-source", destructive=True),
    program("split", operands="read", asks_valued="abCdlnt",
        asks_long_valued="additional-suffix bytes line-bytes lines number", default_file="x", rules=(_PIECES,),
        ask=("split README.md part", "split README.md"), deny=("split README.md /etc/x",)),
    _simple("tee", "writes", edits=True),
    _simple("touch", "changes", "dtr", "date reference", edits=True),
    _simple("truncate", "changes", "sro", "size reference", destructive=True),
    program("unlink", **_RM, ask=("unlink src/x",)),
)
# fmt: on
