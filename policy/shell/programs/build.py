"""Build and test tools: they run project code, so every use asks (a rule can approve one).

Runners (make, tox, jest …) always run project code.  Project tools (cargo, go, npm …) name
the subcommands that run project code; their rules ask harder for the ones that install or
download packages, and the options that write or load paths of their own choosing (``go build
-o``, ``cargo --config``: ``writes_with``/``reads_with``) escalate past a prefix rule such as
``bash(go test:*)``, as in every build record.  pytest's options are in its record
(``programs/coded.py``).
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
#: Subcommands of the project tools that install or run packages.
_INSTALL = """install i add ci update upgrade remove uninstall get publish login link unlink global dlx
    create init x"""
#: Options whose value is a path go writes, and options that make it load or run other code
#: (go takes -flag and --flag alike: its options are single-dash words).
_GO_WRITES = """o coverprofile cpuprofile memprofile blockprofile mutexprofile trace outputdir fuzzcachedir
    test.coverprofile test.cpuprofile test.memprofile test.trace"""
_GO_READS = "exec toolexec modfile overlay pgo"


def _dashed(names: str) -> str:
    return " ".join("-" + n for n in names.split())


def _tool(name: str, *first: tuple[str, ...], **kw: str) -> Program:
    """A project tool: installing asks harder, its project subcommands run project code."""
    subs = _TOOLS[name]
    installs = ",".join(words(_INSTALL) | ({"exec"} if name == "npm" else set()))
    return program(
        name,
        options_by_handler=True,
        rules=(
            (
                f"sub:{installs}",
                "network",
                "high",
                "{opt} installs or runs packages (downloads code, runs install scripts)",
                "network",
            ),
            *first,
            (
                f"sub:{','.join(subs.split())}",
                "general",
                "medium",
                "{opt} runs project code (build/test scripts)",
            ),
            *kw.pop("rules", ()),
            ("always", "general", "high", "{op} is not a known read-only command"),
        ),
        ask=(f"{name} {subs.split()[0]}", f"{name} install x"),
        **kw,
    )


#: uv, poetry, hatch, pdm: ``run CMD`` runs CMD in the project environment.
_RUN = ("sub:run", "general", "medium", "run executes a command in the project environment", "inner-rest")
_UV = (
    "sub:pip,tool,add,remove,python,venv,init,publish",
    "network",
    "high",
    "{opt} installs or changes packages",
    "network",
)
_SCRIPT = ("operands", "general", "medium", "{opt} runs project code (build/test scripts)")

# fmt: off
RECORDS: tuple[Program, ...] = (
    *(program(n, options_by_handler=True, rules=(_RUNS,), ask=(n,)) for n in sorted(words(_RUNNERS))),
    _tool("go", single_dash=True, asks_long_valued=f"{_GO_WRITES} {_GO_READS}", writes_with=_dashed(_GO_WRITES),
        reads_with=_dashed(_GO_READS), deny=("go build -o .git/hooks/x",)),
    _tool("cargo", asks_valued="Z", asks_long_valued="target-dir artifact-dir out-dir config manifest-path",
        writes_with="--target-dir --artifact-dir --out-dir", reads_with="--config --manifest-path -Z"),
    _tool("uv", _UV, _RUN),
    *(_tool(n, _RUN) for n in ("poetry", "hatch", "pdm")),
    *(_tool(n, rules=(_SCRIPT,)) for n in ("yarn", "pnpm", "bun")),
    *(_tool(n) for n in ("npm", "deno")),
)
# fmt: on
