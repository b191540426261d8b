"""The guarantees a sandbox can give, by name.

One vocabulary for three readers: a backend lists the ones it lacks on this machine
(``missing_guarantees``), the policy asks a person instead of running unattended in a profile
whose guarantee is missing, and ``cairn sandbox check`` probes each one and prints the table.
"""

from __future__ import annotations

#: name -> what holds when the guarantee is enforced (the row of ``cairn sandbox check``).
GUARANTEES: dict[str, str] = {
    "write-outside": "no write outside the workspace",
    "protected-absent": "a protected name that does not exist cannot be created",
    "protected-present": "a protected file cannot be changed",
    "hard-link": "no write through a hard link to a file outside the workspace",
    "home-secret": "files in HOME outside the allowlist are unreadable",
    "workspace-env": "the workspace's credential files (.env) are unreadable",
    "unix-socket-home": "no connection to a Unix socket in HOME",
    "abstract-socket": "no connection to an abstract Unix socket outside",
    "tcp-localhost": "no TCP connection to the host's 127.0.0.1",
    "udp-localhost": "no UDP datagram to the host's 127.0.0.1",
    "process-bound": "the number of processes is bounded",
    "survivor": "no process outlives the command",
    "agent-environ": "the agent's environment (API keys) is unreadable",
}

#: Guarantees about writing: they matter only in a profile where something is writable.
WRITE_GUARANTEES = frozenset({"protected-absent", "protected-present", "hard-link"})


def relevant(name: str, profile: str) -> bool:
    """Whether guarantee ``name`` matters for a command in ``profile``."""
    if profile == "off":
        return False
    return profile == "workspace-write" or name not in WRITE_GUARANTEES
