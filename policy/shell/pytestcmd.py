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
from cairn.policy.shell.programs import Program, record
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c

__all__ = ["pytest", "runner_options"]

MEDIUM = RiskLevel.MEDIUM


def _tables() -> tuple[frozenset[str], set[str], frozenset[str], frozenset[str]]:
    """From pytest's record: options that never take the next word as theirs (exact names:
    ``--co`` is collect-only, not an abbreviation), options with a value, and the options whose
    value is a path it writes (``--basetemp``: deletes it first) or code/config it loads."""
    found = record("pytest")
    assert found is not None  # programs/coded.py
    exact = frozenset("--" + n for n in found.asks_long)
    valued = set(found.long_names - exact) | {"-" + c for c in found.asks_valued}
    return exact, valued, found.writes_with, found.reads_with


def pytest(name: str, args: list[str]) -> Classified:
    writes: list[str] = []
    reads: list[str] = []
    worrying: list[str] = []
    basetemp: list[str] = []  # emptied before the run
    exact, valued, writes_with, loads = _tables()
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            break
        if not arg.startswith("-"):
            continue
        given, eq, value = arg.partition("=")
        if given in exact:
            continue
        if given.startswith("--"):
            resolved = resolve_long(given, valued)  # argparse resolves abbreviations
            if resolved is None and any(n.startswith(given) for n in writes_with | loads):
                worrying.append(given)  # may stand for an option that writes or loads
                continue
            given = resolved or given
        elif len(given) > 2 and given[:2] in ("-p", "-c", "-o", "-k", "-m", "-n"):
            given, value, eq = given[:2], given[2:], "="
        if given not in valued:
            continue
        if not eq and given != "--debug":
            value = args[i] if i < len(args) else ""
            i += 1
        if given == "--basetemp":
            basetemp.append(value)
        if given in writes_with:
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
        elif given in loads:
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


def runner_options(found: Program, args: list[str], result: Classified) -> Classified:
    """Mark the write and load options of ``go``/``cargo`` (their records) on their
    classification: writes are path effects and either kind escalates past a prefix rule
    (``bash(go test:*)``)."""
    name, writes, loads = found.name, found.writes_with, found.reads_with
    if not writes and not loads:
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
