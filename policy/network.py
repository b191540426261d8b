"""Which domains a shell command gets through the sandbox's egress proxy, and which are offered.

Granted: the domains of the allow rules that allowed the command
(``bash(pip install:*; domain:pypi.org,files.pythonhosted.org)``).  Offered, never granted: the
registries of the package managers a command runs, shown at the approval prompt so a person
can answer "yes, with network to these" (``w``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from cairn.policy.rules import Rule
from cairn.policy.shell.result import ShellAnalysis

__all__ = ["REGISTRIES", "granted_domains", "offered_domains"]

_PYPI = ("pypi.org", "files.pythonhosted.org")
_NPM = ("registry.npmjs.org",)
#: Package managers and the registries their downloads come from (their default configuration).
REGISTRIES: dict[str, tuple[str, ...]] = {
    "pip": _PYPI,
    "pip3": _PYPI,
    "uv": _PYPI,
    "uvx": _PYPI,
    "pipx": _PYPI,
    "poetry": _PYPI,
    "pdm": _PYPI,
    "hatch": _PYPI,
    "npm": _NPM,
    "npx": _NPM,
    "pnpm": _NPM,
    "yarn": ("registry.yarnpkg.com", *_NPM),
    "bun": _NPM,
    "cargo": ("crates.io", "index.crates.io", "static.crates.io"),
    "go": ("proxy.golang.org", "sum.golang.org"),
    "gem": ("rubygems.org", "index.rubygems.org"),
    "bundle": ("rubygems.org", "index.rubygems.org"),
    "composer": ("repo.packagist.org",),
    "dotnet": ("api.nuget.org",),
    "mvn": ("repo.maven.apache.org",),
    "gradle": ("repo.maven.apache.org", "plugins.gradle.org", "services.gradle.org"),
}
_PYTHONS = ("python", "python3")


def _program(argv: list[str]) -> str | None:
    if not argv:
        return None
    name = os.path.basename(argv[0])
    if name.startswith(_PYTHONS) and len(argv) > 2 and argv[1] == "-m":
        return argv[2]  # python -m pip
    return name


def offered_domains(analysis: ShellAnalysis) -> tuple[str, ...]:
    """The registries of the package managers among the command's simple commands."""
    found: list[str] = []
    for unit in analysis.units:
        found += REGISTRIES.get(_program(unit.argv) or "", ())
    return tuple(dict.fromkeys(found))


def granted_domains(rules: Iterable[Rule]) -> tuple[str, ...]:
    """The domains the allow rules that decided grant, in rule order."""
    return tuple(dict.fromkeys(domain for rule in rules for domain in rule.domains))
