"""Programs whose arguments embed code or commands: a handler parses every argument.

git (config, aliases, pagers, hooks), sed (``e``, ``w``), awk (``system``, files, extensions),
find (``-exec``, ``-delete``).  Their records carry no option list: the
handler named in each record judges every option, resolving GNU abbreviations against the
program's full option list (an option it does not know asks).  pytest (runs project code;
``--basetemp`` deletes) is judged from its record: its options that write or load paths escalate.
"""

from __future__ import annotations

from cairn.policy.shell.programs.record import Program, program

__all__ = ["RECORDS"]

_SED = {
    "handler": "sedawk.sed",
    "options_by_handler": True,
    # every option of GNU sed (abbreviations resolve against them; the handler reads e, f, i, l)
    "flags": "nrEsuz",
    "valued": "el",
    "long": """quiet silent debug posix regexp-extended separate sandbox unbuffered null-data
    zero-terminated binary follow-symlinks help version""",
    "long_valued": "expression line-length",
    "asks_valued": "f",
    "asks_long_valued": "file",
    "asks_long": "in-place",
    "allow": ("sed -n 1,5p README.md", "sed --quiet 1p README.md", "sed --expression=s/a/b/ README.md"),
    "ask": (
        "sed -i s/a/b/ README.md",
        "sed --in-pl -e s/a/b/ README.md",
        "sed --exp='1e id' README.md",
        "sed --fi=x.sed README.md",
    ),
}
_AWK = {
    "handler": "sedawk.awk",
    "options_by_handler": True,
    # the options that only split input or preset variables; every other gawk option asks
    "valued": "Fv",
    "long": "posix traditional characters-as-bytes csv re-interval use-lc-numeric sandbox",
    "long_valued": "field-separator assign source",
    "asks_valued": "fEilW",
    "asks_long_valued": "file include load exec",
    "asks_long": """bignum copyright debug dump-variables gen-pot help lint lint-old no-optimize
    non-decimal-data optimize persist pretty-print profile trace version""",
    "allow": ("awk '{print $1}' README.md", "awk -F: '{print $2}' README.md"),
    "ask": (
        "awk -f prog.awk README.md",
        "awk --exe=prog.awk README.md",
        "awk 'BEGIN{system(\"id\")}'",
        "awk 'BEGIN{for (k in ENVIRON) print k}'",
    ),
}

_PYTEST = {
    "category": "build",
    "options_by_handler": True,
    "abbreviations": True,  # argparse resolves a unique prefix (--base= is --basetemp=)
    "env": ("PYTEST_ADDOPTS", "PYTHONPATH"),
    # every use asks (pytest runs project code), so every option is one that asks; first those
    # that never take the next word (exact names: --co is not an abbreviation) ...
    "asks_long": """co collect-only lf last-failed ff failed-first nf new-first sw stepwise setup-show
    setup-only fixtures markers cache-show cache-clear version help no-header no-summary runxfail
    strict-markers showlocals color capture disable-warnings exitfirst verbose quiet import-mode
    doctest-modules cov cov-branch cov-fail-under numprocesses debug""",
    # ... then those with a value, among them the ones that write a path (basetemp empties it
    # first; --debug writes pytestdebug.log; -o cache_dir=DIR) or load code or config (-o
    # addopts=, -p PLUGIN): they escalate past a rule such as bash(pytest:*)
    "asks_valued": "kmnpco",
    "asks_long_valued": """deselect ignore ignore-glob tb maxfail durations basetemp junitxml
    junit-xml resultlog result-log log-file report-log html json-report-file cov-report
    config-file rootdir confcutdir override-ini""",
    "writes_with": """--basetemp --junitxml --junit-xml --resultlog --result-log --log-file
    --report-log --debug --html --json-report-file --cov-report cache_dir= log_file= junit_family=
    tmp_path_retention_policy=""",
    "default_file": "pytestdebug.log",
    "reads_with": "--config-file --rootdir --confcutdir -c addopts= python_files= testpaths= pythonpath=",
    "critical_with": "--basetemp",
    "rules": (
        ("-p~^(?!no:)", "general", "medium", "-p {opt} loads a plugin module", "escalates"),
        ("always", "general", "medium", "runs project code (build/test)"),
    ),
}

# fmt: off
RECORDS: tuple[Program, ...] = (
    # git's own options before the subcommand: -C DIR, -c NAME=VALUE (asks unless harmless)
    program("git", "vcs", handler="gitcmd.git", options_by_handler=True, flags="P", valued="C",
        asks_valued="c", long="""no-pager bare no-replace-objects literal-pathspecs glob-pathspecs
        noglob-pathspecs icase-pathspecs no-optional-locks no-advice no-lazy-fetch""",
        env=(
            "GIT_DIR",
            "GIT_COMMON_DIR",
            "GIT_CONFIG_*",
            "GIT_TEST_FSMONITOR",
            "GIT_EXTERNAL_DIFF",
            "GIT_PAGER",
        ),
        allow=("git status", "git log --oneline -5", "git diff HEAD~1 --stat"),
        ask=("git -c core.pager=sh log", "git push", "GIT_TEST_FSMONITOR=./x.sh git status"),
        deny=("git -C . commit --no-verify -m x && rm -rf /",)),
    program("sed", "text", **_SED),
    program("gsed", "text", **_SED),
    program("awk", "text", **_AWK),
    program("gawk", "text", **_AWK),
    program("mawk", "text", **_AWK),
    program("nawk", "text", **_AWK),
    program("find", "search", handler="findcmd.find", options_by_handler=True,
        allow=("find src -name '*.py'", "find . -type f -newer README.md"),
        ask=("find . -name x -exec touch {} \\;", "find /etc -name x", "find . -name x -fprint out.txt"),
        deny=("find / -delete", "find . -exec rm {} +")),
    program("xargs", "wrapper", operands="command", abbreviations=True, options_by_handler=True, flags="0prtx",
        valued="aEeIiLlnPsd", reads_with="-a --arg-file", default_file="echo", rules=(
            ("unknown-long", "general", "high", "{opt} is not an xargs option"),
            ("always", "wrapper", "low", "runs a command with arguments read from its input",
                "inner stdin-args placeholder=-I,-i,--replace")),
        long="""null interactive open-tty no-run-if-empty verbose show-limits exit help version""",
        long_valued="""arg-file eof replace max-lines max-args max-procs max-chars delimiter
        process-slot-var""",
        allow=("echo README.md | xargs wc -l",), ask=("xargs --arg-f=/etc/passwd echo", "echo x | xargs rm")),
    program("pytest", **_PYTEST, ask=("pytest -q", "pytest --basetemp=src"), deny=("pytest --basetemp=.git",)),
    program("py.test", **_PYTEST, ask=("py.test -q",), deny=("py.test --basetemp=.git",)),
)
# fmt: on
