"""Listers: programs that show directories and file metadata.

One record per program (see :mod:`cairn.policy.shell.programs.record`); programs that
share an option list (aliases, checksum tools) share one statement of it.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, plain, program

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


def _lister(name: str, **kw: Any) -> Program:
    return plain(name, operands="list", inside="src", outside="/etc", **kw)


# fmt: off
RECORDS: tuple[Program, ...] = (
    _lister("df", flags="ahHiklPTv", valued="tBxF",
        long="""all help human-readable inodes local no-sync output portability print-type si sync
        total version""",
        long_valued="block-size exclude-type type", allow=("df -h",), ask=("df /etc",)),
    _lister("dir", here=True, **_LS_OPTIONS),
    _lister("du", reads_with="-X", here=True, flags="0abcDhHklLmPsSx", valued="dBtX",
        long="""all apparent-size bytes count-links dereference dereference-args help human-readable
        inodes no-dereference null one-file-system separate-dirs si summarize total version""",
        long_valued="block-size exclude exclude-from max-depth threshold time time-style",
        allow=("du -sh src",), ask=("du -sh /etc",)),
    _lister("getfacl"),
    _lister("ls", here=True, **_LS_OPTIONS, allow=("ls -la src", "ls --color src", "ls --color=auto src"),
        ask=("ls --color ..", "ls --col src", "ls /etc")),
    _lister("lsattr"),
    _lister("lsof", flags="aAbhilnNOPRtUVwXM", valued="cdgpuskrDTFEK", long="help version"),
    _lister("namei"),
    program("ps", valued="oOpquUgGCts", long_valued="format sort pid ppid user group sid tty", rules=(
            ("~(?i)environ ~^[A-Za-z]*e[A-Za-z]*$ -o~(?i)environ -O~(?i)environ --format~(?i)environ",
                "general", "medium",
                "with e or environ prints every process's environment (API keys)"),
            ("always", "list", "low", "only shows system state")),
        notes=("any option runs unasked (ps only shows system state), but BSD e or an environ format asks",),
        allow=("ps aux", "ps -o pid,user"), ask=("ps eww", "ps -o pid,environ")),
    _lister("readlink", flags="efmnqsvz",
        long="""canonicalize canonicalize-existing canonicalize-missing help no-newline quiet silent
        verbose version zero"""),
    _lister("realpath", flags="eLmPqsz",
        long="""canonicalize-existing canonicalize-missing help logical no-symlinks physical quiet
        strip version zero""",
        long_valued="relative-base relative-to"),
    _lister("stat", flags="LftZ", valued="c", long="cached dereference file-system help terse version",
        long_valued="format printf", allow=("stat README.md",), ask=("stat /etc/passwd",)),
    _lister("tree", writes_with="-o", here=True, says="only lists", asks_valued="HTo",
        flags="adlfxpsugDFqNQvtrcUCnAShJXi", valued="LPI",
        long="dirsfirst du gitignore help noreport prune si version",
        long_valued="charset filelimit sort timefmt", allow=("tree -L 2 src",),
        ask=("tree /etc", "tree -o out.txt src")),
    _lister("vdir", here=True, **_LS_OPTIONS),
)
# fmt: on
