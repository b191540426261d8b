"""pytest: runs project code (MEDIUM); some options make it delete or write paths.

``--basetemp=DIR`` empties DIR before the run (``--basetemp=.git`` wipes the repository),
report and log options write files, ``-o cache_dir=`` moves the cache, ``-p`` loads a plugin
module.  Those options are path effects (so protected paths are refused and writes outside the
workspace ask) and *escalate* the command: a prefix rule such as ``bash(pytest:*)`` approves
running the tests, not those options.
"""

from __future__ import annotations

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import resolve_long
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.vocab import words

__all__ = ["pytest", "runner_options"]

MEDIUM = RiskLevel.MEDIUM
#: Long options whose value is a path pytest writes (basetemp: deletes it first).
_WRITES = words(
    """--basetemp --junitxml --junit-xml --resultlog --result-log --log-file --report-log
    --debug --html --json-report-file --cov-report"""
)
#: Long options whose value names code or config pytest loads.
_LOADS = words("--config-file --rootdir --confcutdir --override-ini -p -c -o")
#: Long options that are exact names of their own (``--co`` is collect-only, not an abbreviation).
_EXACT_SAFE = words(
    """--co --collect-only --lf --last-failed --ff --failed-first --nf --new-first --sw --stepwise
    --setup-show --setup-only --fixtures --markers --cache-show --cache-clear --version --help
    --no-header --no-summary --runxfail --strict-markers --showlocals --color --capture
    --disable-warnings --exitfirst --verbose --quiet --import-mode --doctest-modules --cov
    --cov-branch --cov-fail-under --numprocesses --tb --maxfail --durations"""
)
_VALUED = _WRITES | _LOADS | words("-k -m --deselect --ignore --ignore-glob --tb --maxfail --durations -n")


def pytest(name: str, args: list[str]) -> Classified:
    writes: list[str] = []
    reads: list[str] = []
    worrying: list[str] = []
    basetemp: list[str] = []  # emptied before the run
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            break
        if not arg.startswith("-"):
            continue
        given, eq, value = arg.partition("=")
        if given in _EXACT_SAFE:
            continue
        if given.startswith("--"):
            resolved = resolve_long(given, _VALUED)  # argparse resolves abbreviations
            if resolved is None and any(n.startswith(given) for n in _WRITES | _LOADS):
                worrying.append(given)  # may stand for an option that writes or loads
                continue
            given = resolved or given
        elif len(given) > 2 and given[:2] in ("-p", "-c", "-o", "-k", "-m", "-n"):
            given, value, eq = given[:2], given[2:], "="
        if given not in _VALUED:
            continue
        if not eq and given != "--debug":
            value = args[i] if i < len(args) else ""
            i += 1
        if given == "--basetemp":
            basetemp.append(value)
        if given in _WRITES:
            path = value.split(":", 1)[-1] if given == "--cov-report" else value
            if given == "--cov-report" and ":" not in value:
                continue
            writes.append(path or ("pytestdebug.log" if given == "--debug" else ""))
            worrying.append(given)
        elif given in ("-o", "--override-ini"):
            key, _, path = value.partition("=")
            if key.strip() in ("cache_dir", "log_file", "junit_family", "tmp_path_retention_policy"):
                writes.append(path)
                worrying.append(f"{given} {key}")
            elif key.strip() in ("addopts", "python_files", "testpaths", "pythonpath"):
                worrying.append(f"{given} {key}")
        elif given == "-p":
            if not value.startswith("no:"):  # -p no:NAME only turns a plugin off
                worrying.append(given)
        elif given in _LOADS:
            reads.append(value)
            worrying.append(given)
    result = _c("general", MEDIUM, f"{name} runs project code (build/test)", reads=reads, writes=writes)
    if worrying:
        result.reason = f"{name} {worrying[0]} writes, deletes or loads paths of its own choosing"
        result.escalates = True
    if basetemp:
        result.destructive = True
        result.critical = [(path, f"{name} --basetemp") for path in basetemp]
    return result


#: Other test and build runners: options whose value is a path they write (profiles, binaries,
#: target directories), and options that make them run or load another program.
_RUNNER_WRITES = {
    "go": words(
        """-o -coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir
        -fuzzcachedir -test.coverprofile -test.cpuprofile -test.memprofile -test.trace"""
    ),
    "cargo": words("--target-dir --artifact-dir --out-dir"),
}
_RUNNER_LOADS = {
    "go": words("-exec -toolexec -modfile -overlay -pgo"),
    "cargo": words("--config --manifest-path -Z"),
}


def runner_options(name: str, args: list[str], result: Classified) -> Classified:
    """Mark the write and load options of ``go``/``cargo`` on their classification: writes are
    path effects and either kind escalates past a prefix rule (``bash(go test:*)``)."""
    writes, loads = _RUNNER_WRITES.get(name), _RUNNER_LOADS.get(name)
    if writes is None or loads is None:
        return result
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            break
        given, eq, value = arg.partition("=")
        if given.startswith("--") and name == "go":
            given = given[1:]  # go accepts -flag and --flag alike
        if given not in writes and given not in loads:
            continue
        if not eq:
            value = args[i] if i < len(args) else ""
            i += 1
        if given in writes:
            result.writes.append(value)
        result.escalates = True
        result.reason = f"{name} {given} writes or loads paths of its own choosing"
    return result
