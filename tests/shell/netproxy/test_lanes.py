"""The bash tool's side of a grant: which backend gets a lane, what the model is told."""

from __future__ import annotations

from cairn.tools.shell.netproxy import lanes
from cairn.tools.shell.netproxy.proxy import EgressProxy, NetRequest
from cairn.tools.shell.sandbox import SandboxSpec


def _spec(domains: tuple[str, ...]) -> SandboxSpec:
    return SandboxSpec.for_workspace("workspace-write", "/var/tmp", allowed_domains=domains)


def test_no_grant_opens_nothing() -> None:
    opened: list[EgressProxy] = []
    spec, lane, notes = lanes.open_for(_spec(()), lambda: opened.append(EgressProxy()) or opened[-1], "bwrap")
    assert lane is None and notes == [] and opened == [] and spec.proxy_socket is None


def test_landlock_runs_a_grant_without_network_and_says_so() -> None:
    spec, lane, notes = lanes.open_for(_spec(("pypi.org",)), EgressProxy, "landlock")
    assert lane is None and spec is not None and spec.allowed_domains == ()
    assert "cannot limit network by domain" in notes[0] and "pypi.org" in notes[0]


def test_bwrap_gets_a_lane_whose_socket_the_spec_carries() -> None:
    proxy = EgressProxy()
    try:
        spec, lane, _notes = lanes.open_for(_spec(("pypi.org",)), lambda: proxy, "bwrap")
        assert lane is not None and spec is not None and spec.proxy_socket == lane.socket_path
        assert "network to pypi.org only" in spec.describe()
        lane.log.append(NetRequest("CONNECT", "evil.example", 443, reason="not granted"))
        lane.log.append(NetRequest("CONNECT", "evil.example", 443, reason="not granted"))
        (note,) = lanes.lane_notes(lane)  # one note per refused host
        assert "refused evil.example:443" in note and "domain:evil.example" in note
        assert lanes.lane_log(lane)[0]["host"] == "evil.example"
    finally:
        proxy.close()
