"""Every corpus case runs: publicly reported bypasses must never be allowed, and everyday
commands must stay allowed (no ask, no deny)."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from cairn.policy import Rules, evaluate
from tests.policy.corpus_loader import Case, fill, load_cases, prepare

CASES = load_cases()


def _resolver_for(case: Case):
    def resolve(host: str) -> list[str]:
        return list(case.dns.get(host, []))

    return resolve


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case, workspace: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    ws = Path(workspace)
    prepare(case, ws, home)
    rules = Rules(**fill(case.rules, ws, home)) if case.rules else None
    verdict = evaluate(
        case.tool,
        fill(case.args, ws, home),
        workspace=ws,
        mode=case.mode,
        rules=rules,
        resolver=_resolver_for(case),
    )
    detail = f"{case.id}: {verdict.decision} ({verdict.reason}) [{verdict.rule}]"
    assert str(verdict.decision) == case.expect, detail
    if case.kind == "adversarial":
        assert str(verdict.decision) != "allow", detail
    if case.reason:
        assert case.reason in verdict.reason, detail


def test_corpus_size_and_shape() -> None:
    kinds = collections.Counter(c.kind for c in CASES)
    assert kinds["adversarial"] >= 150
    assert kinds["benign"] >= 40
    assert set(kinds) == {"adversarial", "benign"}
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), [i for i, n in collections.Counter(ids).items() if n > 1]
    for case in CASES:
        assert case.expect in ("allow", "ask", "deny"), case.id
        if case.kind == "adversarial":
            assert case.source.startswith("https://"), f"{case.id} needs a public source"
            assert case.expect != "allow", case.id
        else:
            assert case.expect == "allow", case.id


def test_corpus_covers_every_category_the_issue_names() -> None:
    categories = {c.category for c in CASES if c.kind == "adversarial"}
    wanted = {
        "chaining",
        "substitution",
        "obfuscation",
        "wrappers",
        "git",
        "env",
        "rc-files",
        "exfiltration",
        "traversal",
        "symlink",
        "ssrf",
        "hard-deny",
        "fail-closed",
        "read-only-flags",
        "arithmetic",
    }
    assert wanted <= categories, wanted - categories
