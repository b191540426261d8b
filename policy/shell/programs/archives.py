"""Archives and raw copies: only their listing and printing forms run unasked.

One record per program (see :mod:`cairn.policy.shell.programs.record`); programs that
share an option list (aliases, checksum tools) share one statement of it.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, program
from cairn.policy.vocab import words

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "archive"


def _compressor(name: str, valued: str = "", long_valued: str = "") -> Program:
    """gzip and friends: in place (asks) unless they write to stdout."""
    return program(
        name,
        operands="read",
        asks_valued=valued,
        asks_long_valued=long_valued,
        decodes=name.startswith(("gun", "unx", "bun", "unz", "unlz")),
        decodes_with="-d --decompress --uncompress",
        rules=(
            ("-c --stdout --to-stdout -l --list -t --test no-operands", "read", "low", "writes to stdout"),
            ("always", "write", "medium", "replaces {op} in place", "writes"),
        ),
        allow=(f"{name} < README.md",),
        ask=(f"{name} README.md",),
    )


#: tar's mode decides what the archive (-f) is: read when listed or extracted, written when
#: created; a ``host:file`` archive makes tar run rsh/ssh.
_TAR_RULES = (
    (
        "-f~^[^/]*:&!--force-local --file~^[^/]*:&!--force-local",
        "network",
        "high",
        "-f {opt} names a remote archive (tar runs rsh/ssh for host:file)",
        "network",
    ),
    ("-t --list", "read", "low", "-t only lists an archive", "reads=-f,--file"),
    (
        "-x --extract --get",
        "write",
        "medium",
        "extracts into {out}",
        "reads=-f,--file writes=-C,--directory here",
    ),
    (
        "-c --create -r --append -u --update -A --catenate",
        "write",
        "medium",
        "writes the archive {out}",
        "reads-operands writes=-f,--file",
    ),
    ("always", "general", "medium", "with an unrecognised mode"),
)
_TAR: dict[str, Any] = dict(
    env=("TAR_OPTIONS",),
    bundled_first=True,
    runs_with="""--to-command --use-compress-program -I --checkpoint-action --info-script
    --new-volume-script -F --rsh-command --rmt-command""",
    rules=_TAR_RULES,
    asks_valued="KLNTVXgIF",
    asks_long_valued="""exclude-from files-from group mode owner transform to-command
    use-compress-program rsh-command rmt-command info-script new-volume-script
    checkpoint-action index-file""",
    flags="tvzjJZaOwkpS",
    valued="fCbH",
    long="""auto-compress bzip2 full-time gunzip gzip help list lzma no-wildcards numeric-owner
    to-stdout utc verbose version wildcards xz zstd""",
    long_valued="blocking-factor directory exclude file format strip-components",
)

# fmt: off
RECORDS: tuple[Program, ...] = (
    program("dd", reads_with="if=", writes_with="of=", ask=("dd if=/dev/zero of=src/app.py",),
        rules=(("of=", "write", "medium", "writes {out}", "destructive"), ("always", "read", "low", "copies to stdout")),
        allow=("dd if=README.md count=1",), deny=("dd if=README.md of=/etc/x",)),
    program("tar", **_TAR, allow=("tar -tf src.tar",),
        ask=("tar --to-command=sh -xf src.tar", "tar -xf src.tar"), deny=("tar -xf src.tar -C /",)),
    program("gtar", **_TAR, allow=("gtar -tf src.tar",), ask=("gtar -xf src.tar",)),
    program("bsdtar", **_TAR, allow=("bsdtar -tf src.tar",), ask=("bsdtar -xf src.tar",)),
    program("unzip", operands="read", asks_valued="Pdx", flags="lvtZpc", writes_with="-d",
        rules=(
            ("-l -v -t -Z -p -c", "read", "low", "only lists or prints an archive"),
            ("always", "write", "medium", "extracts into {out}", "here"),
        ),
        allow=("unzip -l src.zip",), ask=("unzip src.zip -d /tmp/x", "unzip src.zip")),
    program("zip", operands="read", asks_valued="bnPtx", asks_long_valued="unzip-command",
        rules=(
            ("-T --unzip-command", "exec", "high", "-TT runs another program"),
            ("always", "write", "medium", "writes {op}", "writes-first"),
        ),
        ask=("zip out.zip README.md", "zip -TT 'sh -c id' out.zip README.md")),
    *(_compressor(n, "S", "suffix") for n in words("gzip gunzip xz unxz")),
    *(_compressor(n) for n in words("bzip2 bunzip2 zstd unzstd lz4")),
)
# fmt: on
