"""Domain names and grants: ``pypi.org`` grants that host, ``*.pythonhosted.org`` its subdomains.

One matcher for every place a domain is granted (the proxy, the policy's ``domain:`` rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["domain_granted", "normalize_domain", "normalize_domains"]

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def normalize_domain(text: str) -> str:
    """``text`` as a lowercase ASCII host name or ``*.`` pattern; raises ``ValueError``.

    Addresses are not domains: a grant names hosts, so a command cannot be granted "any host
    at 10.0.0.1" by writing it as a domain.
    """
    if not isinstance(text, str):
        raise ValueError(f"a domain must be a string, got {type(text).__name__}")
    name = text.strip().lower().rstrip(".")
    wildcard = name.startswith("*.")
    if wildcard:
        name = name[2:]
    try:
        name = name.encode("idna").decode("ascii") if not name.isascii() else name
    except UnicodeError as exc:
        raise ValueError(f"{text!r} is not a valid domain name ({exc})") from None
    labels = name.split(".")
    if not name or not all(_LABEL.match(label) for label in labels):
        raise ValueError(f"{text!r} is not a domain name (e.g. pypi.org or *.pythonhosted.org)")
    if all(label.isdigit() for label in labels) or labels[-1].isdigit():
        raise ValueError(f"{text!r} is an address, not a domain name; network is granted by domain")
    return f"*.{name}" if wildcard else name


def normalize_domains(texts: Iterable[str]) -> tuple[str, ...]:
    """Each of ``texts`` normalized, duplicates dropped, order kept; raises ``ValueError``."""
    return tuple(dict.fromkeys(normalize_domain(t) for t in texts))


def domain_granted(host: str, grants: Iterable[str]) -> bool:
    """Whether ``host`` is one of ``grants`` (``*.example.com`` grants its subdomains only)."""
    host = host.lower().rstrip(".")
    for grant in grants:
        if grant.startswith("*."):
            if host.endswith(grant[1:]) and len(host) > len(grant) - 1:
                return True
        elif host == grant:
            return True
    return False
