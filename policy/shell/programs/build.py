"""Build and test tools: they run project code, so every use asks (a rule can approve one).

Runners (make, tox, jest …) always run project code.  Project tools (cargo, go, npm …) name
the subcommands that run project code; their handler (``commands.project_tool``) asks harder
for the ones that install or download packages, and marks the options that write or load
paths of their own choosing (``go build -o``, ``cargo --config``) as escalating past a prefix
rule such as ``bash(go test:*)``.  pytest's options are in its record (``programs/coded.py``).
"""

from __future__ import annotations

from cairn.policy.shell.programs.record import Program, program
from cairn.policy.vocab import words

__all__ = ["FAMILY", "RECORDS"]

FAMILY = "build"

_RUNS = ("always", "general", "medium", "runs project code (build/test)")
_RUNNERS = """make gmake cmake ninja meson bazel buck mvn gradle ant sbt lein rake tox nox jest vitest
    mocha ava karma tsc rspec phpunit dotnet swift mix rebar3 stack cabal ctest pre-commit
    playwright cypress"""
_TOOLS = {
    "cargo": "build test run check clippy bench doc fmt tree metadata",
    "go": "build test run vet generate list fmt doc env version mod",
    "npm": "test t run run-script start stop restart exec ls list outdated view audit",
    "yarn": "test run start build lint why list info",
    "pnpm": "test run start build lint why list ls exec",
    "bun": "test run build",
    "deno": "test check lint fmt task bench",
    "uv": "run sync lock build tree",
    "poetry": "run build check show lock",
    "hatch": "run test build fmt",
    "pdm": "run build list",
}
#: Options whose value is a path go/cargo write, and options that make them load or run other
#: code (go takes -flag and --flag alike).
_GO_WRITES = """-o -coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir
    -fuzzcachedir -test.coverprofile -test.cpuprofile -test.memprofile -test.trace"""


def _tool(name: str, **kw: str) -> Program:
    return program(
        name,
        handler="commands.project_tool",
        options_by_handler=True,
        subcommands=_TOOLS[name],
        ask=(f"{name} {_TOOLS[name].split()[0]}", f"{name} install x"),
        **kw,
    )


# fmt: off
RECORDS: tuple[Program, ...] = (
    *(program(n, options_by_handler=True, rules=(_RUNS,), ask=(n,)) for n in sorted(words(_RUNNERS))),
    _tool("go", writes_with=_GO_WRITES, reads_with="-exec -toolexec -modfile -overlay -pgo"),
    _tool("cargo", writes_with="--target-dir --artifact-dir --out-dir",
        reads_with="--config --manifest-path -Z"),
    *(_tool(n) for n in _TOOLS if n not in ("go", "cargo")),
)
# fmt: on
