"""Listers: programs that show directories and file metadata.

One record per program (see :mod:`cairn.policy.shell.programs.record`); programs that
share an option list (aliases, checksum tools) share one statement of it.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, program

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "lister"

_LS_OPTIONS: dict[str, Any] = dict(
    flags="aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
    valued="IwT",
    long="""all almost-all author classify color context dereference dereference-command-line
        dereference-command-line-symlink-to-dir directory dired escape file-type full-time
        group-directories-first help hide-control-chars human-readable hyperlink
        ignore-backups inode kibibytes literal no-group numeric-uid-gid quote-name recursive
        reverse show-control-chars si size version zero""",
    long_valued="""block-size format hide ignore indicator-style quoting-style sort tabsize time
        time-style width""",
)

RECORDS: tuple[Program, ...] = (
    program(
        "df",
        operands="list",
        flags="ahHiklPTv",
        valued="tBxF",
        long="""all help human-readable inodes local no-sync output portability print-type si sync
        total version""",
        long_valued="block-size exclude-type type",
        allow=("df -h",),
        ask=("df /etc",),
    ),
    program(
        "dir",
        here=True,
        operands="list",
        **_LS_OPTIONS,
        allow=("dir src",),
        ask=("dir /etc", "dir --cairn-no-such-option src"),
    ),
    program(
        "du",
        reads_with="-X",
        here=True,
        operands="list",
        flags="0abcDhHklLmPsSx",
        valued="dBtX",
        long="""all apparent-size bytes count-links dereference dereference-args help human-readable
        inodes no-dereference null one-file-system separate-dirs si summarize total version""",
        long_valued="block-size exclude exclude-from max-depth threshold time time-style",
        allow=("du -sh src",),
        ask=("du -sh /etc",),
    ),
    program(
        "getfacl",
        operands="list",
        allow=("getfacl src",),
        ask=("getfacl /etc", "getfacl --cairn-no-such-option src"),
    ),
    program(
        "ls",
        here=True,
        operands="list",
        **_LS_OPTIONS,
        allow=("ls -la src", "ls --color src", "ls --color=auto src"),
        ask=("ls --color ..", "ls --col src", "ls /etc"),
    ),
    program(
        "lsattr",
        operands="list",
        allow=("lsattr src",),
        ask=("lsattr /etc", "lsattr --cairn-no-such-option src"),
    ),
    program(
        "lsof",
        operands="list",
        flags="aAbhilnNOPRtUVwXM",
        valued="cdgpuskrDTFEK",
        long="help version",
        allow=("lsof src",),
        ask=("lsof /etc", "lsof --cairn-no-such-option src"),
    ),
    program(
        "namei",
        operands="list",
        allow=("namei src",),
        ask=("namei /etc", "namei --cairn-no-such-option src"),
    ),
    program(
        "ps",
        valued="oOpquUgGCts",
        long_valued="format sort pid ppid user group sid tty",
        notes=("any option runs unasked (ps only shows system state), but BSD e or an environ format asks",),
        allow=("ps aux", "ps -o pid,user"),
        ask=("ps eww", "ps -o pid,environ"),
    ),
    program(
        "readlink",
        operands="list",
        flags="efmnqsvz",
        long="""canonicalize canonicalize-existing canonicalize-missing help no-newline quiet silent
        verbose version zero""",
        allow=("readlink src",),
        ask=("readlink /etc", "readlink --cairn-no-such-option src"),
    ),
    program(
        "realpath",
        operands="list",
        flags="eLmPqsz",
        long="""canonicalize-existing canonicalize-missing help logical no-symlinks physical quiet
        strip version zero""",
        long_valued="relative-base relative-to",
        allow=("realpath src",),
        ask=("realpath /etc", "realpath --cairn-no-such-option src"),
    ),
    program(
        "stat",
        operands="list",
        flags="LftZ",
        valued="c",
        long="cached dereference file-system help terse version",
        long_valued="format printf",
        allow=("stat README.md",),
        ask=("stat /etc/passwd",),
    ),
    program(
        "tree",
        operands="list",
        writes_with="-o",
        here=True,
        says="only lists",
        asks_valued="HTo",
        flags="adlfxpsugDFqNQvtrcUCnAShJXi",
        valued="LPI",
        long="dirsfirst du gitignore help noreport prune si version",
        long_valued="charset filelimit sort timefmt",
        allow=("tree -L 2 src",),
        ask=("tree /etc", "tree -o out.txt src"),
    ),
    program(
        "vdir",
        here=True,
        operands="list",
        **_LS_OPTIONS,
        allow=("vdir src",),
        ask=("vdir /etc", "vdir --cairn-no-such-option src"),
    ),
)
