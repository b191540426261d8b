"""Dump every corpus case's verdict as JSON, to compare the classifier before and after a change.

    .venv/bin/python -m tests.policy.corpus_dump > before.json
    (change the policy)
    .venv/bin/python -m tests.policy.corpus_dump > after.json
    .venv/bin/python -m tests.policy.corpus_dump --diff before.json after.json

Commands are data handed to ``policy.evaluate``; nothing here runs a shell.  Each case gets a
fresh workspace and fake home under a temporary directory, as in ``test_corpus.py``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from cairn.policy import Rules, evaluate
from tests.policy.corpus_loader import Case, fill, load_cases, prepare


def verdict_of(case: Case, base: Path) -> dict[str, str]:
    ws, home = base / "ws", base / "home"
    ws.mkdir()
    home.mkdir()
    os.environ["HOME"] = str(home)
    prepare(case, ws, home)
    rules = Rules(**fill(case.rules, ws, home)) if case.rules else None
    verdict = evaluate(
        case.tool,
        fill(case.args, ws, home),
        workspace=ws,
        mode=case.mode,
        rules=rules,
        resolver=lambda host: list(case.dns.get(host, [])),
    )
    reason = verdict.reason.replace(str(ws), "{ws}").replace(str(home), "{home}")
    return {"decision": str(verdict.decision), "reason": reason}


def dump() -> dict[str, dict[str, str]]:
    saved = os.environ.get("HOME")
    out: dict[str, dict[str, str]] = {}
    try:
        for case in load_cases():
            with tempfile.TemporaryDirectory() as tmp:
                out[case.id] = verdict_of(case, Path(tmp))
    finally:
        if saved is not None:
            os.environ["HOME"] = saved
    return out


def diff(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    lines = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old is None:
            lines.append(f"+ {key}: {new['decision']}  ({new['reason']})")  # type: ignore[index]
        elif new is None:
            lines.append(f"- {key}")
        elif old["decision"] != new["decision"]:
            lines.append(f"~ {key}: {old['decision']} -> {new['decision']}  ({new['reason']})")
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["--diff"]:
        a, b = (json.loads(Path(p).read_text()) for p in sys.argv[2:4])
        print("\n".join(diff(a, b)))
    else:
        json.dump(dump(), sys.stdout, indent=1, sort_keys=True)
