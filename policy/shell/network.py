"""Handlers for commands that talk to the network (downloads, uploads, remote shells)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from policy.levels import RiskLevel
from policy.shell.options import split_args
from policy.shell.result import Classified

__all__ = ["HANDLERS"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def _c(category: str, risk: RiskLevel, reason: str, **kw: object) -> Classified:
    return Classified(category=category, risk=risk, reason=reason, network=True, **kw)  # type: ignore[arg-type]


def _upload_file(value: str) -> str | None:
    """The file an upload value names: ``@file``, ``name=@file``, ``name=<file``."""
    m = re.match(r"^(?:[^=@<]*=)?[@<]([^;]+)", value)
    return m.group(1) if m and m.group(1) != "-" else None


def _url_basename(url: str) -> str:
    try:
        path = urlsplit(url).path
    except ValueError:
        return ""
    return path.rstrip("/").rsplit("/", 1)[-1] or "index.html"


_OUTPUT_OPTIONS = (
    "-o",
    "--output",
    "-c",
    "--cookie-jar",
    "-D",
    "--dump-header",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--output-dir",
)


def curl(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args,
        "oKdFTbcDEHuwXAeUxrYyzCmQ",
        (
            "--output",
            "--config",
            "--data",
            "--data-binary",
            "--data-raw",
            "--data-urlencode",
            "--data-ascii",
            "--form",
            "--form-string",
            "--upload-file",
            "--cookie",
            "--cookie-jar",
            "--dump-header",
            "--cert",
            "--key",
            "--cacert",
            "--capath",
            "--header",
            "--user",
            "--write-out",
            "--request",
            "--user-agent",
            "--referer",
            "--proxy",
            "--trace",
            "--trace-ascii",
            "--stderr",
            "--json",
            "--url",
            "--output-dir",
            "--netrc-file",
            "--variable",
            "--max-time",
            "--connect-timeout",
            "--retry",
            "--range",
            "--quote",
            "--time-cond",
            "--speed-time",
            "--speed-limit",
            "--limit-rate",
            "--max-filesize",
            "--resolve",
            "--connect-to",
            "--interface",
            "--dns-servers",
            "--unix-socket",
            "--abstract-unix-socket",
        ),
    )
    urls = operands + [v for o, v in opts if o == "--url" and v]
    reads: list[str] = []
    writes: list[str] = []
    uploads = False
    for o, v in opts:
        if v is None:
            continue
        if o in (
            "-d",
            "--data",
            "--data-binary",
            "--data-urlencode",
            "--data-ascii",
            "-F",
            "--form",
            "--json",
            "-H",
            "--header",
            "-w",
            "--write-out",
            "--variable",
        ):
            uploads = uploads or o not in ("-H", "--header", "-w", "--write-out")
            path = _upload_file(v)
            if path:
                reads.append(path)
        elif o in ("-T", "--upload-file"):
            uploads = True
            reads.append(v)
        elif o in ("-K", "--config"):
            return _c(
                "network",
                HIGH,
                f"curl -K reads its options from {v} (they can write or upload anything)",
                reads=[v],
            )
        elif o in ("-E", "--cert", "--key", "--cacert", "--netrc-file", "-b", "--cookie") and "=" not in v:
            reads.append(v)
        elif o in _OUTPUT_OPTIONS and v != "-":
            writes.append(v)
    remote_names = any(o in ("-O", "--remote-name", "--remote-name-all", "-J") for o, _ in opts)
    if remote_names:
        writes.extend(_url_basename(u) for u in urls)
    for url in urls:
        if url.lower().startswith("file:"):
            reads.append(urlsplit(url).path or "/")
    outputs = [v for o, v in opts if o in ("-o", "--output") and v and v != "-"]
    downloaded = outputs + ([_url_basename(u) for u in urls] if remote_names else [])
    what = "uploads data to" if uploads else "downloads from"
    return _c(
        "network",
        HIGH,
        f"curl {what} {urls[0] if urls else 'the network'}",
        reads=reads,
        writes=writes,
        download_stdout=not downloaded,
        download_files=downloaded,
    )


def wget(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args,
        "OoaPiUeTtwQBDlI",
        (
            "--output-document",
            "--output-file",
            "--append-output",
            "--directory-prefix",
            "--input-file",
            "--user-agent",
            "--execute",
            "--timeout",
            "--tries",
            "--wait",
            "--quota",
            "--base",
            "--domains",
            "--post-data",
            "--post-file",
            "--body-file",
            "--body-data",
            "--header",
            "--config",
            "--user",
            "--password",
            "--load-cookies",
            "--save-cookies",
            "--method",
            "--level",
            "--include-directories",
        ),
    )
    for o, v in opts:
        if o in ("-e", "--execute", "--config"):
            return _c("network", HIGH, f"wget {o} runs wgetrc commands ({v})")
    reads = [
        v
        for o, v in opts
        if v and o in ("-i", "--input-file", "--post-file", "--body-file", "--load-cookies")
    ]
    out = next((v for o, v in opts if o in ("-O", "--output-document") and v), None)
    prefix = next((v for o, v in opts if o in ("-P", "--directory-prefix") and v), None)
    writes = [
        v for o, v in opts if v and o in ("-o", "--output-file", "-a", "--append-output", "--save-cookies")
    ]
    if out == "-":
        return _c(
            "network",
            HIGH,
            f"wget downloads {operands[0] if operands else ''} to stdout".strip(),
            reads=reads,
            writes=writes,
            download_stdout=True,
        )
    files = (
        [out] if out else [(prefix.rstrip("/") + "/" if prefix else "") + _url_basename(u) for u in operands]
    )
    uploads = any(o in ("--post-data", "--post-file", "--body-file", "--body-data") for o, _ in opts)
    what = "uploads data to" if uploads else "downloads"
    return _c(
        "network",
        HIGH,
        f"wget {what} {operands[0] if operands else ''}".strip(),
        reads=reads,
        writes=writes + files,
        download_files=files,
    )


def netcat(name: str, args: list[str]) -> Classified:
    for arg in args:
        if arg in ("-e", "-c", "--exec", "--sh-exec", "--lua-exec") or re.fullmatch(r"-[a-zA-Z]*[ec]", arg):
            return _c(
                "network",
                HIGH,
                f"{name} {arg} connects a program to the network (reverse shell)",
                reverse_shell=True,
                hard_deny=[f"{name} {arg} hands a shell to the network (reverse shell)"],
            )
    listen = any(re.fullmatch(r"-[a-zA-Z]*l[a-zA-Z]*", a) or a == "--listen" for a in args)
    return _c(
        "network",
        HIGH,
        f"{name} {'listens for' if listen else 'opens'} a raw network connection",
        download_stdout=True,
    )


def socat(name: str, args: list[str]) -> Classified:
    lowered = [a.lower() for a in args]
    if any(a.startswith(("exec:", "system:")) for a in lowered) and any(
        a.startswith(("tcp", "udp", "ssl", "openssl", "sctp")) for a in lowered
    ):
        return _c(
            "network",
            HIGH,
            "socat connects a program to the network (reverse shell)",
            reverse_shell=True,
            hard_deny=["socat EXEC/SYSTEM with a network address is a reverse shell"],
        )
    return _c("network", HIGH, "socat relays data over the network", download_stdout=True)


def ssh(name: str, args: list[str]) -> Classified:
    return _c("network", HIGH, f"{name} connects to another machine (and can run commands there)")


def copy_remote(name: str, args: list[str]) -> Classified:
    if name == "rsync" and any(
        a in ("-e", "--rsh") or a.startswith(("--rsh=", "--rsync-path")) for a in args
    ):
        return _c("network", HIGH, "rsync -e runs another program as its transport")
    opts, operands = split_args(
        args,
        "eiPoFSlJ" if name == "scp" else "eTBf",
        (
            "--exclude",
            "--include",
            "--exclude-from",
            "--include-from",
            "--files-from",
            "--filter",
            "--log-file",
            "--backup-dir",
            "--temp-dir",
            "--partial-dir",
            "--chmod",
        ),
    )
    remote = [o for o in operands if re.match(r"^[^/]*:", o) or o.startswith("rsync://")]
    local = [o for o in operands if o not in remote]
    if not remote:
        sources, dests = operands[:-1], operands[-1:]
        result = _c("write", MEDIUM, f"{name} copies files to {' '.join(dests)}", reads=sources, writes=dests)
        result.network = False
    elif operands and operands[-1] in remote:
        result = _c("network", HIGH, f"{name} sends {' '.join(local)} to {operands[-1]}", reads=local)
    else:
        result = _c(
            "network", HIGH, f"{name} downloads into {' '.join(local)}", writes=local, download_files=local
        )
    if any(
        o in ("--delete", "--delete-before", "--delete-after", "--delete-during", "--remove-source-files")
        for o, _ in opts
    ):
        result.destructive = True
        result.critical.extend((d, f"{name} --delete") for d in local[-1:])
    return result


def openssl(name: str, args: list[str]) -> Classified:
    sub = args[0] if args else ""
    if sub in ("s_client", "s_server", "ocsp") or any(a == "-connect" for a in args):
        return _c("network", HIGH, f"openssl {sub} opens a network connection", download_stdout=True)
    reads = [args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-in", "-inkey", "-key", "-CAfile")]
    writes = [args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-out", "-keyout")]
    decode = sub in ("base64", "enc") and ("-d" in args or ("-base64" in args and "-d" in args))
    result = _c(
        "read",
        LOW if not writes else MEDIUM,
        f"openssl {sub} works on local data",
        reads=reads,
        writes=writes,
        decoder=decode or (sub == "enc" and "-d" in args),
    )
    result.network = False
    if writes:
        result.category = "write"
    return result


HANDLERS = {
    "curl": curl,
    "wget": wget,
    "wget2": wget,
    "nc": netcat,
    "ncat": netcat,
    "netcat": netcat,
    "socat": socat,
    "ssh": ssh,
    "sftp": ssh,
    "telnet": ssh,
    "ftp": ssh,
    "mosh": ssh,
    "scp": copy_remote,
    "rsync": copy_remote,
    "openssl": openssl,
}
