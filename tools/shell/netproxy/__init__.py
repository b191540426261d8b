"""Network for sandboxed commands, by domain: an egress proxy cairn owns.

A sandboxed command has no network interface but its own loopback.  When its verdict grants
domains, :mod:`.bridge` listens on the sandbox's ``127.0.0.1`` and relays each connection over a
Unix socket bound into the sandbox to this process's :class:`EgressProxy`, which checks the
host against the grant, resolves it itself, refuses non-public addresses and connects to the
address it checked.  See docs/shell.md, "Network by domain".

Modules: :mod:`.proxy` (the proxy and its lanes), :mod:`.domains` (grants), :mod:`.bridge`
(runs inside the sandbox), :mod:`.launch` (how a backend starts it), :mod:`.lanes` (the bash
tool's side).  Nothing is imported here: a session without network grants pays nothing.
"""
