"""curl and wget: what they download, upload, read and write."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.programs import known
from cairn.policy.shell.result import Classified
from cairn.policy.shell.safeflags import value_options
from cairn.policy.vocab import words

__all__ = ["curl", "wget"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def _c(category: str, risk: RiskLevel, reason: str, **kw: object) -> Classified:
    return Classified(category=category, risk=risk, reason=reason, network=True, **kw)  # type: ignore[arg-type]


def _url_basename(url: str) -> str:
    try:
        path = urlsplit(url).path
    except ValueError:
        return ""
    return path.rstrip("/").rsplit("/", 1)[-1] or "index.html"


#: Options whose value is data sent (``@FILE`` reads a file), and the headers/format strings.
_CURL_DATA_OPTIONS = words(
    "-d --data --data-binary --data-urlencode --data-ascii -F --form --json -H --header -w --write-out --variable"
)


def curl(name: str, args: list[str]) -> Classified:
    rec = known(name)
    opts, operands = split_args(args, *value_options(name))
    urls = operands + [v for o, v in opts if o == "--url" and v]
    reads: list[str] = []
    writes: list[str] = []
    uploads = False
    for o, v in opts:
        if v is None:
            continue
        if o in _CURL_DATA_OPTIONS:
            uploads = uploads or o not in ("-H", "--header", "-w", "--write-out")
            m = re.match(r"^(?:[^=@<]*=)?[@<]([^;]+)", v)  # @file, name=@file, name=<file
            if m and m.group(1) != "-":
                reads.append(m.group(1))
        elif o in ("-T", "--upload-file"):
            uploads = True
            reads.append(v)
        elif o in rec.runs_with:
            return _c(
                "network",
                HIGH,
                f"curl -K reads its options from {v} (they can write or upload anything)",
                reads=[v],
            )
        elif o in rec.reads_with and "=" not in v:
            reads.append(v)
        elif o in rec.writes_with and v != "-":
            writes.append(v)
    remote_names = any(o in ("-O", "--remote-name", "--remote-name-all", "-J") for o, _ in opts)
    named = [_url_basename(u) for u in urls] if remote_names else []  # -O: the URL's file name
    for url in urls:
        if url.lower().startswith("file:"):
            reads.append(urlsplit(url).path or "/")
    outputs = [v for o, v in opts if o in ("-o", "--output") and v and v != "-"]
    downloaded = outputs + named
    what = "uploads data to" if uploads else "downloads from"
    return _c(
        "network",
        HIGH,
        f"curl {what} {urls[0] if urls else 'the network'}",
        reads=reads,
        writes=writes + named,
        download_stdout=not downloaded,
        download_files=downloaded,
    )


def wget(name: str, args: list[str]) -> Classified:
    rec = known(name)
    opts, operands = split_args(args, *value_options(name))
    for o, v in opts:
        if o in rec.runs_with:
            return _c("network", HIGH, f"wget {o} runs wgetrc commands ({v})")
    reads = [v for o, v in opts if v and o in rec.reads_with]
    out = next((v for o, v in opts if o in ("-O", "--output-document") and v), None)
    prefix = next((v for o, v in opts if o in ("-P", "--directory-prefix") and v), None)
    writes = [v for o, v in opts if v and o in rec.writes_with]
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
