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


#: Must-refuse cases: every case refused outright, and every case that says what bypass does.
MUST_REFUSE = [
    c for c in CASES if c.kind == "adversarial" and ((c.expect == "deny" and c.mode != "plan") or c.bypass)
]


@pytest.mark.parametrize("case", MUST_REFUSE, ids=[c.id for c in MUST_REFUSE])
def test_must_refuse_cases_do_not_run_in_bypass_mode(
    case: Case, workspace: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bypass mode runs without questions, but not what must be refused: hard-deny, protected
    paths, SSRF, and credential reads (they ask in every mode)."""
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
        mode="bypass",
        rules=rules,
        resolver=_resolver_for(case),
    )
    detail = f"{case.id} in bypass mode: {verdict.decision} ({verdict.reason})"
    assert str(verdict.decision) != "allow", detail
    assert str(verdict.decision) == (case.bypass or "deny"), detail


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
            own = case.source.startswith("cairn issue ")  # cairn's own cases, by class
            assert case.source.startswith("https://") or own, f"{case.id} needs a source"
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
        "eval-builtins",
        "credentials",
    }
    assert wanted <= categories, wanted - categories
