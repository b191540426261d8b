"""curl and wget: what they download, upload, read and write."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.result import Classified
from cairn.policy.vocab import words

__all__ = ["curl", "wget"]

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


#: curl's options that take a value (curl resolves no abbreviations).
_CURL_SHORT_VALUES = "oKdFTbcDEHuwXAeUxrYyzCmQ"
_CURL_LONG_VALUES = words(
    """--output --config --data --data-binary --data-raw --data-urlencode --data-ascii --form
    --form-string --upload-file --cookie --cookie-jar --dump-header --cert --key --cacert --capath
    --header --user --write-out --request --user-agent --referer --proxy --trace --trace-ascii
    --stderr --json --url --output-dir --netrc-file --variable --max-time --connect-timeout --retry
    --range --quote --time-cond --speed-time --speed-limit --limit-rate --max-filesize --resolve
    --connect-to --interface --dns-servers --unix-socket --abstract-unix-socket"""
)
#: Options whose value is data sent (``@FILE`` reads a file), and the headers/format strings.
_CURL_DATA_OPTIONS = words(
    "-d --data --data-binary --data-urlencode --data-ascii -F --form --json -H --header -w --write-out --variable"
)


def curl(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, _CURL_SHORT_VALUES, _CURL_LONG_VALUES)
    urls = operands + [v for o, v in opts if o == "--url" and v]
    reads: list[str] = []
    writes: list[str] = []
    uploads = False
    for o, v in opts:
        if v is None:
            continue
        if o in _CURL_DATA_OPTIONS:
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
